"""Start and stop the real app on a free loopback port: shared by the browser tests and the benches."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(db_url: str, log_path: Path, *, timeout: float = 90.0) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on ``db_url``; returns the process and its URL once it answers its health
    check. Raises RuntimeError (with the log's tail) when it exits early or never becomes healthy."""
    port = free_port()
    log = open(log_path, "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=REPO, env={**os.environ, "TOOLATLAS_DB_URL": db_url}, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{Path(log_path).read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:  # noqa: S310 - loopback only
                if resp.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s")


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
