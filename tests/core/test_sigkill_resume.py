"""A run killed with SIGKILL mid-way resumes (same run id) and ends with exactly one result per item.

The command is the real CLI (``core.cli.main``) in a child process, against a SQLite file and the fake chat
server (slowed down, and failing some calls with 429s and garbage). Only the embedding model is swapped for the
hashing embedder of the test suite, so the child starts in a second instead of loading a model.
"""

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

from tests.core.llm.fake_openai import FakeOpenAI, role_answer

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")

# The child: the toolatlas CLI with the hashing embedder instead of the sentence-transformers model.
DRIVER = """
import sys
import core.cli as cli
import core.cli.common as common
from core.workspace import Workspace
from storage.db import make_engine
from tests.conftest import HashingEmbedder

common.build_workspace = lambda settings: Workspace(make_engine(settings.db_url), HashingEmbedder())
raise SystemExit(cli.main(sys.argv[1:]))
"""

TOPICS = [("weather", "Current weather conditions for a city"), ("forecast", "Seven day weather forecast"),
          ("currency", "Convert money between currencies"), ("stock", "Latest stock price for a ticker"),
          ("email", "Send an email message to a recipient"), ("translate", "Translate text into a language"),
          ("calendar", "Create a calendar event at a date"), ("timezone", "Current time in a time zone"),
          ("news", "Latest news headlines on a topic"), ("flight", "Search flights between two airports")]
N_QUERIES = 10


def _write_inputs(tmp: Path) -> tuple[Path, Path]:
    tools = [{"type": "function", "function": {
        "name": f"{name}_tool", "description": desc,
        "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "input"}},
                       "required": ["text"]}}} for name, desc in TOPICS]
    (tmp / "tools.json").write_text(json.dumps(tools))
    lines = [json.dumps({"id": f"q{i:02d}", "query": f"please help: {TOPICS[i][1].lower()} for me",
                         "gold": [f"{TOPICS[i][0]}_tool"], "split": "test"}) for i in range(N_QUERIES)]
    (tmp / "queries.jsonl").write_text("\n".join(lines) + "\n")
    return tmp / "tools.json", tmp / "queries.jsonl"


@pytest.fixture
def slow_server():
    server = FakeOpenAI().start()
    server.respond = role_answer
    server.delay = 0.04
    server.faults(rate=0.3, seed=11, kinds=("429", "garbage"))  # instant faults: the CLI's timeout is 60 s
    yield server
    server.close()


def _start(args: list[str], tmp: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": "test-key"}
    return subprocess.Popen([sys.executable, "-c", DRIVER, *args], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=open(tmp / "stderr.log", "ab"))  # noqa: SIM115 - closed with the process


def _count(db_file: Path, sql: str) -> int:
    if not db_file.exists():
        return 0
    engine = create_engine(f"sqlite:///{db_file}")
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(sql)).scalar() or 0)
    except Exception:  # noqa: BLE001 - tables not created yet, or the writer holds the lock
        return 0
    finally:
        engine.dispose()


def _kill_after(proc: subprocess.Popen, db_file: Path, sql: str, at_least: int, deadline: float = 90.0) -> int:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        seen = _count(db_file, sql)
        if seen >= at_least:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            return seen
        if proc.poll() is not None:
            pytest.fail(f"the run ended (rc={proc.returncode}) before it could be killed: it is too fast")
        time.sleep(0.02)
    proc.kill()
    pytest.fail("the run stored too few items to be killed mid-way")


def _finish(proc: subprocess.Popen, tmp: Path) -> dict:
    out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, (tmp / "stderr.log").read_text()[-3000:]
    return json.loads(out.decode().strip().splitlines()[-1])


def _rows(db_file: Path, sql: str) -> list[tuple]:
    engine = create_engine(f"sqlite:///{db_file}")
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql)).all()]
    finally:
        engine.dispose()


def test_killed_eval_resumes_with_one_item_per_query(tmp_path, slow_server):
    tools, queries = _write_inputs(tmp_path)
    db_file = tmp_path / "atlas.db"
    args = ["eval", "--tools", str(tools), "--queries", str(queries), "--strategy", "memetic",
            "--param", "population=3", "--param", "generations=2", "-k", "3", "--llm", "openai",
            "--base-url", slow_server.url, "--llm-model", "tiny-model", "--db", f"sqlite:///{db_file}", "--json"]
    items_sql = "SELECT COUNT(*) FROM run_item"
    killed_at = _kill_after(_start(args, tmp_path), db_file, items_sql, 3)
    assert 3 <= killed_at < N_QUERIES
    assert _rows(db_file, "SELECT status FROM run WHERE kind = 'eval'") == [("running",)]
    out = _finish(_start(args, tmp_path), tmp_path)
    runs = _rows(db_file, "SELECT id, status FROM run WHERE kind = 'eval'")
    assert runs == [(out["run_id"], "done")]  # resumed: the same run, no second one
    assert out["resumed_items"] >= killed_at and out["n_queries"] == N_QUERIES
    keys = [k for (k,) in _rows(db_file, f"SELECT item_key FROM run_item WHERE run_id = {out['run_id']}")]
    assert sorted(keys) == [f"q{i:02d}" for i in range(N_QUERIES)]  # one per query: none missing, no duplicate
    calls, errors = _rows(db_file, "SELECT COUNT(*), COUNT(error) FROM llm_call")[0]
    assert out["llm_calls"] == calls and out["llm_errors"] == errors > 0
    print(f"\neval: killed after {killed_at} items; resumed run {out['run_id']} with {out['resumed_items']} done; "
          f"{len(keys)} items; {calls} calls, {errors} failed")


def test_killed_trials_resume_with_one_report_per_query(tmp_path, slow_server):
    tools, queries = _write_inputs(tmp_path)
    db_file = tmp_path / "atlas.db"
    common = ["--db", f"sqlite:///{db_file}"]
    subprocess.run([sys.executable, "-c", DRIVER, "import", str(tools), "--name", "sk", "--queries", str(queries),
                    "--json", *common], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True,
                   capture_output=True, timeout=120)
    args = ["trials", "sk", "-k", "4", "--today", "2026-01-05", "--llm", "openai", "--base-url", slow_server.url,
            "--llm-model", "tiny-model", "--json", *common]
    reports_sql = "SELECT COUNT(*) FROM run_item WHERE item_key NOT LIKE '%#%' AND item_key NOT LIKE '%@%'"
    killed_at = _kill_after(_start(args, tmp_path), db_file, reports_sql, 2)
    assert 2 <= killed_at < N_QUERIES
    out = _finish(_start(args, tmp_path), tmp_path)
    assert _rows(db_file, "SELECT id, status FROM run WHERE kind = 'trials'") == [(out["run_id"], "done")]
    assert out["resumed"] >= killed_at and out["queries"] == N_QUERIES
    keys = [k for (k,) in _rows(db_file, f"SELECT item_key FROM run_item WHERE run_id = {out['run_id']}")]
    assert len(keys) == len(set(keys))
    qids = [f"q{i:02d}" for i in range(N_QUERIES)]
    assert sorted(k for k in keys if "#" not in k and "@" not in k) == qids  # one report per query
    assert sorted(k for k in keys if k.endswith("@ranking")) == [f"{q}@ranking" for q in qids]
    per_query = {q: sum(k.startswith(f"{q}#") for k in keys) for q in qids}
    assert set(per_query.values()) == {4}, per_query  # one trial per candidate, none tried twice
    assert out["llm_errors"] > 0
    print(f"\ntrials: killed after {killed_at} reports; resumed run {out['run_id']} with {out['resumed']} done; "
          f"{len(keys)} items; {out['llm_calls']} calls, {out['llm_errors']} failed")


def test_killed_evolve_resumes_with_one_result_per_step_and_method(tmp_path):
    from tests.core.evolution.test_service import answer_like_a_model

    server = FakeOpenAI().start()
    server.respond = answer_like_a_model
    server.delay = 0.03
    server.faults(rate=0.3, seed=5, kinds=("429", "garbage"))
    try:
        tools, queries = _write_inputs(tmp_path)
        db_file = tmp_path / "atlas.db"
        common = ["--db", f"sqlite:///{db_file}"]
        subprocess.run([sys.executable, "-c", DRIVER, "import", str(tools), "--name", "sk", "--queries",
                        str(queries), "--json", *common], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                       check=True, capture_output=True, timeout=120)
        args = ["evolve", "sk", "--pattern", "mixture", "--steps", "3", "--seeds", "2", "--rate", "0.2", "-k", "3",
                "--llm", "openai", "--base-url", server.url, "--llm-model", "tiny-model", "--llm-retries", "1",
                "--json", *common]
        results_sql = "SELECT COUNT(*) FROM run_item WHERE item_key NOT LIKE '%sequence'"  # no ':' (bind marker)
        killed_at = _kill_after(_start(args, tmp_path), db_file, results_sql, 3)
        assert _rows(db_file, "SELECT status FROM run WHERE kind = 'evolution'") == [("running",)]
        out = _finish(_start(args, tmp_path), tmp_path)
    finally:
        server.close()
    assert _rows(db_file, "SELECT id, status FROM run WHERE kind = 'evolution'") == [(out["run_id"], "done")]
    assert out["resumed"] >= killed_at
    keys = [k for (k,) in _rows(db_file, f"SELECT item_key FROM run_item WHERE run_id = {out['run_id']}")]
    methods = ("original", "contda", "contda_no_adjust", "contda_no_discovery")
    expected = {f"s{s}:sequence" for s in (0, 1)} | {f"s{s}:t{t}:{m}" for s in (0, 1) for t in range(4)
                                                     for m in methods}
    assert len(keys) == len(set(keys)) and set(keys) == expected  # one result per (seed, step, method)
    calls, errors = _rows(db_file, "SELECT COUNT(*), COUNT(error) FROM llm_call")[0]
    assert calls > 0 and errors > 0
    print(f"\nevolve: killed after {killed_at} results; resumed run {out['run_id']} with {out['resumed']} done; "
          f"{len(keys)} items; {calls} calls, {errors} failed")


def test_cli_transport_options_reach_the_backend(tmp_path):
    """--llm-timeout and --llm-retries: a model slower than the timeout fails every call as a timeout, each
    tried once plus one retry, and the run still completes with the failures in the ledger."""
    server = FakeOpenAI().start()
    server.respond = role_answer
    server.delay = 1.5
    try:
        tools, queries = _write_inputs(tmp_path)
        db_file = tmp_path / "atlas.db"
        args = ["eval", "--tools", str(tools), "--queries", str(queries), "--strategy", "single_pass", "--limit", "2",
                "-k", "3", "--llm", "openai", "--base-url", server.url, "--llm-model", "tiny-model",
                "--llm-timeout", "0.3", "--llm-retries", "1", "--db", f"sqlite:///{db_file}", "--json"]
        out = _finish(_start(args, tmp_path), tmp_path)
    finally:
        server.close()
    assert out["n_queries"] == 2
    errors = _rows(db_file, "SELECT error FROM llm_call")
    assert errors and all("within 0.3 s" in (e or "") for (e,) in errors), errors
    posts = [m for m in server.seen if "body" in m]
    assert len(posts) == 2 * len(errors)  # one retry per failed call
