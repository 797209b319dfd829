"""Trials over a stored query set: item-by-item storage, resume after a stop, metrics."""

import pytest

from core.execution.setup import ExecutorPlan, build_router
from core.models import Query, Tool
from core.trials.pipeline import TrialConfig
from core.trials.service import load_trial_run, rerun_in_run, run_trial_set
from core.workspace import Workspace
from storage import runs

pytestmark = [pytest.mark.slow, pytest.mark.pg]

SOURCE = '''
def to_km(value, from_unit, to_unit):
    return {"km": round(value * 1.609344, 3)}

def nothing(value, from_unit, to_unit):
    return []
'''
SCHEMA = {"type": "object", "properties": {"value": {"type": "number"}, "from_unit": {"type": "string"},
                                           "to_unit": {"type": "string"}}, "required": ["value", "from_unit", "to_unit"]}


def _catalog():
    return [
        Tool("to_km", "to_km", "convert miles to kilometres", SCHEMA, extra={"python": {"source": SOURCE,
                                                                                       "function": "to_km"}}),
        Tool("nothing", "nothing", "convert miles to kilometres quickly", SCHEMA,
             extra={"python": {"source": SOURCE, "function": "nothing"}}),
        Tool("weather", "weather", "weather forecast for a city", {"type": "object", "properties": {
            "city": {"type": "string"}}, "required": ["city"]}),
    ]


def test_trial_set_is_stored_item_by_item_and_resumes(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    queries = [Query("q1", "convert 26.2 miles to kilometres", ("to_km",)),
               Query("q2", "convert 3 miles to kilometres quickly", ("to_km",))]
    report = ws.import_tools("units", _catalog(), queries=queries)
    version = report.version.id
    router = build_router(ExecutorPlan(sandbox=True))
    calls = {"n": 0}

    def stop_after_first() -> bool:
        calls["n"] += 1
        return calls["n"] > 1

    try:
        first = run_trial_set(ws, version, queries, router, cancelled=stop_after_first)
        assert len(first.reports) == 1
        info, _ = load_trial_run(ws, first.run_id)
        assert info.status == "stopped"
        items = runs.load_items(db, first.run_id)
        assert {"q1", "q1@ranking", "q1#to_km", "q1#nothing", "q1#weather"} <= set(items)
        second = run_trial_set(ws, version, queries, router)
    finally:
        router.close()
    assert second.run_id == first.run_id and second.resumed == 1 and len(second.reports) == 2
    keys = list(runs.load_items(db, first.run_id))
    assert len(keys) == len(set(keys)) == 2 * 5
    q1 = second.reports[0]
    assert q1.after[0] == "to_km" and q1.trial("nothing").outcome == "SEMANTIC_MISMATCH"
    assert q1.trial("weather").outcome == "PLANNING_FAILED"
    m = second.metrics
    assert m["after"]["pass@5"] == 1.0 and m["after"]["recall@5"] == 1.0
    assert m["llm_calls"] > 0 and m["llm_errors"] == 0
    # re-running one candidate keeps the original and stores the new report beside it
    fresh = rerun_in_run(ws, first.run_id, "q1", "to_km", None)
    assert fresh.trial("to_km").outcome == "NOT_EXECUTED"
    assert "q1!rerun-1" in runs.load_items(db, first.run_id)
    with pytest.raises(ValueError, match="no trials run"):
        load_trial_run(ws, first.run_id + 1)


def test_unknown_strategy_is_refused_before_anything_is_stored(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    version = ws.import_tools("units", _catalog()).version.id
    with pytest.raises(ValueError, match="strateg"):
        run_trial_set(ws, version, [Query("q", "x")], None, strategy="nope")
    assert runs.list_runs(db, kind="trials") == ()


def test_the_same_trials_again_are_shown_from_the_store_unless_asked_anew(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    queries = [Query("q1", "convert 26.2 miles to kilometres", ("to_km",))]
    version = ws.import_tools("units", _catalog(), queries=queries).version.id
    first = run_trial_set(ws, version, queries, None)
    again = run_trial_set(ws, version, queries, None)
    assert (again.run_id, again.reused, first.reused) == (first.run_id, True, False)
    assert again.reports == first.reports and again.to_json()["reused"] is True
    anew = run_trial_set(ws, version, queries, None, resume=False)
    assert anew.run_id != first.run_id and not anew.reused
    other_k = run_trial_set(ws, version, queries, None, config=TrialConfig(k=2))
    assert other_k.run_id not in (first.run_id, anew.run_id)
    assert len([r for r in runs.list_runs(db) if r.kind == "trials"]) == 3
