"""A local GGUF model behind an OpenAI-compatible endpoint on 127.0.0.1, served by ``xllamacpp``.

The server runs in a child process, so a model that fails to load (or crashes) never takes the
app down, and ``stop()`` always ends it. Install the optional extra: ``pip install xllamacpp``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def xllamacpp_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("xllamacpp") is not None


class LocalModelServer:
    def __init__(self, gguf_path: str | Path, *, port: int | None = None, n_ctx: int = 4096, threads: int = 2,
                 start_timeout: float = 120.0) -> None:
        self.gguf_path = Path(gguf_path)
        self.port = port
        self.n_ctx = int(n_ctx)
        self.threads = int(threads)
        self.start_timeout = float(start_timeout)
        self._proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> str:
        if not self.gguf_path.is_file():
            raise ValueError(f"GGUF model file not found: {self.gguf_path}")
        if not xllamacpp_available():
            raise ValueError("local models need the xllamacpp package: pip install xllamacpp")
        self.port = self.port or _free_port()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "core.llm.local_server", str(self.gguf_path), str(self.port), str(self.n_ctx),
             str(self.threads)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                lines = (self._proc.stderr.read() or b"").decode("utf-8", "replace").strip().splitlines()
                self._proc = None
                reason = lines[-1] if lines else "no message"
                raise ValueError(f"the local model server exited while loading {self.gguf_path.name}: {reason}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as resp:  # noqa: S310
                    if resp.status == 200:
                        return self.base_url
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise ValueError(f"the local model server did not answer within {self.start_timeout:g} s")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
            self._proc = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _serve(path: str, port: int, n_ctx: int, threads: int) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.n_parallel = 2
    server = xllamacpp.Server(params)  # noqa: F841 - serves while this process lives
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
