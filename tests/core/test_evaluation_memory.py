"""Evaluation with a session's tool memory (FitText App. C.2) and fitness read against the truth."""

import pytest

import core.evaluation as evaluation
from core.workspace import Workspace
from storage import runs


@pytest.fixture
def ws(db, hashing_embedder, tiny_tools, tiny_queries):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("tiny", tiny_tools, queries=tiny_queries, query_set="gold")
    return ws, report


def _fitness(item):
    return [e for e in item["trace"] if e["kind"] == "fitness"]


def _run(ws, report, queries, memory, **kw):
    params = {"generations": 2} if memory is None else {"generations": 2, "memory": memory}
    return evaluation.evaluate(ws, report.version.id, report.query_set.id, queries, strategy="memetic", k=3,
                               params=params, **kw)


def test_session_memory_is_read_by_later_queries_only_when_asked(ws, tiny_queries):
    ws, report = ws
    per_query = runs.load_items(ws.db, _run(ws, report, tiny_queries, None).run_id)
    assert all(f["mem"] == 0 for item in per_query.values() for f in _fitness(item))  # each query starts empty
    assert all("memory_writes" not in item for item in per_query.values())
    session = _run(ws, report, tiny_queries, "session")
    items = runs.load_items(ws.db, session.run_id)
    assert all(f["mem"] == 0 for f in _fitness(items["q1"]))  # nothing explored before the first query
    assert any(f["mem"] > 0 for f in _fitness(items["q2"]) + _fitness(items["q3"]))  # the memory term bites
    writes = items["q1"]["memory_writes"]
    assert writes and all(len(w) == 3 and isinstance(w[1], list) for w in writes)  # (text, keys, generation)


def test_a_resumed_session_run_holds_the_memory_an_uninterrupted_one_would(ws, tiny_queries, monkeypatch):
    ws, report = ws
    whole = runs.load_items(ws.db, _run(ws, report, tiny_queries, "session").run_id)

    def stop_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run(ws, report, tiny_queries, "session", resume=False, progress=stop_after_two)
    stopped = runs.list_runs(ws.db, kind="eval")[0]
    assert runs.done_item_keys(ws.db, stopped.id) == {"q1", "q2"}
    out = _run(ws, report, tiny_queries, "session")
    assert out.run_id == stopped.id and out.resumed_items == 2
    resumed = runs.load_items(ws.db, out.run_id)["q3"]
    assert _fitness(resumed) == _fitness(whole["q3"]) and resumed["memory_writes"] == whole["q3"]["memory_writes"]
    assert any(f["mem"] > 0 for f in _fitness(resumed))  # rebuilt from the stored writes, not started empty


def test_memory_mode_is_checked(ws, tiny_queries):
    ws, report = ws
    with pytest.raises(ValueError, match="valid modes: query, session"):
        _run(ws, report, tiny_queries, "forever")
    with pytest.raises(ValueError, match="keeps no tool memory"):
        evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, strategy="query", k=3,
                            params={"memory": "session"})


def test_fitness_is_reported_against_the_truth(ws, tiny_queries):
    ws, report = ws
    out = _run(ws, report, tiny_queries, None)
    items = runs.load_items(ws.db, out.run_id)
    fit = [f for item in items.values() for f in _fitness(item)]
    assert fit and all(0 <= f["ndcg"] <= 1 and 0 <= f["recall"] <= 1 for f in fit)
    assert out.metrics["fitness_truth_members"] == len(fit)
    assert "fitness_truth_spearman" in out.metrics and "fitness_truth_spearman_pooled" in out.metrics
    assert "fitness_truth_members" in evaluation.load_run(ws, out.run_id).measures  # a measure, not a score
    plain = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert not any(name.startswith("fitness_truth") for name in plain.metrics)  # no fitness, nothing to say
