"""``toolatlas grid``: bad input stores nothing; a shard killed mid-cell resumes that cell's run; two shards run
as two processes at once against one store (SQLite, and PostgreSQL with TOOLATLAS_TEST_DB_URL) store exactly
the grid's runs, each once.

The commands run as the real CLI in child processes, with the test suite's hashing embedder instead of the
sentence-transformers model (tests.core.test_sigkill_resume.DRIVER), so each starts in a second."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from core.cli import main
from tests.core.llm.fake_openai import FakeOpenAI, role_answer
from tests.core.test_sigkill_resume import DRIVER

REPO = Path(__file__).resolve().parents[3]

SWEEP = """
name: sweep
catalog: demo@v5
query_set: demo
limit: 4
k: 3
strategies:
  - query
  - name: query
    params: {mode: [dense, bm25, hybrid], alpha: [0.3, 0.7]}
"""


def _write(tmp: Path, text_: str, name: str = "grid.yaml") -> Path:
    path = tmp / name
    path.write_text(text_)
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": "test-key"}


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", DRIVER, *args], cwd=REPO, env=_env(), stdout=subprocess.PIPE,
                            stderr=open(log, "ab"))  # noqa: SIM115 - closed with the process


def _finish(proc: subprocess.Popen, log: Path) -> dict:
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, log.read_text()[-3000:]
    return json.loads(out.decode().strip().splitlines()[-1])


def _cli(args: list[str], log: Path) -> dict:
    return _finish(_start(args, log), log)


def _rows(url: str, sql: str) -> list[tuple]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql)).all()]
    except Exception:  # noqa: BLE001 - tables not created yet, or the writer holds the lock
        return []
    finally:
        engine.dispose()


def _stored(url: str) -> dict:
    return {
        "runs": _rows(url, "SELECT id, status, config_hash, n_items FROM run WHERE kind = 'eval' ORDER BY id"),
        "grid": _rows(url, "SELECT grid, run_id FROM grid_run ORDER BY run_id"),
        "items": _rows(url, "SELECT run_id, item_key FROM run_item ORDER BY run_id, item_key"),
    }


@pytest.mark.parametrize("text_, args, message", [
    ("name: x\ncatalog: demo\nstrategies: [nope]\n", [], "unknown strategy 'nope'; valid strategies: query"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nllm: [offline]\nspeed: 2\n", [], "unknown key 'speed'"),
    (SWEEP, ["--shard", "2/2"], "0-based"),
    (SWEEP, ["--shard", "1"], "--shard is I/N"),
])
def test_bad_input_is_exit_2_and_stores_nothing(tmp_path, capsys, text_, args, message):
    db = tmp_path / "grid.db"
    assert main(["grid", str(_write(tmp_path, text_)), "--db", f"sqlite:///{db}", *args]) == 2
    assert message in capsys.readouterr().err
    assert not db.exists()  # checked before the store is even opened


def test_an_unknown_query_set_is_exit_2_and_runs_nothing(tmp_path, capsys, hashing_embedder, monkeypatch):
    import core.cli.common as common
    from core.workspace import Workspace
    from storage.db import make_engine

    monkeypatch.setattr(common, "build_workspace", lambda s: Workspace(make_engine(s.db_url), hashing_embedder))
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    grid = _write(tmp_path, SWEEP.replace("query_set: demo", "query_set: [demo, nope]"))
    assert main(["grid", str(grid), "--db", url]) == 2
    assert "catalog 'demo' has no query set 'nope'" in capsys.readouterr().err
    assert _stored(url)["runs"] == []


def test_plan_lists_every_cell_with_its_shard_and_runs_nothing(tmp_path, capsys, hashing_embedder, monkeypatch):
    import core.cli.common as common
    from core.workspace import Workspace
    from storage.db import make_engine

    monkeypatch.setattr(common, "build_workspace", lambda s: Workspace(make_engine(s.db_url), hashing_embedder))
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    assert main(["grid", str(_write(tmp_path, SWEEP)), "--db", url, "--plan", "--shard", "1/3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["cells"], out["shard"], out["shard_cells"]) == (7, "1/3", 2)
    assert [(c["cell"], c["shard"], c["status"]) for c in out["plan"]] == [(i, i % 3, "todo") for i in range(7)]
    assert out["plan"][3]["label"] == 'query (mode="bm25", alpha=0.3) k=3 on demo'
    assert _stored(url)["runs"] == []


@pytest.mark.pg
def test_two_shards_at_once_store_each_cell_once(tmp_path, test_db_url):
    grid = _write(tmp_path, SWEEP)
    log = tmp_path / "stderr.log"
    common = ["grid", str(grid), "--db", test_db_url, "--json"]
    plan = _cli([*common, "--plan"], log)  # loads the demo catalog into the store once, before the shards
    assert plan["cells"] == 7 and {c["status"] for c in plan["plan"]} == {"todo"}

    shards = [_start([*common, "--shard", f"{i}/2"], log) for i in range(2)]  # at the same time
    outs = [_finish(p, log) for p in shards]
    cells = [[r["cell"] for r in out["runs"]] for out in outs]
    assert cells == [[0, 2, 4, 6], [1, 3, 5]]  # disjoint slices, together the grid
    assert all(r["status"] == "ran" for out in outs for r in out["runs"])
    run_ids = sorted(r["run_id"] for out in outs for r in out["runs"])

    stored = _stored(test_db_url)
    assert [r[0] for r in stored["runs"]] == run_ids  # exactly the grid's runs
    assert {r[1] for r in stored["runs"]} == {"done"} and len({r[2] for r in stored["runs"]}) == 7
    assert stored["grid"] == [("sweep", rid) for rid in run_ids]
    assert [r[3] for r in stored["runs"]] == [4] * 7
    assert len(stored["items"]) == len(set(stored["items"])) == 28  # each query of each cell once

    again = [_cli([*common, "--shard", f"{i}/2"], log) for i in range(2)]  # a rerun: nothing left to do
    assert [(a["ran"], a["resumed"], a["skipped"]) for a in again] == [(0, 0, 4), (0, 0, 3)]
    assert _stored(test_db_url) == stored
    replan = _cli([*common, "--plan"], log)
    assert [(c["status"], c["run_id"]) for c in replan["plan"]] == [
        ("done", rid) for rid in (r["run_id"] for r in sorted((r for o in outs for r in o["runs"]),
                                                              key=lambda r: r["cell"]))]


@pytest.fixture
def slow_model():
    server = FakeOpenAI().start()
    server.respond = role_answer
    server.delay = 0.15  # every call waits: a cell of LLM calls takes seconds, long enough to be killed in
    yield server
    server.close()


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_shard_killed_mid_cell_resumes_that_run(tmp_path, slow_model):
    db_file = tmp_path / "grid.db"
    url = f"sqlite:///{db_file}"
    grid = _write(tmp_path, f"""
name: slow
catalog: demo@v5
query_set: demo
limit: 6
k: 3
strategies: [query, single_pass]
llm: [{{kind: openai, base_url: "{slow_model.url}", model: tiny-model}}]
""")
    log = tmp_path / "stderr.log"
    args = ["grid", str(grid), "--db", url, "--shard", "0/1", "--json"]
    proc = _start(args, log)
    slow_items = ("SELECT COUNT(*) FROM run_item JOIN run ON run.id = run_item.run_id "
                  "WHERE run.strategy = 'single_pass'")
    deadline = time.monotonic() + 240
    while not (_rows(url, slow_items) or [(0,)])[0][0]:
        assert proc.poll() is None, f"the grid ended before it could be killed: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, "the slow cell never stored a query"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)

    before = _stored(url)
    (fast, fast_status, _, _), (slow, slow_status, _, _) = before["runs"]
    assert (fast_status, slow_status) == ("done", "running")  # a real partial run in the store
    kept = [key for rid, key in before["items"] if rid == slow]
    assert 1 <= len(kept) < 6
    assert before["grid"] == [("slow", fast)]  # a cell joins its grid once it is finished
    plan = _cli(["grid", str(grid), "--db", url, "--plan", "--json"], log)
    assert [(c["status"], c["run_id"]) for c in plan["plan"]] == [("done", fast), ("partial", slow)]

    out = _cli(args, log)
    assert [(r["cell"], r["status"], r["run_id"]) for r in out["runs"]] == [(0, "skipped", fast),
                                                                             (1, "resumed", slow)]
    after = _stored(url)
    assert [r[:2] for r in after["runs"]] == [(fast, "done"), (slow, "done")]  # no second run
    keys = [key for rid, key in after["items"] if rid == slow]
    assert len(keys) == len(set(keys)) == 6 and set(kept) <= set(keys)  # the kept ones not asked again
    assert after["grid"] == [("slow", fast), ("slow", slow)]
