"""The playground's run loop as a service: each strategy stored as it answers, stopped runs keep what answered
and resume, the session memory carries over between runs, and the whole runs as a background job."""

import threading

import pytest

from core import playground_service as service
from core.concurrency import StageCancelled
from core.context import LLMConfig
from core.jobs import CANCELLED, DONE, FAILED
from core.playground_runs import open_playground_run
from core.playground_service import (
    KNOBS,
    SessionMemory,
    llm_calls,
    playground_run,
    playground_runs,
    run_playground,
    start_playground,
)
from core.strategies.registry import accepted_params, make_strategy, strategy_class, strategy_names
from core.workspace import Workspace

OFFLINE = LLMConfig()
SMALL_MEMETIC = {"population": 4, "generations": 2}


@pytest.fixture
def ws(db, hashing_embedder, tiny_tools):
    workspace = Workspace(db, hashing_embedder)
    workspace.import_tools("tiny", tiny_tools)
    return workspace


@pytest.fixture
def vid(ws):
    from storage.catalogs import get_version

    return get_version(ws.db, "tiny").id


def _open(ws, vid, strategies, **kw):
    args = dict(query="weather forecast for Paris", gold=("weather_forecast",), k=3, seed=1, llm=OFFLINE.identity(),
                session_memory=False)
    return open_playground_run(ws.db, vid, strategies=strategies, **{**args, **kw})


def test_each_strategy_is_stored_with_the_answer_it_gives_on_its_own(ws, vid):
    run_id = _open(ws, vid, {"query": {}, "scattershot": {"fan_out": 2}})
    said = []
    run = run_playground(ws, run_id, OFFLINE, progress=lambda share, label: said.append((share, label)))
    assert run.status == "done" and list(run.results) == ["query", "scattershot"]
    assert run.params == {"query": {}, "scattershot": {"fan_out": 2}}
    engine = ws.search_engine(vid)
    alone = make_strategy("query", engine).retrieve("weather forecast for Paris", 3)
    assert run.results["query"].keys == alone.keys
    assert run.memory == {}  # no session memory: no readout stored
    # told before each strategy, as a share of the strategies done
    assert said[1:] == [(0.0, "Running query (1 of 2)…"), (0.5, "Running scattershot (2 of 2)…")]
    assert playground_run(ws, run_id) == run


def test_a_cancelled_run_keeps_what_answered_and_resumes_without_running_it_again(ws, vid):
    run_id = _open(ws, vid, {"query": {}, "memetic": SMALL_MEMETIC})
    with pytest.raises(StageCancelled):  # Cancel pressed once the first answer is stored
        run_playground(ws, run_id, OFFLINE, cancelled=lambda: bool(playground_run(ws, run_id).results))
    stopped = playground_run(ws, run_id)
    assert stopped.status == "stopped" and list(stopped.results) == ["query"]

    ran = []
    run = run_playground(ws, run_id, OFFLINE, progress=lambda share, label: ran.append(label))
    assert run.status == "done" and list(run.results) == ["query", "memetic"]
    assert run.results["query"] == stopped.results["query"]  # read back, not run again
    assert [label for label in ran if label.startswith("Running")] == ["Running memetic (2 of 2)…"]


def test_a_failing_strategy_stops_the_run_keeping_the_ones_before_it(ws, vid):
    run_id = _open(ws, vid, {"query": {}, "scattershot": {"no_such_knob": 1}, "memetic": SMALL_MEMETIC})
    with pytest.raises(ValueError, match="no_such_knob"):
        run_playground(ws, run_id, OFFLINE)
    run = playground_run(ws, run_id)
    assert run.status == "stopped" and list(run.results) == ["query"]


def test_the_session_memory_carries_over_from_one_run_to_the_next(ws, vid):
    memory = SessionMemory()
    first = run_playground(ws, _open(ws, vid, {"memetic": SMALL_MEMETIC}), OFFLINE, memory=memory)
    after_first = first.memory["memetic"]
    assert after_first.entries_before == 0 and after_first.entries_after > 0
    assert memory.held(vid) == {"memetic": after_first.entries_after}
    second = run_playground(ws, _open(ws, vid, {"memetic": SMALL_MEMETIC}), OFFLINE, memory=memory)
    readout = second.memory["memetic"]
    assert readout.entries_before == after_first.entries_after
    assert readout.repeated  # the same query and seed write the same descriptions again: counted as repeats
    assert memory.held(vid + 1) == {}  # per version
    memory.clear()
    assert memory.held(vid) == {}


def test_a_run_started_as_a_job_ends_done_and_is_listed(ws, vid):
    memory = SessionMemory()
    job = start_playground(ws, vid, query="convert money to euros", gold=("convert_currency",), k=2, seed=0,
                           strategies={"query": {}}, llm=OFFLINE, memory=memory)
    run = job.result(timeout=60)
    assert job.state().status == DONE and job.key[:2] == ("playground", vid)
    assert run.status == "done" and run.query == "convert money to euros" and list(run.results) == ["query"]
    assert "query" in run.memory  # the memory was kept for this run
    assert [r.id for r in playground_runs(ws, vid)] == [run.run_id]


def test_a_cancelled_job_ends_cancelled_and_leaves_no_run_running(ws, vid):
    job = start_playground(ws, vid, query="weather", gold=(), k=2, seed=0,
                           strategies={"query": {}, "memetic": SMALL_MEMETIC}, llm=OFFLINE)
    job.cancel()
    assert job.wait(60)
    assert job.state().status == CANCELLED
    # cancelled before it started: nothing stored; after: a stopped run with what answered
    assert {r.status for r in playground_runs(ws, vid)} <= {"stopped"}


def test_a_job_cancelled_mid_run_ends_cancelled_with_what_answered(ws, vid, monkeypatch):
    jobs, known = [], threading.Event()
    real = service.record_strategy

    def record_then_cancel(*args, **kwargs):  # Cancel pressed while the first answer is being stored
        real(*args, **kwargs)
        assert known.wait(30)
        jobs[0].cancel()

    monkeypatch.setattr(service, "record_strategy", record_then_cancel)
    job = start_playground(ws, vid, query="weather", gold=(), k=2, seed=0,
                           strategies={"query": {}, "scattershot": {"fan_out": 2}}, llm=OFFLINE)
    jobs.append(job)
    known.set()
    assert job.wait(60) and job.state().status == CANCELLED
    run = playground_run(ws, playground_runs(ws, vid)[0].id)
    assert run.status == "stopped" and list(run.results) == ["query"]


def test_a_failing_job_reports_the_error_and_bad_input_raises_before_any_job(ws, vid):
    job = start_playground(ws, vid, query="weather", gold=(), k=2, seed=0, strategies={"query": {"bogus": 1}},
                           llm=OFFLINE)
    assert job.wait(60) and job.state().status == FAILED and "bogus" in job.state().error
    assert [r.status for r in playground_runs(ws, vid)] == ["stopped"]
    before = len(ws.jobs.states())
    with pytest.raises(ValueError, match="'query' is empty"):
        start_playground(ws, vid, query=" ", gold=(), k=2, seed=0, strategies={"query": {}}, llm=OFFLINE)
    with pytest.raises(ValueError, match="'strategies' is empty"):
        start_playground(ws, vid, query="weather", gold=(), k=2, seed=0, strategies={}, llm=OFFLINE)
    assert len(ws.jobs.states()) == before and len(playground_runs(ws, vid)) == 1


def test_llm_calls_are_read_back_by_id(ws, vid):
    run = run_playground(ws, _open(ws, vid, {"scattershot": {"fan_out": 2}}), OFFLINE)
    ids = [e.data["call_id"] for e in run.results["scattershot"].trace if e.kind == "llm_call"]
    assert ids
    calls = llm_calls(ws, [*ids, None])
    assert set(calls) == set(ids) and all(calls[i].id == i for i in ids)
    assert llm_calls(ws, [None]) == {}


def test_every_knob_is_a_parameter_of_its_strategy():
    assert set(KNOBS) <= set(strategy_names())
    for name, knobs in KNOBS.items():
        assert set(knobs) <= accepted_params(strategy_class(name)), name


def test_a_run_with_gold_stores_each_members_truth_beside_its_fitness(ws, vid):
    run = run_playground(ws, _open(ws, vid, {"memetic": SMALL_MEMETIC}), OFFLINE)
    fit = [e.data for e in run.results["memetic"].trace if e.kind == "fitness"]
    assert fit and all(f["ndcg"] in (0.0, 1.0) or 0 < f["ndcg"] < 1 for f in fit)
    assert all((f["recall"] == 1.0) == ("weather_forecast" in f["keys"][:3]) for f in fit)  # recall@k, k = 3
    no_gold = run_playground(ws, _open(ws, vid, {"memetic": SMALL_MEMETIC}, gold=()), OFFLINE)
    assert not any("ndcg" in e.data for e in no_gold.results["memetic"].trace if e.kind == "fitness")
