import pytest

import core.evaluation as evaluation
from core.workspace import Workspace
from storage import runs

pytestmark = pytest.mark.pg


@pytest.fixture
def ws(db, hashing_embedder, tiny_tools, tiny_queries):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("tiny", tiny_tools, queries=tiny_queries, query_set="gold")
    return ws, report


def test_eval_scores_and_stores_every_query(ws, tiny_queries):
    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                              params={"mode": "bm25"})
    assert out.n_queries == 3 and out.resumed_items == 0
    items = runs.load_items(ws.db, out.run_id)
    assert set(items) == {"q1", "q2", "q3"}
    assert items["q2"]["keys"][0] == "convert_currency"
    assert 0 <= out.metrics["recall@3"] <= 1 and "ndcg@3" in out.metrics


def test_interrupted_eval_resumes_without_duplicates(ws, tiny_queries, monkeypatch):
    ws, report = ws
    monkeypatch.setattr(evaluation, "BATCH", 1)
    calls = []

    def boom(done, total):
        calls.append(done)
        if done == 2:
            raise KeyboardInterrupt  # the user pressed Ctrl-C after the second query

    with pytest.raises(KeyboardInterrupt):
        evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3, progress=boom)
    run = runs.list_runs(ws.db, kind="eval")[0]
    assert run.status == "running" and runs.done_item_keys(ws.db, run.id) == {"q1", "q2"}
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert out.run_id == run.id and out.resumed_items == 2 and out.n_queries == 3
    assert len(runs.load_items(ws.db, run.id)) == 3


def test_select_queries_split_and_limit(tiny_queries):
    assert [q.id for q in evaluation.select_queries(tiny_queries, split="test")] == ["q1", "q2"]
    assert [q.id for q in evaluation.select_queries(tiny_queries, limit=1)] == ["q1"]
    with pytest.raises(ValueError, match=r"no query in split 'x' \(splits: dev, test\)"):
        evaluation.select_queries(tiny_queries, split="x")


def test_unknown_strategy_lists_valid(ws, tiny_queries):
    ws, report = ws
    with pytest.raises(ValueError, match="valid strategies: query"):
        evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, strategy="nope")


def test_gold_keys_checked_before_writing(db, hashing_embedder, tiny_tools):
    from core.models import Query
    from storage.catalogs import list_catalogs

    ws = Workspace(db, hashing_embedder)
    with pytest.raises(ValueError, match="gold key 'missing_tool'"):
        ws.import_tools("t", tiny_tools, queries=[Query("a", "x", ("missing_tool",))])
    assert list_catalogs(db) == ()


def test_llm_strategy_eval_records_ledger_and_resumes(ws, tiny_queries):
    from storage.ledger import count_calls

    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                              strategy="scattershot", params={"fan_out": 3}, seed=1)
    assert out.metrics["llm_calls"] == count_calls(ws.db, run_id=out.run_id) > 0
    assert out.metrics["llm_errors"] == 0
    again = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                                strategy="scattershot", params={"fan_out": 3}, seed=1, resume=False)
    assert runs.load_items(ws.db, again.run_id)["q1"]["keys"] == runs.load_items(ws.db, out.run_id)["q1"]["keys"]


def test_reinvoke_index_is_cached_in_the_store(ws, tiny_queries):
    from storage.ledger import list_calls

    ws, report = ws
    first = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                                strategy="reinvoke", params={"m": 3})
    second = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                                 strategy="reinvoke", params={"m": 3}, resume=False)
    assert len(list_calls(ws.db, run_id=first.run_id, role="synthetic_queries")) == 6  # one per tool
    assert len(list_calls(ws.db, run_id=second.run_id, role="synthetic_queries")) == 0  # read from the store
