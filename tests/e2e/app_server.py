"""Start and stop the real app on a free loopback port: shared by the browser tests and the benches."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Debian's Chromium, headless, with nothing that reaches for the network on its own (closed here).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]

# `python -m streamlit`, plus a faulthandler on SIGUSR1: a browser test that times out asks the server for
# every thread's stack (app_report), so a CI log says where the app was stuck, not only what was missing.
_BOOT = ("import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True); "
         "from streamlit.web.cli import main; main(prog_name='streamlit')")


RUNNING: dict[int, tuple[subprocess.Popen, Path]] = {}  # servers started and not stopped yet, by pid


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(db_url: str, log_path: Path, *, timeout: float = 90.0,
              options: tuple[str, ...] = (), env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on ``db_url`` (plus Streamlit command-line ``options``, which override
    .streamlit/config.toml, and ``env``, added to this process's environment); returns the process and its
    URL once it answers its health check. Raises RuntimeError (with the log's tail) when it exits early or
    never becomes healthy."""
    port = free_port()
    log = open(log_path, "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        [sys.executable, "-c", _BOOT, "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         *options],
        cwd=REPO, env={**os.environ, "TOOLATLAS_DB_URL": db_url, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    RUNNING[proc.pid] = (proc, Path(log_path))
    wait_healthy(proc, url, log_path, timeout=timeout)
    return proc, url


def wait_healthy(proc: subprocess.Popen, url: str, log_path: Path, *, timeout: float = 90.0) -> None:
    """Return once the server ``proc`` started at ``url`` answers its health check; raise RuntimeError (with
    the log's tail) when it exits first, or kill it and raise when ``timeout`` seconds pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{Path(log_path).read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:  # noqa: S310 - loopback only
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s")


def stop_app(proc: subprocess.Popen) -> None:
    RUNNING.pop(proc.pid, None)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def app_report(proc: subprocess.Popen, log_path: Path, *, tail: int = 12_000) -> str:
    """The server log's tail after asking the server to write every thread's stack into it."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(1.0)
    try:
        text = Path(log_path).read_text(errors="replace")
    except OSError as err:
        return f"(no server log: {err})"
    return text[-tail:]
