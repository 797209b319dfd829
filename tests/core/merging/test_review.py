"""A merge run through the store (resume without judge calls) and its review: decisions replayed into the
reviewed catalog and φ."""

import numpy as np
import pytest

from core.merging.offline_judge import OfflineJudge
from core.merging.pipeline import MergeConfig, run_merge
from core.merging.review import apply_decisions, review_state
from core.merging.store import SqlMergeStore
from storage.catalogs import import_catalog
from storage.db import init_db
from storage.merges import list_decisions, open_merge_run, record_decision
from tests.core.merging.test_merging import CountingJudge, tool

pytestmark = pytest.mark.pg


@pytest.fixture
def merged(db):
    init_db(db)
    tools = [tool("gcd", "greatest common divisor", ["a", "b"], ["a", "b"]),
             tool("math_gcd", "gcd of integers", ["a", "b", "c"], ["a", "b"]),
             tool("gcd_v2", "gcd of two numbers", ["x", "y"], ["x", "y"]),
             tool("weather", "current weather", ["city"], ["city"])]
    v = np.array([[1, 0], [0.97, 0.24], [0.95, 0.31], [0, 1]], dtype=np.float32)
    version = import_catalog(db, "gcds", tools)
    run = open_merge_run(db, version.id, MergeConfig(threshold=0.9).as_dict(), "offline")
    result = run_merge(tools, v, OfflineJudge(), MergeConfig(threshold=0.9), store=SqlMergeStore(db, run.id))
    return db, run, tools, v, result


def test_store_round_trip_resumes_without_calls(merged):
    db, run, tools, v, result = merged
    judge = CountingJudge()
    again = run_merge(tools, v, judge, MergeConfig(threshold=0.9), store=SqlMergeStore(db, run.id))
    assert judge.pairs == 0 and again.phi == result.phi and again.clusters == result.clusters
    assert open_merge_run(db, run.version_id, MergeConfig(threshold=0.9).as_dict(), "offline").id == run.id  # resumes


def test_decisions_replay_into_the_reviewed_catalog(merged):
    db, run, tools, _v, result = merged
    cid = result.clusters[0].id
    assert set(result.clusters[0].members) == {"gcd", "math_gcd", "gcd_v2"}
    reviewed, phi = apply_decisions(result, list_decisions(db, run.id), tools)
    assert len(reviewed) == 2 and phi["gcd_v2"] == "gcd"  # pending clusters follow the result
    record_decision(db, run.id, cid, "move", {"key": "gcd_v2", "to_group": 1})
    record_decision(db, run.id, cid, "edit_doc", {"group": 0, "description": "GCD, reviewed."})
    record_decision(db, run.id, cid, "accept")
    decisions = list_decisions(db, run.id)
    assert [d.action for d in decisions] == ["move", "edit_doc", "accept"]
    assert all(d.created_at is not None for d in decisions)
    state = review_state(result, decisions)[cid]
    assert state.status == "accepted" and state.groups == (("gcd", "math_gcd"), ("gcd_v2",))
    reviewed, phi = apply_decisions(result, decisions, tools)
    assert [t.key for t in reviewed] == ["gcd", "gcd_v2", "weather"] and phi["math_gcd"] == "gcd"
    assert reviewed[0].description == "GCD, reviewed." and phi["gcd_v2"] == "gcd_v2"
    record_decision(db, run.id, cid, "reject")
    reviewed, phi = apply_decisions(result, list_decisions(db, run.id), tools)
    assert len(reviewed) == 4 and all(phi[k] == k for k in phi)


def test_bad_decisions_are_refused(merged):
    db, run, *_ = merged
    with pytest.raises(ValueError, match="valid actions"):
        record_decision(db, run.id, "c001", "approve")
    with pytest.raises(ValueError, match="a move needs"):
        record_decision(db, run.id, "c001", "move", {"key": "gcd"})


def test_finish_and_list_merge_runs(merged):
    from storage.merges import finish_merge_run, list_merge_runs

    db, run, _tools, _v, result = merged
    assert [r.id for r in list_merge_runs(db, run.version_id)] == [run.id]
    assert list_merge_runs(db, run.version_id + 1) == ()
    done = finish_merge_run(db, run.id, result.summary())
    assert done.status == "done" and done.finished_at is not None and done.finished_at.tzinfo is not None
    # a finished run is not resumed: the same config opens a new run
    assert open_merge_run(db, run.version_id, MergeConfig(threshold=0.9).as_dict(), "offline").id != run.id
    with pytest.raises(ValueError, match=f"merge run {run.id}: status 'paused'"):
        finish_merge_run(db, run.id, {}, status="paused")


def test_a_review_is_loaded_and_decided_through_the_workspace(merged, hashing_embedder):
    from core.merging.review import decide, load_review
    from core.workspace import Workspace

    db, run, tools, _v, result = merged
    ws = Workspace(db, hashing_embedder)
    cid = result.clusters[0].id
    assert load_review(ws, run.id, result, tools).decisions == ()
    decide(ws, run.id, cid, "move", {"key": "gcd_v2", "to_group": 1})
    decide(ws, run.id, cid, "accept")
    review = load_review(ws, run.id, result, tools)
    assert [d.action for d in review.history(cid)] == ["move", "accept"] and review.history("c999") == ()
    assert review.states[cid].status == "accepted"
    assert [t.key for t in review.reviewed] == ["gcd", "gcd_v2", "weather"] and review.phi["math_gcd"] == "gcd"
    with pytest.raises(ValueError, match="valid actions"):
        decide(ws, run.id, cid, "approve")
