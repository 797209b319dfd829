"""Eight browser sessions at once on one app server and one SQLite store (short CI version of
bench/bench_concurrency.py): no "database is locked", no tracebacks, no lost writes."""

import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import _need_browser

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def test_eight_sessions_share_the_store(tmp_path):
    _need_browser()
    sys.path.insert(0, str(REPO / "bench"))
    from bench_concurrency import run_bench

    out = run_bench(sessions=8, duration=25.0, db_url=f"sqlite:///{tmp_path}/atlas.db")
    summary = {k: v for k, v in out["latency"].items()}
    assert out["errors"] == [], (out["errors"], summary)
    assert out["log_problems"] == [], out["log_problems"]
    assert out["writes_checked"] >= 4, out  # most sessions got at least one trials run in
    assert out["lost_writes"] == [], out["lost_writes"]
    assert summary["catalog search"]["n"] >= 8
