import math

import pytest

import core.evaluation as evaluation
from core.scoring import METRICS, score
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


def test_eval_is_run_then_score_and_stores_the_metrics_in_their_old_shape(ws, tiny_queries):
    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    stored = runs.get_run(ws.db, out.run_id)
    assert stored.status == "done" and dict(stored.metrics) == dict(out.metrics)
    assert list(stored.metrics) == ["n_queries", "ndcg@3", "precision@3", "recall@3", "comprehensiveness@3", "mrr",
                                    "csr@3", "llm_calls", "llm_errors", "seconds_per_query"]
    # the stored run scored again gives the stored numbers
    again = score(evaluation.load_run(ws, out.run_id))
    assert {**again.as_dict(), **evaluation.load_run(ws, out.run_id).measures} == dict(stored.metrics)


def test_run_strategy_stores_answers_and_its_own_measures_only(ws, tiny_queries):
    ws, report = ws
    run = evaluation.run_strategy(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                                  params={"mode": "bm25"})
    assert run.query_ids == ("q1", "q2", "q3") and run.k == 3 and run.label == f"#{run.run_id} query (mode=bm25)"
    assert run.queries[1].ranking[0] == "convert_currency" and run.queries[1].gold == ("convert_currency",)
    assert all(q.selected is not None and len(q.ranking) == 3 for q in run.queries)
    stored = runs.get_run(ws.db, run.run_id)
    assert stored.status == "done" and set(stored.metrics) == {"llm_calls", "llm_errors", "seconds_per_query"}
    assert dict(run.measures) == dict(stored.metrics) and run.resumed_items == 0
    # the Runs table scores a run nobody scored yet, at its own k
    row = evaluation.run_rows(ws)[0]
    assert row.run_id == run.run_id and row.metrics["recall"] == score(run).mean("recall")


def test_a_stored_run_is_rescored_with_new_metrics_without_running_again(ws, tiny_queries, monkeypatch):
    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3, params={"mode": "bm25"})
    monkeypatch.setattr(evaluation, "make_strategy", lambda *a, **kw: pytest.fail("ran the strategy again"))
    run = evaluation.load_run(ws, out.run_id)
    at1 = score(run, metrics=["ndcg@1", "recall@1", "mrr"])
    # q1 and q2 start with their one gold tool; q3's top 1 holds one of its two
    assert [q.ranking[0] for q in run.queries] == ["get_weather", "convert_currency", "stock_quote"]
    assert at1.values("recall@1") == (1.0, 1.0, 0.5) and at1.values("ndcg@1") == (1.0, 1.0, 1.0)
    assert round(at1.mean("mrr"), 6) == out.metrics["mrr"]
    assert score(run).as_dict()["recall@3"] == out.metrics["recall@3"]
    with pytest.raises(ValueError, match="was made at k = 3 and stored its top 3 only"):
        score(run, metrics=["ndcg@5"])


def test_load_run_finds_by_id_and_reads_old_items(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    run = runs.open_run(db, "eval", {"k": 3, "strategy": "query"}, strategy="query")
    # q1 selected exactly its gold, q2 a superset of it, q3 nothing
    runs.add_item(db, run.id, "q1", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": ["a"]}, 0.5)
    runs.add_item(db, run.id, "q2", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": ["a", "b"]})
    runs.add_item(db, run.id, "q3", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": []})
    # stored before selections were kept: the stand-in takes the first |gold| = 1 key, [a] == {a}
    runs.add_item(db, run.id, "q4", {"keys": ["a", "b", "c"], "gold": ["a"]})
    loaded = evaluation.load_run(ws, run.id)
    assert loaded.k == 3 and loaded.queries[0].seconds == 0.5 and loaded.queries[3].selected is None
    report = score(loaded)
    assert report.values("csr") == (1.0, 0.0, 0.0, 1.0) and report.csr_stand_in == 1
    assert report.values("recall") == (1.0,) * 4  # the ranking metrics ignore the selection
    with pytest.raises(ValueError, match="no run with id 999"):
        evaluation.load_run(ws, 999)
    merge = runs.open_run(db, "merge", {"k": 3})
    with pytest.raises(ValueError, match=f"run #{merge.id} is a merge run, not an evaluation run"):
        evaluation.load_run(ws, merge.id)
    assert evaluation.unfinished_eval_runs(ws) == 1  # the eval run above was never finished


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
    # Re-Invoke §6.2: the run reports how often a synthetic query finds its own tool, identically both times
    assert first.metrics["round_trip_queries"] == 18  # 6 tools x m = 3
    trip = {k: v for k, v in first.metrics.items() if k.startswith("round_trip@")}
    assert set(trip) == {"round_trip@1", "round_trip@5", "round_trip@10"}
    assert 0 < trip["round_trip@1"] <= trip["round_trip@5"] <= trip["round_trip@10"] == 1.0  # 6 tools: top 10 is all
    assert {k: second.metrics[k] for k in trip} == trip


def _selector_calls(db, run_id):
    from storage.ledger import list_calls

    return list_calls(db, run_id=run_id, role="select_tools")


def test_eval_stores_a_selection_per_query_and_scores_csr_from_it(ws, tiny_queries):
    from dataclasses import replace

    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    items = runs.load_items(ws.db, out.run_id)
    for item in items.values():
        assert set(item["selected"]) <= set(item["keys"][:3])  # picked from the top k only
    # q3 asks for two tools, but the offline selector takes one tool per intent and finds one intent
    assert items["q3"]["keys"][:2] == ["stock_quote", "send_email"] and items["q3"]["selected"] == ["stock_quote"]
    assert items["q1"]["selected"] == ["get_weather"] and items["q2"]["selected"] == ["convert_currency"]
    assert out.metrics["csr@3"] == pytest.approx(2 / 3)
    # the old stand-in (the first |gold| keys) would have scored q3 a hit, and the run 1.0
    run = evaluation.load_run(ws, out.run_id)
    stand_in = score(replace(run, queries=tuple(replace(q, selected=None) for q in run.queries)))
    assert stand_in.mean("csr") == 1.0 and stand_in.csr_stand_in == 3 and "csr_stand_in_queries" not in out.metrics
    # one offline select_tools call per query, recorded under the run; no other LLM calls for `query`
    calls = _selector_calls(ws.db, out.run_id)
    assert len(calls) == 3 and {c.backend for c in calls} == {"offline"}
    assert out.metrics["llm_calls"] == 3 and out.metrics["llm_errors"] == 0
    assert runs.list_runs(ws.db, kind="eval")[0].config["selector"] == "select_tools"


def test_csr_follows_what_the_selector_picks(ws, tiny_queries, monkeypatch):
    from core.llm.offline import OfflineOperators

    ws, report = ws

    def picks_all(self, query, candidates):  # a superset of every gold set at k = 3
        return self._call("select_tools", {"query": query, "all": True}, lambda rng: [c[0] for c in candidates])

    monkeypatch.setattr(OfflineOperators, "select_tools", picks_all)
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert all(len(i["selected"]) == 3 for i in runs.load_items(ws.db, out.run_id).values())
    assert out.metrics["csr@3"] == 0.0 and out.metrics["recall@3"] == 1.0


def test_a_failed_selector_call_selects_nothing_and_is_counted(ws, tiny_queries, monkeypatch):
    from core.llm.offline import OfflineOperators

    ws, report = ws

    def broken(self, query, candidates):
        def rule(rng):
            raise RuntimeError("selector rule broke")
        return self._call("select_tools", {"query": query}, rule)

    monkeypatch.setattr(OfflineOperators, "select_tools", broken)
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert [i["selected"] for i in runs.load_items(ws.db, out.run_id).values()] == [[], [], []]
    assert out.metrics["csr@3"] == 0.0
    assert out.metrics["llm_errors"] == out.metrics["llm_calls"] == 3


def test_resumed_eval_asks_no_selector_again(ws, tiny_queries, monkeypatch):
    ws, report = ws
    monkeypatch.setattr(evaluation, "BATCH", 1)

    def stop_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3, progress=stop_after_two)
    run = runs.list_runs(ws.db, kind="eval")[0]
    assert len(_selector_calls(ws.db, run.id)) == 2
    before = runs.load_items(ws.db, run.id)
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert out.run_id == run.id and out.resumed_items == 2
    assert len(_selector_calls(ws.db, run.id)) == 3  # only q3 was asked
    after = runs.load_items(ws.db, run.id)
    assert {q: after[q]["selected"] for q in before} == {q: i["selected"] for q, i in before.items()}


def test_runs_without_selections_are_not_resumed(ws, tiny_queries):
    ws, report = ws
    config = {"version_id": report.version.id, "query_set_id": report.query_set.id,
              "query_ids": [q.id for q in tiny_queries], "strategy": "query", "params": {}, "k": 3,
              "embedder": ws.embedder.model_id}  # an unfinished run stored before selections were kept
    old = runs.open_run(ws.db, "eval", config, version_id=report.version.id, query_set_id=report.query_set.id,
                        strategy="query")
    runs.add_item(ws.db, old.id, "q1", {"query": "x", "gold": ["get_weather"], "keys": ["get_weather"]})
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    assert out.run_id != old.id and out.resumed_items == 0
    new = next(r for r in runs.list_runs(ws.db, kind="eval") if r.id == out.run_id)
    assert new.config == {**config, "selector": "select_tools"}  # the selector is the only difference


def test_llm_strategy_selects_with_its_own_operators(ws, tiny_queries, monkeypatch):
    ws, report = ws
    seen = []
    real_build = evaluation.build_context

    def spying_build(*args, **kwargs):
        context = real_build(*args, **kwargs)
        ops = context["operators"]
        real_select = ops.select_tools

        def select_tools(query, candidates):
            seen.append(query)
            return real_select(query, candidates)

        ops.select_tools = select_tools
        return context

    monkeypatch.setattr(evaluation, "build_context", spying_build)
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                              strategy="scattershot", params={"fan_out": 3}, seed=1)
    assert seen == [q.text for q in tiny_queries]
    assert len(_selector_calls(ws.db, out.run_id)) == 3
    assert all("selected" in i for i in runs.load_items(ws.db, out.run_id).values())


def test_prompted_run_asks_the_model_to_select(ws, tiny_queries):
    from core.context import LLMConfig
    from tests.core.llm.fake_openai import FakeOpenAI, role_answer, role_of

    ws, report = ws
    server = FakeOpenAI().start()
    server.respond = role_answer  # select_tools answers with the first candidate listed
    try:
        out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3,
                                  strategy="single_pass",
                                  llm=LLMConfig(kind="openai", base_url=server.url, model="tiny-model"))
    finally:
        server.close()
    asked = [s for s in server.seen if "body" in s and role_of(s["body"]["messages"][-1]["content"]) == "select_tools"]
    assert len(asked) == 3
    calls = _selector_calls(ws.db, out.run_id)
    assert len(calls) == 3 and {c.backend for c in calls} == {"openai"}
    items = runs.load_items(ws.db, out.run_id)
    assert all(i["selected"] == i["keys"][:1] for i in items.values())
    csr = sum(set(i["selected"]) == set(i["gold"]) for i in items.values()) / 3
    assert out.metrics["csr@3"] == pytest.approx(csr)


# -- several strategies at once (the Runs page's form) ------------------------------------------------------


def test_evaluate_strategies_runs_each_in_order_and_reports_overall_progress(ws, tiny_queries):
    ws, report = ws
    seen = []
    out = evaluation.evaluate_strategies(ws, report.version.id, report.query_set.id, tiny_queries,
                                         ["query", "scattershot", "query"], k=3,
                                         progress=lambda share, label: seen.append((share, label)))
    assert [r.strategy for r in out] == ["query", "scattershot"]  # a repeated name runs once
    assert [r.n_queries for r in out] == [3, 3] and len({r.run_id for r in out}) == 2
    stored = {r.id: r for r in runs.list_runs(ws.db, kind="eval")}
    assert {stored[r.run_id].status for r in out} == {"done"}
    # each strategy is half of the work: 3 queries of the first reach 0.5, the second's reach 1.0
    shares = [s for s, _ in seen]
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert (0.5, "query (1/2): query 3/3") in seen and (1.0, "scattershot (2/2): query 3/3") in seen
    # the same scores as one evaluate() call with the same settings
    single = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3, resume=False)
    assert single.metrics["recall@3"] == out[0].metrics["recall@3"]


def test_evaluate_strategies_checks_every_name_before_running_any(ws, tiny_queries):
    ws, report = ws
    with pytest.raises(ValueError, match="unknown strategy 'nope'; valid strategies: query"):
        evaluation.evaluate_strategies(ws, report.version.id, report.query_set.id, tiny_queries, ["query", "nope"])
    assert runs.list_runs(ws.db, kind="eval") == ()
    with pytest.raises(ValueError, match="at least one strategy"):
        evaluation.evaluate_strategies(ws, report.version.id, report.query_set.id, tiny_queries, [])
    with pytest.raises(ValueError, match="k must be at least 1"):
        evaluation.evaluate_strategies(ws, report.version.id, report.query_set.id, tiny_queries, ["query"], k=0)


def test_a_cancelled_multi_strategy_eval_resumes_where_it_stopped(ws, tiny_queries, monkeypatch):
    from core.jobs import JobCancelled

    ws, report = ws
    monkeypatch.setattr(evaluation, "BATCH", 1)

    def cancel_in_second(share, label):
        if label == "scattershot (2/2): query 1/3":
            raise JobCancelled("cancelled")  # what a cancelled job's report raises

    args = (ws, report.version.id, report.query_set.id, tiny_queries, ["query", "scattershot"])
    with pytest.raises(JobCancelled):
        evaluation.evaluate_strategies(*args, k=3, progress=cancel_in_second)
    by_strategy = {r.strategy: r for r in runs.list_runs(ws.db, kind="eval")}
    assert by_strategy["query"].status == "done" and by_strategy["scattershot"].status == "running"
    assert len(runs.done_item_keys(ws.db, by_strategy["scattershot"].id)) == 1
    again = evaluation.evaluate_strategies(*args, k=3)
    assert again[1].run_id == by_strategy["scattershot"].id and again[1].resumed_items == 1
    assert again[0].run_id != by_strategy["query"].id  # a finished run is never reopened: a new one


# -- the Runs table ---------------------------------------------------------------------------------------


def test_run_rows_read_each_run_at_its_own_k_and_list_playground_strategies(ws, tiny_queries):
    from core.playground_runs import finish_playground_run, open_playground_run, record_strategy
    from core.strategies.base import RetrievalResult

    ws, report = ws
    vid = report.version.id
    at3 = evaluation.evaluate(ws, vid, report.query_set.id, tiny_queries, k=3, params={"mode": "bm25"})
    at5 = evaluation.evaluate(ws, vid, report.query_set.id, tiny_queries, k=5)
    play = open_playground_run(ws.db, vid, query="convert 100 dollars to euros", gold=("convert_currency",), k=2,
                               seed=0, strategies={"query": {}, "memetic": {"population": 4}},
                               llm={"kind": "offline"}, session_memory=False)
    record_strategy(ws.db, play, "query", RetrievalResult(("stock_quote", "convert_currency"), (0.9, 0.8), (), 0.5))
    finish_playground_run(ws.db, play, status="stopped")  # memetic never answered
    free = open_playground_run(ws.db, vid, query="hello", gold=(), k=2, seed=0, strategies={"query": {}},
                               llm={"kind": "offline"}, session_memory=False)
    record_strategy(ws.db, free, "query", RetrievalResult(("send_email",), (0.3,), (), 0.25))
    finish_playground_run(ws.db, free)
    unfinished = runs.open_run(ws.db, "eval", {"strategy": "query", "k": 3}, version_id=vid, strategy="query")

    rows = evaluation.run_rows(ws)
    assert [(r.run_id, r.kind, r.strategy) for r in rows] == [
        (free, "playground", "query"), (play, "playground", "query"), (at5.run_id, "eval", "query"),
        (at3.run_id, "eval", "query")]  # newest first; the unfinished eval run is not listed
    assert unfinished.id not in {r.run_id for r in rows}
    r3, r5 = rows[3], rows[2]
    assert (r3.k, r5.k) == (3, 5) and r3.params == "mode=bm25" and r5.params == ""
    assert r3.catalog == "tiny v1" and r3.queries_from == "gold" and r3.n_queries == 3 and r3.llm == "not used"
    # every metric of an eval row is there, read at the row's own k
    assert r3.metrics == {"recall": at3.metrics["recall@3"], "ndcg": at3.metrics["ndcg@3"],
                          "precision": at3.metrics["precision@3"],
                          "comprehensiveness": at3.metrics["comprehensiveness@3"], "mrr": at3.metrics["mrr"],
                          "csr": at3.metrics["csr@3"]}
    assert r5.metrics["recall"] == at5.metrics["recall@5"] and None not in r5.metrics.values()
    assert r3.llm_calls == 3 and r3.llm_errors == 0 and r3.seconds_per_query == at3.metrics["seconds_per_query"]
    # a playground row: its query, recall and nDCG at its k (gold at rank 2 of 2), nothing it did not measure
    p = rows[1]
    assert (p.queries_from, p.k, p.n_queries, p.status, p.seconds_per_query) == (
        "convert 100 dollars to euros", 2, 1, "stopped", 0.5)
    assert p.metrics["recall"] == 1.0 and p.metrics["ndcg"] == pytest.approx(1 / math.log2(3))
    assert p.metrics["csr"] is None and p.metrics["mrr"] is None
    assert rows[0].metrics["recall"] is None  # a typed query without gold: not measured
    assert evaluation.run_rows(ws, version_id=vid + 1) == ()


def test_run_rows_of_runs_stored_before_calls_and_seconds_were_kept(ws, tiny_queries):
    ws, report = ws
    out = evaluation.evaluate(ws, report.version.id, report.query_set.id, tiny_queries, k=3)
    old = {k: v for k, v in out.metrics.items() if k not in ("llm_calls", "llm_errors", "seconds_per_query")}
    runs.finish_run(ws.db, out.run_id, old)
    row = evaluation.run_rows(ws)[0]
    assert (row.llm_calls, row.llm_errors) == (3, 0)  # from the ledger
    expected = sum(runs.item_seconds(ws.db, out.run_id).values()) / 3
    assert row.seconds_per_query == pytest.approx(expected, abs=1e-4)


def _row(run_id, strategy, *, k=5, version=1, query_set=1, kind="eval", params=""):
    return evaluation.RunRow(run_id, kind, version, "c v1", query_set, "qs", strategy, params, "not used", k, 10,
                             dict.fromkeys(METRICS, 0.5), 0, 0, 0.01, "done", None)


def test_default_comparison_starts_from_a_query_run_with_company():
    rows = [_row(9, "memetic", k=10), _row(8, "query", k=10, query_set=2), _row(7, "scattershot"),
            _row(6, "memetic"), _row(5, "scattershot"), _row(4, "query"), _row(3, "toolscope"),
            _row(2, "query", kind="playground")]
    # #8 is the newest query run but nothing else ran on its query set at its k: #4 has scattershot and memetic
    assert evaluation.default_comparison(rows) == (4, 7, 6)  # the newest run of each other strategy
    assert evaluation.default_comparison(rows, companions=1) == (4, 7)
    assert evaluation.default_comparison(rows[:2]) == (8,)  # no company anywhere: the newest query run alone
    assert evaluation.default_comparison([_row(3, "memetic"), _row(2, "scattershot")]) == (3, 2)  # no query run
    assert evaluation.default_comparison([_row(2, "query", kind="playground")]) == ()
    # the plain retriever (default parameters) is the baseline; other modes of it are configurations to compare
    modes = [_row(5, "query", params="mode=bm25"), _row(4, "query", params="mode=hybrid", k=10), _row(3, "query"),
             _row(2, "query", params="mode=bm25"), _row(1, "memetic")]
    assert evaluation.default_comparison(modes) == (3, 5, 1)


def test_pick_baseline_prefers_a_query_run():
    rows = [_row(3, "memetic"), _row(2, "query"), _row(1, "query")]
    assert evaluation.pick_baseline(rows, [3, 1, 2]) == 1  # the first query run picked
    assert evaluation.pick_baseline(rows, [3]) == 3
    # a sweep of the retriever's parameters (a grid): the plain one, with its defaults, is the baseline
    sweep = [_row(3, "query", params="alpha=0.7, mode=hybrid"), _row(2, "query", params="mode=bm25"), _row(1, "query")]
    assert evaluation.pick_baseline(sweep, [3, 2, 1]) == 1
    assert evaluation.pick_baseline(sweep, [3, 2]) == 3
    with pytest.raises(ValueError, match="no run picked"):
        evaluation.pick_baseline(rows, [])
