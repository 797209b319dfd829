"""Playground runs are stored one strategy at a time and read back with their traces."""

import pytest

from core.playground import MemoryReadout
from core.playground_runs import (
    finish_playground_run,
    list_playground_runs,
    load_playground_run,
    open_playground_run,
    record_strategy,
)
from core.strategies.base import RetrievalResult, TraceEvent
from core.workspace import Workspace
from storage import runs

pytestmark = pytest.mark.pg  # a run kind of its own: also checked on PostgreSQL


@pytest.fixture
def version(db, hashing_embedder, tiny_tools):
    return Workspace(db, hashing_embedder).import_tools("tiny", tiny_tools).version.id


def _open(db, version, **kw):
    args = dict(query="convert 5 miles to km", gold=("miles_to_km",), k=2, seed=3,
                strategies={"query": {}, "memetic": {"population": 4}}, llm={"kind": "offline"},
                session_memory=False)
    return open_playground_run(db, version, **{**args, **kw})


def test_a_run_round_trips_with_its_trace_and_summary(db, version):
    run_id = _open(db, version)
    traced = RetrievalResult(("miles_to_km", "weather"), (0.9, 0.5),
                             (TraceEvent("description", {"id": "d1", "text": "convert miles", "generation": 0}),
                              TraceEvent("llm_call", {"role": "mutate", "call_id": 7, "ok": False, "error": "429",
                                                      "output": None})), 0.25)
    record_strategy(db, run_id, "query", RetrievalResult(("weather", "miles_to_km"), (0.7, 0.6), (), 0.01))
    record_strategy(db, run_id, "memetic", traced, MemoryReadout(2, 5, ("convert miles",), 3))
    finish_playground_run(db, run_id)

    run = load_playground_run(db, run_id)
    assert (run.query, run.gold, run.k, run.seed, run.status) == ("convert 5 miles to km", ("miles_to_km",), 2, 3,
                                                                   "done")
    assert run.strategies == ("query", "memetic") and list(run.results) == ["query", "memetic"]
    assert run.results["memetic"] == traced  # trace events, scores and seconds as they were
    assert run.memory == {"memetic": MemoryReadout(2, 5, ("convert miles",), 3)}
    metrics = runs.get_run(db, run_id).metrics
    # gold at rank 1 for memetic (recall 1, nDCG 1), at rank 2 for query (nDCG 1/log2(3))
    assert metrics["memetic"]["recall"] == 1.0 and metrics["memetic"]["ndcg"] == pytest.approx(1.0)
    assert metrics["query"]["ndcg"] == pytest.approx(1 / 1.5849625, rel=1e-6)
    assert metrics["memetic"]["llm_calls"] == 1 and metrics["memetic"]["llm_errors"] == 1


def test_a_stopped_run_keeps_the_strategies_that_answered(db, version):
    run_id = _open(db, version)
    record_strategy(db, run_id, "query", RetrievalResult(("weather",), (0.7,)))
    finish_playground_run(db, run_id, status="stopped")
    run = load_playground_run(db, run_id)
    assert run.status == "stopped" and list(run.results) == ["query"] and run.strategies == ("query", "memetic")


def test_every_press_is_its_own_run_listed_newest_first_per_version(db, version, hashing_embedder, tiny_tools):
    first, second = _open(db, version), _open(db, version)  # the same settings twice: two runs
    other = Workspace(db, hashing_embedder).import_tools("other", tiny_tools[:2]).version.id
    _open(db, other)
    assert first != second
    assert [r.id for r in list_playground_runs(db, version)] == [second, first]
    # a query without gold has no recall to report
    nogold = _open(db, version, gold=())
    record_strategy(db, nogold, "query", RetrievalResult(("weather",), (0.7,)))
    finish_playground_run(db, nogold)
    assert runs.get_run(db, nogold).metrics["query"]["recall"] is None


def test_bad_input_names_the_field(db, version):
    with pytest.raises(ValueError, match="'query' is empty"):
        _open(db, version, query="  ")
    with pytest.raises(ValueError, match="'strategies' is empty"):
        _open(db, version, strategies={})
    eval_run = runs.open_run(db, "eval", {"x": 1}, version_id=version).id
    with pytest.raises(ValueError, match=f"no playground run with id {eval_run}"):
        load_playground_run(db, eval_run)
