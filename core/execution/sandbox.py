"""The Python sandbox: run a plain Python function as a tool, in a fresh, fenced-in process per call.

GRETEL §3.2.1 dispatches every planned call through a "sandboxed Executor module" and keeps what comes
back — a JSON answer or a structured error — as evidence. This module is that executor for tools that
are Python functions. Each call starts ``python -I -B`` with a small runner (the function
:func:`core.execution.sandbox_child._sandbox_child`, shipped as source text), hands it the call as JSON on stdin and reads the
answer from a separate file descriptor, so whatever the tool prints cannot corrupt it.

Layers:

* wall clock — the parent kills the child's whole process group at the limit (``timeout``);
* resource limits — address space and data segment (``memory_mb``), CPU seconds (just above the wall
  limit), size of any file written (``max_file_mb``, which also caps printed output), no core dumps.
  The runner sets them on itself before the tool loads, rather than through ``preexec_fn``, which is not
  safe when calls come from several threads;
* a new, empty network namespace when the kernel lets us create one (root on Linux), skipped silently
  otherwise;
* an audit hook (:func:`sys.addaudithook`) installed before the tool's code is even compiled: it refuses
  sockets, process creation, signals to other processes, native code loading through ctypes, reading
  another process's ``/proc`` entry (the parent's environment lives there), and any write, delete,
  rename, link or permission change outside the call's temporary working directory;
* a scrubbed environment (no API keys) and a fresh temporary working directory, deleted afterwards.

Audit hooks are not a security boundary against code written to defeat them (CPython says so); they stop
what a buggy or over-eager tool does by accident and report it as ``refused``. The process limits, the
process-group kill and the namespace hold regardless. Reading files is not restricted beyond ``/proc``.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.execution.base import ERROR_KINDS, ExecutionResult
from core.models import Tool

_MIB = 1024 * 1024
# Below this the interpreter itself cannot start its imports, so a smaller limit only produces noise.
_MIN_MEMORY_MB = 48
_MAX_MESSAGE = 2_000


@dataclass(frozen=True, kw_only=True)
class PythonFunction:
    """A callable the sandbox can run: ``function`` defined in the file at ``path`` or in ``source``.

    Exactly one of ``path`` and ``source`` is given. A relative ``path`` is read relative to the parent
    process's working directory at call time (the child runs elsewhere, in its temporary directory).
    """

    function: str
    path: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.function, str) or not self.function.isidentifier():
            raise ValueError(f"PythonFunction: function must be a Python identifier, got {self.function!r}")
        if (self.path is None) == (self.source is None):
            raise ValueError("PythonFunction: give exactly one of path and source")
        if self.path is not None:
            if not isinstance(self.path, str | os.PathLike) or not os.fspath(self.path):
                raise TypeError(f"PythonFunction: path must be a non-empty str or PathLike, got {self.path!r}")
            object.__setattr__(self, "path", os.fspath(self.path))
        if self.source is not None and not isinstance(self.source, str):
            raise TypeError(f"PythonFunction: source must be str, got {type(self.source).__name__}")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], function: str) -> PythonFunction:
        return cls(function=function, path=os.fspath(path))

    @classmethod
    def from_source(cls, source: str, function: str) -> PythonFunction:
        return cls(function=function, source=source)

    @classmethod
    def from_extra(cls, entry: Any) -> PythonFunction:
        """From a tool's ``extra["python"]``: ``{"function": ..., "path": ...}`` or ``{..., "source": ...}``."""
        if not isinstance(entry, Mapping):
            raise ValueError(f"extra['python'] must be an object, not {type(entry).__name__}")
        unknown = set(entry) - {"function", "path", "source"}
        if unknown:
            raise ValueError(f"extra['python'] has unknown fields {sorted(unknown)}")
        return cls(function=entry.get("function"), path=entry.get("path"), source=entry.get("source"))

    def load_source(self) -> tuple[str, str]:
        """(source text, file name for tracebacks). The parent reads the file so the child needs no
        access to where it lives."""
        if self.source is not None:
            return self.source, f"<sandbox:{self.function}>"
        path = Path(self.path or "").resolve()
        return path.read_text(encoding="utf-8"), str(path)


class SandboxExecutor:
    """Runs :class:`PythonFunction` tools, one fresh subprocess per call (GRETEL §3.2.1, sandboxed Executor).

    A tool is covered when its key is in ``functions`` or its ``extra`` carries a ``"python"`` entry.
    ``timeout`` is a ceiling: a call's own ``timeout`` can only lower it. ``memory_mb`` bounds the
    child's whole address space (interpreter included), ``max_file_mb`` any file it writes and its
    printed output, ``max_output_bytes`` the JSON of its return value.
    """

    def __init__(self, functions: Mapping[str, PythonFunction] | None = None, *, timeout: float = 5.0,
                 memory_mb: int = 256, max_file_mb: int = 16, max_output_bytes: int = 1_000_000,
                 network_namespace: bool = True, name: str = "sandbox") -> None:
        functions = {} if functions is None else functions
        if not isinstance(functions, Mapping):
            raise TypeError(f"SandboxExecutor: functions must be a mapping, not {type(functions).__name__}")
        for key, fn in functions.items():
            if not isinstance(key, str) or not isinstance(fn, PythonFunction):
                raise TypeError(f"SandboxExecutor: functions must map str to PythonFunction, got {key!r}: {fn!r}")
        _check_seconds("timeout", timeout)
        for label, value, low in (("memory_mb", memory_mb, _MIN_MEMORY_MB), ("max_file_mb", max_file_mb, 1),
                                  ("max_output_bytes", max_output_bytes, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"SandboxExecutor: {label} must be an int >= {low}, got {value!r}")
        if max_output_bytes + 65_536 > max_file_mb * _MIB:
            raise ValueError("SandboxExecutor: max_output_bytes must fit well inside max_file_mb")
        if not isinstance(name, str) or not name:
            raise ValueError("SandboxExecutor: name must be a non-empty string")
        self.functions = dict(functions)
        self.timeout = float(timeout)
        self.memory_mb = memory_mb
        self.max_file_mb = max_file_mb
        self.max_output_bytes = max_output_bytes
        self.network_namespace = network_namespace
        self.name = name
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    # -- Executor protocol -------------------------------------------------------------------------

    def covers(self, tool: Tool) -> bool:
        return self._function_for(tool) is not None

    def call(self, tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 10.0) -> ExecutionResult:
        _check_seconds("timeout", timeout)
        started = time.monotonic()

        def failure(kind: str, message: str) -> ExecutionResult:
            return ExecutionResult.failure(kind, message, seconds=time.monotonic() - started, executor=self.name)

        if self._closed:
            return failure("unavailable", "the sandbox executor is closed")
        fn = self._function_for(tool)
        if fn is None:
            return failure("not_found", f"the sandbox has no Python function for tool {tool.key!r}")
        if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
            return failure("invalid_params", "arguments must be an object with string keys")
        try:
            arguments_json = json.dumps(dict(arguments), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            return failure("invalid_params", f"arguments are not JSON: {exc}")
        try:
            source, filename = fn.load_source()
        except (OSError, UnicodeDecodeError) as exc:
            return failure("not_found", f"cannot read the tool's source {fn.path!r}: {exc}")
        limit = min(self.timeout, float(timeout))
        outcome = self._run(fn, source, filename, arguments_json, limit)
        seconds = time.monotonic() - started
        if outcome.ok:
            return ExecutionResult(True, outcome.data, seconds=seconds, executor=self.name)
        return ExecutionResult.failure(outcome.error_kind or "crash", outcome.error or "failed",
                                       seconds=seconds, executor=self.name)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            running = list(self._running)
        for proc in running:
            _kill_group(proc)

    def __enter__(self) -> SandboxExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------------------

    def _function_for(self, tool: Tool) -> PythonFunction | None:
        if tool.key in self.functions:
            return self.functions[tool.key]
        entry = tool.extra.get("python") if isinstance(tool.extra, Mapping) else None
        if entry is None:
            return None
        try:
            return PythonFunction.from_extra(entry)
        except (ValueError, TypeError):
            return None

    def _run(self, fn: PythonFunction, source: str, filename: str, arguments_json: str,
             limit: float) -> ExecutionResult:
        workdir = tempfile.mkdtemp(prefix="toolatlas-sandbox-")
        # Anonymous files, outside the working directory: the tool cannot open them by name, and unlike
        # pipes they need no reader thread and cannot fill up and stall the child.
        with tempfile.TemporaryFile() as request, tempfile.TemporaryFile() as answer, \
                tempfile.TemporaryFile() as output:
            try:
                request.write(json.dumps({
                    "function": fn.function, "source": source, "filename": filename,
                    "tool_dir": str(Path(filename).parent) if fn.path is not None else None,
                    "arguments": arguments_json, "result_fd": answer.fileno(), "workdir": workdir,
                    "max_output": self.max_output_bytes, "memory_bytes": self.memory_mb * _MIB,
                    "cpu_seconds": math.ceil(limit) + 1, "file_bytes": self.max_file_mb * _MIB,
                    "new_netns": self.network_namespace,
                }).encode("utf-8"))
                request.seek(0)
                return self._spawn_and_wait(request, answer, output, workdir, limit)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)

    def _spawn_and_wait(self, request: Any, answer: Any, output: Any, workdir: str,
                        limit: float) -> ExecutionResult:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", _runner_source()],
                stdin=request, stdout=output, stderr=output, pass_fds=(answer.fileno(),),
                cwd=workdir, env=_child_env(workdir), start_new_session=True, close_fds=True,
            )
        except OSError as exc:
            return ExecutionResult.failure("unavailable", f"cannot start the sandbox process: {exc}")
        with self._lock:
            self._running.add(proc)
        try:
            try:
                code = proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                return ExecutionResult.failure("timeout", f"no answer within {limit:g} s; the sandbox process "
                                                          "was killed")
        finally:
            with self._lock:
                self._running.discard(proc)
            # Anything the tool left running in its group goes too.
            _kill_group(proc)
        if self._closed:
            return ExecutionResult.failure("unavailable", "the sandbox executor was closed during the call")
        return self._read_answer(answer, output, code)

    def _read_answer(self, answer: Any, output: Any, code: int) -> ExecutionResult:
        answer.seek(0)
        raw = answer.read(self.max_output_bytes + 65_537)
        if len(raw) > self.max_output_bytes + 65_536:
            return ExecutionResult.failure("limit", f"the answer exceeds {self.max_output_bytes:,} bytes")
        if not raw:
            return _no_answer(code, _tail(output), self.memory_mb)
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return ExecutionResult.failure("crash", "the sandbox process wrote an unreadable answer")
        if not isinstance(payload, dict):
            return ExecutionResult.failure("crash", "the sandbox process wrote an unreadable answer")
        if payload.get("ok") is True:
            return ExecutionResult(True, payload.get("data"))
        kind = payload.get("kind")
        message = str(payload.get("error") or "the tool failed")[:_MAX_MESSAGE]
        return ExecutionResult.failure(kind if kind in ERROR_KINDS else "crash", message)


def _check_seconds(label: str, value: Any) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"SandboxExecutor: {label} must be a positive number of seconds, got {value!r}")


def _child_env(workdir: str) -> dict[str, str]:
    # A minimal, explicit environment: nothing of the parent's (API keys, tokens, proxies) leaks in.
    # Numeric libraries are kept to one thread so the memory limit is not spent on thread arenas.
    return {
        "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": workdir, "TMPDIR": workdir,
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    }


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _tail(output: Any, limit: int = 600) -> str:
    output.seek(0, os.SEEK_END)
    size = output.tell()
    output.seek(max(0, size - limit))
    return output.read().decode("utf-8", "replace").strip()


def _no_answer(code: int, tail: str, memory_mb: int) -> ExecutionResult:
    """The child ended without writing an answer: say why, from how it ended."""
    detail = f"; last output: {tail[-400:]}" if tail else ""
    if code < 0:
        sig = -code
        if sig == signal.SIGXCPU:
            return ExecutionResult.failure("limit", "the tool used up its CPU time limit")
        if sig == signal.SIGXFSZ:
            return ExecutionResult.failure("limit", "the tool wrote past the file size limit")
        if sig == signal.SIGKILL:
            # Not our timeout (that returns earlier), so the kernel killed it: almost always for memory.
            return ExecutionResult.failure("limit", f"the sandbox process was killed (memory limit "
                                                    f"{memory_mb} MB?){detail}")
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return ExecutionResult.failure("crash", f"the sandbox process died of {name}{detail}")
    return ExecutionResult.failure("crash", f"the sandbox process exited with code {code} without an "
                                            f"answer{detail}")


_RUNNER: str | None = None


def _runner_source() -> str:
    global _RUNNER
    if _RUNNER is None:
        from core.execution.sandbox_child import _sandbox_child

        _RUNNER = inspect.getsource(_sandbox_child) + "\n_sandbox_child()\n"
    return _RUNNER
