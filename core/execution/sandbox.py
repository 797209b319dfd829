"""The Python sandbox: run a plain Python function as a tool, in a fresh, fenced-in process per call.

GRETEL §3.2.1 dispatches every planned call through a "sandboxed Executor module" and keeps what comes
back — a JSON answer or a structured error — as evidence. This module is that executor for tools that
are Python functions. Each call runs ``python -I -B core/execution/sandbox_child.py`` (by path), hands it
the call as JSON on stdin and reads the answer from a separate file descriptor, so whatever the tool prints
cannot corrupt it. Tool code is hostile until proven otherwise: it comes from catalog files.

Layers, outermost first:

* bubblewrap (``isolation="auto"`` when ``bwrap`` works here, or ``"bwrap"`` to require it): new PID,
  network, IPC and UTS namespaces, no capabilities, a read-only root with every top-level directory but
  ``/usr``, ``/lib*``, ``/bin``, ``/sbin`` and ``/sys`` hidden under empty tmpfs (``/root``, ``/home``,
  ``/tmp``, ``/var``, ``/run``, the project tree...), an ``/etc`` holding only the time zone, certificate
  and loader files, the interpreter's own directories bound back read-only, and the call's working
  directory the only writable place; it dies with the parent and has none of its environment;
* the child's own kernel-level hardening, before any tool code (:func:`core.execution.sandbox_child.harden`):
  a new empty network namespace without bubblewrap when permitted (root), every capability dropped,
  ``no_new_privs``, Landlock (read-only access to the interpreter and a few system files, read-write to
  the working directory, nothing else; no TCP; no signals or abstract sockets outside), and a seccomp-bpf
  filter that makes execve, fork/vfork, clone of a process, socket(), ptrace, process_vm_*, signals to
  other processes, raising limits and administrative calls fail with EPERM;
* an audit hook (:func:`sys.addaudithook`) installed before the tool's code is even compiled: it refuses
  importing ``ctypes``, ``_posixsubprocess``, ``multiprocessing``, ``pty`` and similar (already loaded
  ones are evicted first), sockets, process creation, native code through ctypes, signals, limit changes,
  reading another process's ``/proc`` entry or anything outside the allow-list, symbolic links, and any
  write, delete, rename, link or permission change outside the call's working directory. It turns what a
  tool does into a clear ``refused`` answer; it is no boundary on its own (an extension module loaded
  once comes back from ``_imp.create_dynamic`` without an import event; CPython has memory-safety bugs):
  the kernel layers are;
* resource limits — address space and data segment (``memory_mb``), CPU seconds (just above the wall
  limit), size of any file written (``max_file_mb``, which also caps printed output), no core dumps — and
  the wall clock: the parent kills the child's whole process group (and with it the bubblewrap namespace)
  at the limit (``timeout``);
* a scrubbed environment (no API keys) and a fresh temporary working directory, deleted afterwards.

Every result says which of these held in :attr:`ExecutionResult.isolation` (e.g.
``"bubblewrap+landlock+seccomp+audit"`` or ``"process+landlock+seccomp+netns+audit"``), and
:func:`isolation_report` summarises what this machine offers.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.execution.base import ERROR_KINDS, ExecutionResult, classify_error
from core.execution.sandbox_child import ETC_READABLE
from core.models import Tool

_MIB = 1024 * 1024
# Below this the interpreter itself cannot start its imports, so a smaller limit only produces noise.
_MIN_MEMORY_MB = 48
_MAX_MESSAGE = 2_000
CHILD_SCRIPT = str(Path(__file__).resolve().with_name("sandbox_child.py"))
ISOLATION_MODES = ("auto", "bwrap", "process")


@dataclass(frozen=True, kw_only=True)
class PythonFunction:
    """A callable the sandbox can run: ``function`` defined in the file at ``path`` or in ``source``.

    Exactly one of ``path`` and ``source`` is given. A relative ``path`` is read relative to the parent
    process's working directory at call time (the child runs elsewhere, in its temporary directory). Paths
    are for the operator's own ``functions`` mapping only: catalog data gives ``source``
    (:meth:`from_extra`).
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
    def of_tool(cls, tool: Tool) -> PythonFunction | None:
        """The function a catalog tool carries in ``extra["python"]``, or None when it carries none or an entry
        :meth:`from_extra` refuses (a ``path``, unknown fields): what the sandbox would run for the tool."""
        entry = tool.extra.get("python") if isinstance(tool.extra, Mapping) else None
        if entry is None:
            return None
        try:
            return cls.from_extra(entry)
        except (ValueError, TypeError):
            return None

    @classmethod
    def from_extra(cls, entry: Any) -> PythonFunction:
        """From a tool's ``extra["python"]``: ``{"function": ..., "source": ...}``.

        ``extra`` comes from catalog files, which are untrusted: a file path there would make the parent
        read any file it can (``/etc/shadow``, an SSH key) and hand it to the tool, so ``path`` is refused.
        """
        if not isinstance(entry, Mapping):
            raise ValueError(f"extra['python'] must be an object, not {type(entry).__name__}")
        if "path" in entry:
            raise ValueError("extra['python'] may not name a file ('path'): catalog data is untrusted, so "
                             "it must carry the code itself ('source'); file paths are only for the "
                             "functions an operator passes to SandboxExecutor")
        unknown = set(entry) - {"function", "source"}
        if unknown:
            raise ValueError(f"extra['python'] has unknown fields {sorted(unknown)}")
        return cls(function=entry.get("function"), source=entry.get("source"))

    def load_source(self) -> tuple[str, str]:
        """(source text, file name for tracebacks). The parent reads the file so the child needs no
        access to where it lives."""
        if self.source is not None:
            return self.source, f"<sandbox:{self.function}>"
        path = Path(self.path or "").resolve()
        return path.read_text(encoding="utf-8"), str(path)


@dataclass(frozen=True)
class SandboxIsolation:
    """What isolation the Python sandbox gets on this machine (:func:`isolation_report`).

    ``level`` is ``"bubblewrap"`` or ``"process"``; ``network_isolated`` whether the tool has a network
    namespace of its own (bubblewrap's, or one the process made); ``seccomp`` whether the system-call filter
    is on; ``summary`` one line for the Trials page and the CLI, which starts with ``WARNING`` when neither
    bubblewrap nor a network namespace is available. ``landlock`` and ``isolation`` (the string the
    results carry) add detail."""

    level: str
    network_isolated: bool
    seccomp: bool
    summary: str
    landlock: bool = False
    isolation: str = ""


class SandboxExecutor:
    """Runs :class:`PythonFunction` tools, one fresh subprocess per call (GRETEL §3.2.1, sandboxed Executor).

    A tool is covered when its key is in ``functions`` or its ``extra`` carries a ``"python"`` entry with
    inline ``source``. ``timeout`` is a ceiling: a call's own ``timeout`` can only lower it. ``memory_mb``
    bounds the child's whole address space (interpreter included), ``max_file_mb`` any file it writes and
    its printed output, ``max_output_bytes`` the JSON of its return value. ``isolation``: ``"auto"``
    (bubblewrap when it works here, else the restricted process), ``"bwrap"`` (bubblewrap or an
    ``unavailable`` failure) or ``"process"`` (never bubblewrap); ``network_namespace`` lets the restricted
    process try a network namespace of its own (root only).
    """

    def __init__(self, functions: Mapping[str, PythonFunction] | None = None, *, timeout: float = 5.0,
                 memory_mb: int = 256, max_file_mb: int = 16, max_output_bytes: int = 1_000_000,
                 network_namespace: bool = True, isolation: str = "auto", name: str = "sandbox") -> None:
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
        if isolation not in ISOLATION_MODES:
            raise ValueError(f"SandboxExecutor: isolation must be one of {ISOLATION_MODES}, got {isolation!r}")
        if not isinstance(name, str) or not name:
            raise ValueError("SandboxExecutor: name must be a non-empty string")
        self.functions = dict(functions)
        self.timeout = float(timeout)
        self.memory_mb = memory_mb
        self.max_file_mb = max_file_mb
        self.max_output_bytes = max_output_bytes
        self.network_namespace = network_namespace
        self.isolation = isolation
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
        bwrap = None
        if self.isolation != "process":
            bwrap, reason = bubblewrap_status()
            if bwrap is None and self.isolation == "bwrap":
                return failure("unavailable", f"bubblewrap isolation is required but does not work here: "
                                              f"{reason}")
        limit = min(self.timeout, float(timeout))
        outcome = self._run(fn.function, source, filename, fn.path is not None, arguments_json, limit, bwrap)
        return dataclasses.replace(outcome, seconds=time.monotonic() - started, executor=self.name)

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
        return PythonFunction.of_tool(tool)

    def _run(self, function: str, source: str, filename: str, from_file: bool, arguments_json: str,
             limit: float, bwrap: str | None) -> ExecutionResult:
        workdir = os.path.realpath(tempfile.mkdtemp(prefix="toolatlas-sandbox-"))
        # Anonymous files, outside the working directory: the tool cannot open them by name, and unlike
        # pipes they need no reader thread and cannot fill up and stall the child.
        with tempfile.TemporaryFile() as request, tempfile.TemporaryFile() as answer, \
                tempfile.TemporaryFile() as status, tempfile.TemporaryFile() as output:
            try:
                request.write(json.dumps({
                    "function": function, "source": source, "filename": filename,
                    "tool_dir": str(Path(filename).parent) if from_file else None,
                    "arguments": arguments_json, "result_fd": answer.fileno(), "status_fd": status.fileno(),
                    "workdir": workdir, "max_output": self.max_output_bytes,
                    "memory_bytes": self.memory_mb * _MIB, "cpu_seconds": math.ceil(limit) + 1,
                    "file_bytes": self.max_file_mb * _MIB,
                    "new_netns": self.network_namespace and bwrap is None,
                }).encode("utf-8"))
                request.seek(0)
                argv = [sys.executable, "-I", "-B", CHILD_SCRIPT]
                tool_dir = str(Path(filename).parent) if from_file else None
                if bwrap is not None:
                    argv = _bwrap_argv(bwrap, workdir, tool_dir) + argv
                result = self._spawn_and_wait(argv, request, answer, status, output, workdir, limit,
                                              bwrap is not None)
                return dataclasses.replace(result, isolation=_isolation(bwrap is not None, status))
            finally:
                shutil.rmtree(workdir, ignore_errors=True)

    def _spawn_and_wait(self, argv: list[str], request: Any, answer: Any, status: Any, output: Any,
                        workdir: str, limit: float, in_bwrap: bool) -> ExecutionResult:
        try:
            proc = subprocess.Popen(
                argv, stdin=request, stdout=output, stderr=output, pass_fds=(answer.fileno(), status.fileno()),
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
            # Anything the tool left running in its group goes too (bubblewrap's namespace dies with it).
            _kill_group(proc)
        if self._closed:
            return ExecutionResult.failure("unavailable", "the sandbox executor was closed during the call")
        if in_bwrap and code > 128:
            code = -(code - 128)  # bubblewrap reports a child killed by signal N as 128 + N
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
        if kind == "server":  # an exception the tool raised: its message says whose fault it was
            kind = classify_error(message)
        return ExecutionResult.failure(kind if kind in ERROR_KINDS else "crash", message)


# -- isolation ---------------------------------------------------------------------------------------

def _isolation(in_bwrap: bool, status: Any) -> str:
    """The isolation string of one call: how it was started, and what the child reported (before the
    tool ran, on a descriptor it then closed) that it managed to install."""
    status.seek(0)
    try:
        report = json.loads(status.read(65_536).decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError):
        report = {}
    report = report if isinstance(report, dict) else {}
    parts = ["bubblewrap" if in_bwrap else "process"]
    if report.get("landlock"):
        parts.append("landlock")
    if report.get("seccomp") is True:
        parts.append("seccomp")
    if report.get("netns") is True and not in_bwrap:
        parts.append("netns")
    if report.get("audit") is True:
        parts.append("audit")
    return "+".join(parts)


_BWRAP_LOCK = threading.Lock()
_BWRAP_STATE: tuple[str | None, str] | None = None
_REPORT_LOCK = threading.Lock()
_REPORT: SandboxIsolation | None = None
# Top-level directories bubblewrap leaves visible (read-only); every other one is hidden under a tmpfs.
_BWRAP_KEEP = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "dev", "proc", "sys", "etc"})


def bubblewrap_status() -> tuple[str | None, str]:
    """``(path to bwrap, reason)``: the path when bubblewrap works here, found by running one real sandbox
    call inside it (once per process; the answer is cached), else None and why not."""
    global _BWRAP_STATE
    with _BWRAP_LOCK:
        if _BWRAP_STATE is None:
            _BWRAP_STATE = _probe_bubblewrap()
        return _BWRAP_STATE


def _probe_bubblewrap() -> tuple[str | None, str]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bwrap is not installed (Debian/Ubuntu package 'bubblewrap')"
    probe = SandboxExecutor(timeout=30.0, isolation="process")
    result = probe._run("probe", "def probe():\n    return 'bubblewrap works'\n", "<sandbox:probe>", False,
                        "{}", 30.0, bwrap)
    if result.ok and result.data == "bubblewrap works":
        return bwrap, "bubblewrap works"
    return None, f"running the sandbox in {bwrap} failed: {result.error}"


def _interpreter_paths(tool_dir: str | None) -> list[str]:
    """What the child needs to see, read-only, under bubblewrap's hidden directories: the interpreter's
    prefixes, its site-packages, the child script's directory (and the tool's own, for operator files)."""
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.abspath(sys.executable)), os.path.dirname(CHILD_SCRIPT)]
    try:
        paths += site.getsitepackages()
    except AttributeError:  # some virtualenvs ship an old site module
        pass
    if tool_dir:
        paths.append(tool_dir)
    out: list[str] = []
    for path in paths:
        for variant in (os.path.abspath(path), os.path.realpath(path)):
            if variant not in out and variant != "/" and os.path.exists(variant):
                out.append(variant)
    return out


def _bwrap_argv(bwrap: str, workdir: str, tool_dir: str | None) -> list[str]:
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox", "--cap-drop", "ALL",
            "--clearenv"]
    for key, value in _child_env(workdir).items():
        argv += ["--setenv", key, value]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for entry in sorted(os.listdir("/")):
        path = "/" + entry
        if entry not in _BWRAP_KEEP and os.path.isdir(path) and not os.path.islink(path):
            argv += ["--tmpfs", path]  # /root, /home, /tmp, /var, /run, the project tree...
    argv += ["--tmpfs", "/etc"]
    for path in ETC_READABLE:
        argv += ["--ro-bind-try", path, path]
    for path in _interpreter_paths(tool_dir):
        argv += ["--ro-bind-try", path, path]
    argv += ["--bind", workdir, workdir, "--chdir", workdir, "--"]
    return argv


def isolation_report() -> SandboxIsolation:
    """What the Python sandbox's ``isolation="auto"`` gets on this machine, found by running one trivial
    call (once per process; cached) and reading what held."""
    global _REPORT
    with _REPORT_LOCK:
        if _REPORT is None:
            _REPORT = _measure_isolation()
        return _REPORT


def _measure_isolation() -> SandboxIsolation:
    executor = SandboxExecutor({"probe": PythonFunction.from_source("def probe():\n    return 1\n", "probe")},
                               timeout=30.0)
    result = executor.call(Tool(key="probe", name="probe"), {}, timeout=30.0)
    parts = set(result.isolation.split("+")) if result.isolation else set()
    level = "bubblewrap" if "bubblewrap" in parts else "process"
    network = level == "bubblewrap" or "netns" in parts
    seccomp, landlock = "seccomp" in parts, "landlock" in parts
    if not result.ok:
        return SandboxIsolation(level, False, False, f"WARNING: the Python sandbox does not start here: "
                                                     f"{result.error}", False, result.isolation)
    held = [name for name, on in (("Landlock", landlock), ("seccomp filter", seccomp)) if on] + ["audit hook"]
    layers = ", ".join(held)
    if level == "bubblewrap":
        summary = (f"Python tools run in bubblewrap (no network, private /tmp, home directories hidden, "
                   f"read-only system) with {layers}.")
    elif network:
        summary = (f"Python tools run in a restricted process with an empty network namespace and {layers}; "
                   f"bubblewrap is not available ({bubblewrap_status()[1]}).")
    else:
        summary = (f"WARNING: neither bubblewrap nor a network namespace is available: Python tools run in a "
                   f"restricted process on the host's network and file system, fenced only by {layers} "
                   f"(install bubblewrap for real isolation).")
    if not seccomp:
        summary += " WARNING: no seccomp filter, so the audit hook alone stops process creation."
    return SandboxIsolation(level, network, seccomp, summary, landlock, result.isolation)


# -- helpers -------------------------------------------------------------------------------------------

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
        if sig == signal.SIGSYS:
            return ExecutionResult.failure("refused", "the sandbox's system-call filter killed the process "
                                                      "(a system call of another architecture)")
        if sig == signal.SIGKILL:
            # Not our timeout (that returns earlier), so the kernel killed it: almost always for memory.
            return ExecutionResult.failure("limit", f"the sandbox process was killed (memory limit "
                                                    f"{memory_mb} MB?){detail}")
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return ExecutionResult.failure("crash", f"the sandbox process died of {name}{detail}")
    return ExecutionResult.failure("crash", f"the sandbox process exited with code {code} without an "
                                            f"answer{detail}")
