"""scripts/postgres.sh hands its URL to scripts/test.sh through a command substitution, so its stdout
must hold the URL and nothing else, and must close once the script exits (a server started by it
must not keep the pipe open)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "postgres.sh"
URL = re.compile(r"^postgresql\+psycopg://[^@\s]+@127\.0\.0\.1:\d+/toolatlas_test$")


def _can_run() -> bool:
    reachable = shutil.which("psql") is not None
    root_with_apt = os.geteuid() == 0 and shutil.which("apt-get") is not None
    return reachable or root_with_apt


@pytest.mark.slow
def test_stdout_is_one_url_and_closes_when_the_script_exits():
    if not _can_run():
        pytest.skip("no psql and not root with apt: the script would only print its skip message")
    # A pipe, as in `$(bash scripts/postgres.sh)`: communicate() returns only when every writer closed it.
    proc = subprocess.Popen(["bash", str(SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("stdout of scripts/postgres.sh stayed open: a child process inherited it")
    assert proc.returncode == 0, err
    lines = out.splitlines()
    if not lines:
        pytest.skip(f"no PostgreSQL available here: {err.strip()}")
    assert len(lines) == 1 and URL.match(lines[0]), f"stdout must be the URL alone, got {out!r}"


def test_a_notice_on_stdout_cannot_reach_the_caller(tmp_path):
    """Run the script's own redirection preamble around a command that prints to stdout, the way
    pg_ctlcluster printed "Removed stale pid file." and broke CI."""
    text = SCRIPT.read_text()
    assert "exec 3>&1 1>&2" in text
    probe = tmp_path / "probe.sh"
    probe.write_text('set -euo pipefail\nexec 3>&1 1>&2\necho "Removed stale pid file."\n'
                     'echo "postgresql+psycopg://u:p@127.0.0.1:5432/toolatlas_test" >&3\n')
    done = subprocess.run(["bash", str(probe)], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["postgresql+psycopg://u:p@127.0.0.1:5432/toolatlas_test"]
    assert "stale pid" in done.stderr
