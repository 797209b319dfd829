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
    from core.metrics import score_rankings

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
    stand_in = score_rankings({q: i["keys"] for q, i in items.items()}, {q.id: q.gold for q in tiny_queries}, 3)
    assert stand_in.csr == 1.0 and "csr_stand_in_queries" not in out.metrics
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
