"""A local GGUF model behind an OpenAI-compatible endpoint on 127.0.0.1, served by ``xllamacpp``.

``xllamacpp.Server(params)`` loads the model and starts llama.cpp's HTTP server (``/health``,
``/v1/chat/completions``, ``/v1/models``) in-process. We run it in a child process, so a model that
fails to load, or crashes, never takes the app down and ``stop()`` always ends it. The child also
exits when its parent dies, so no orphaned server holds the port or the memory.

Optional extra: ``pip install xllamacpp`` (``pip install -e '.[local]'``).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

INSTALL_HINT = "local models need the xllamacpp package: pip install xllamacpp"
_REPO = Path(__file__).resolve().parents[2]


class LocalServerError(ValueError):
    """The local model server cannot start (missing file or package, bad model, no answer in time)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def xllamacpp_available() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return "no message"
    useful = [t for t in text if t.strip()][-lines:]
    return " | ".join(useful) if useful else "no message"


class LocalModelServer:
    """``start() -> base_url`` (``http://127.0.0.1:PORT/v1``), ``stop()``, or ``with LocalModelServer(p) as s``."""

    def __init__(self, gguf_path: str | Path, *, port: int | None = None, n_ctx: int = 4096, threads: int = 2,
                 start_timeout: float = 120.0) -> None:
        for name, value in (("n_ctx", n_ctx), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536):
            raise ValueError(f"port must be an integer in 1..65535 or None, not {port!r}")
        if not start_timeout > 0:
            raise ValueError(f"start_timeout must be > 0, not {start_timeout!r}")
        self.gguf_path = Path(gguf_path)
        self.port = port
        self.n_ctx = n_ctx
        self.threads = threads
        self.start_timeout = float(start_timeout)
        self._proc: subprocess.Popen | None = None
        self._log: Path | None = None

    def __repr__(self) -> str:
        return f"LocalModelServer({str(self.gguf_path)!r}, port={self.port}, running={self.running})"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> str:
        """Start the server and wait until ``/health`` answers 200; returns the OpenAI base URL."""
        if not self.gguf_path.is_file():
            raise LocalServerError(f"GGUF model file not found: {self.gguf_path}")
        if not xllamacpp_available():
            raise LocalServerError(INSTALL_HINT)
        self.stop()
        self.port = self.port or _free_port()
        # llama.cpp logs heavily while loading; a file (not a pipe nobody reads) can never fill up and
        # block the child, and its tail explains a failure.
        fd, name = tempfile.mkstemp(prefix="toolatlas-llm-", suffix=".log")
        self._log = Path(name)
        with os.fdopen(fd, "wb") as log:
            self._proc = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
                [sys.executable, "-m", "core.llm.local_server", str(self.gguf_path), str(self.port),
                 str(self.n_ctx), str(self.threads), str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=_REPO,
            )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                reason = _tail(self._log)
                self.stop()
                raise LocalServerError(f"the local model server exited while loading {self.gguf_path.name}: "
                                       f"{reason}")
            if self._healthy():
                return self.base_url
            time.sleep(0.25)
        self.stop()
        raise LocalServerError(f"the local model server did not become ready within {self.start_timeout:g} s")

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as resp:  # noqa: S310
                return resp.status == 200
        except (OSError, urllib.error.URLError):
            return False  # not listening yet, or 503 while the model loads

    def stop(self) -> None:
        """End the child process (politely, then by force) and remove its log."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait(5)
            self._proc = None
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(path: str, port: int, n_ctx: int, threads: int, parent: int) -> None:
    """Child process body: load the model, serve HTTP until terminated or orphaned."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.n_parallel = 2
    server = xllamacpp.Server(params)  # noqa: F841 - serves while this process lives
    while os.getppid() == parent:
        time.sleep(1.0)


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
