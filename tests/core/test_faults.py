"""Fault injection: an OpenAI-compatible backend failing ~30 % of calls at random (timeouts, 429, 500,
garbage) under a memetic eval, a merge run and a trials run. Each run must finish, every call (failed ones
included) must be in the ledger, metrics must come from what succeeded, and the stored run must expose the
failed-call count the pages show."""

from __future__ import annotations

import pytest

from core.context import LLMConfig
from core.models import Query, Tool
from core.workspace import Workspace
from storage import runs
from storage.ledger import count_calls, list_calls
from tests.core.llm.fake_openai import FAULT_KINDS, FakeOpenAI, role_answer

TIMEOUT = 0.4  # client timeout; an injected timeout sleeps longer than this
BAND = (0.12, 0.5)  # 30 % injected, loose enough for a few dozen seeded draws


@pytest.fixture
def faulty():
    server = FakeOpenAI().start()
    server.respond = role_answer
    server.faults(rate=0.3, seed=7, kinds=FAULT_KINDS, sleep=TIMEOUT * 2.5)
    yield server
    server.close()


def _llm(server: FakeOpenAI, max_retries: int) -> LLMConfig:
    return LLMConfig(kind="openai", base_url=server.url, model="tiny-model",
                     options={"timeout": TIMEOUT, "max_retries": max_retries, "backoff": 0.0, "concurrency": 4})


def _posts(server: FakeOpenAI) -> int:
    return sum(1 for s in server.seen if "body" in s)


def _tool(key: str, desc: str, params: tuple[str, ...] = ()) -> Tool:
    props = {p: {"type": "string", "description": p} for p in params}
    return Tool(key=key, name=key, description=desc,
                parameters={"type": "object", "properties": props, "required": list(params[:1])})


TOOLS = (
    _tool("get_weather", "Current weather conditions for a city", ("city",)),
    _tool("city_weather_now", "Current weather conditions in a city right now", ("city",)),
    _tool("weather_forecast", "Seven day weather forecast for a location", ("location", "days")),
    _tool("forecast_weather", "Weather forecast for the next days at a location", ("location",)),
    _tool("convert_currency", "Convert an amount of money from one currency to another", ("amount", "to")),
    _tool("currency_converter", "Convert money amount between currencies", ("amount", "target")),
    _tool("stock_quote", "Latest stock price quote for a ticker symbol", ("ticker",)),
    _tool("send_email", "Send an email message to a recipient", ("to", "subject")),
    _tool("translate_text", "Translate text into another language", ("text", "target")),
    _tool("text_translator", "Translate a text to a target language", ("text", "language")),
)
QUERIES = (
    Query("q1", "what is the weather in Paris right now", ("get_weather", "city_weather_now"), "test"),
    Query("q2", "convert 100 dollars to euros", ("convert_currency", "currency_converter"), "test"),
    Query("q3", "email my boss the stock price of ACME", ("send_email", "stock_quote"), "test"),
    Query("q4", "translate hello into German", ("translate_text", "text_translator"), "test"),
    Query("q5", "forecast for Berlin for the next week", ("weather_forecast", "forecast_weather"), "test"),
    Query("q6", "quote for the ticker MSFT", ("stock_quote",), "test"),
)


@pytest.fixture
def ws(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("faulty", TOOLS, queries=QUERIES, query_set="gold")
    return ws, report


def _ledger_checks(db, run_id: int, server: FakeOpenAI, *, exact: bool) -> tuple[int, int]:
    calls = count_calls(db, run_id=run_id)
    errors = count_calls(db, run_id=run_id, errors_only=True)
    posts = _posts(server)
    injected = len(server.injected)
    assert calls > 0 and errors > 0, (calls, errors)
    assert set(server.injected) == set(FAULT_KINDS), server.injected  # every kind met the run
    assert BAND[0] <= injected / posts <= BAND[1], (injected, posts)
    if exact:  # no retries: one request per ledger row, one failed row per injected fault
        assert calls == posts and errors == injected, (calls, posts, errors, injected)
    else:  # retries absorb part of the transient faults; garbage is never retried
        assert calls <= posts and errors <= injected, (calls, posts, errors, injected)
    rows = list_calls(db, run_id=run_id, limit=10_000)
    assert len(rows) == calls
    failed = [r for r in rows if r.error]
    assert len(failed) == errors and all(r.role for r in failed)
    kinds = {r.error.split(":")[0] for r in failed}
    assert kinds & {"LLMTimeout", "LLMRateLimited", "LLMServerError"} or not exact, kinds
    assert kinds & {"LLMBadResponse"}, kinds  # garbage bodies and unreadable answers
    return calls, errors


def test_memetic_eval_survives_faults(ws, faulty):
    from core.evaluation import evaluate

    ws, report = ws
    out = evaluate(ws, report.version.id, report.query_set.id, QUERIES, strategy="memetic",
                   params={"population": 3, "generations": 2}, k=3, llm=_llm(faulty, max_retries=0), seed=3)
    info = next(r for r in runs.list_runs(ws.db, kind="eval") if r.id == out.run_id)
    assert info.status == "done"
    assert set(runs.done_item_keys(ws.db, out.run_id)) == {q.id for q in QUERIES}
    calls, errors = _ledger_checks(ws.db, out.run_id, faulty, exact=True)
    # the stored metrics (shown as columns on the Runs page) carry the counts
    assert info.metrics["llm_calls"] == calls and info.metrics["llm_errors"] == errors
    assert out.n_queries == len(QUERIES)
    assert 0.0 <= info.metrics["recall@3"] <= 1.0 and info.metrics["recall@3"] > 0
    print(f"\nmemetic eval: {calls} calls, {errors} failed, {len(faulty.injected)} injected of "
          f"{_posts(faulty)} requests; recall@3={info.metrics['recall@3']}")


def test_merge_survives_faults(ws, faulty):
    from core.merging.pipeline import MergeConfig
    from core.merging.service import merge_version
    from storage.merges import list_merge_runs

    ws, report = ws
    version = report.version.id
    run = merge_version(ws, version, MergeConfig(threshold=0.05, k=9), _llm(faulty, max_retries=1), seed=1)
    info = next(r for r in list_merge_runs(ws.db, version) if r.id == run.run_id)
    assert info.status == "done"
    calls, errors = _ledger_checks(ws.db, run.run_id, faulty, exact=False)
    summary = info.metrics
    assert summary["llm_calls"] == calls and summary["llm_errors"] == errors  # what Merge review shows
    pairs = run.result.pairs
    assert summary["candidate_pairs"] == len(pairs) > 0
    # a pair whose verdict failed is kept apart, never merged; the others decided the clusters
    assert summary["pair_errors"] == sum(not p.ok for p in pairs) > 0
    assert all(not p.same for p in pairs if not p.ok)
    assert summary["positive_pairs"] == sum(p.same for p in pairs if p.ok)
    print(f"\nmerge: {calls} calls, {errors} failed, {len(faulty.injected)} injected of {_posts(faulty)} requests; "
          f"pairs={len(pairs)} pair_errors={summary['pair_errors']} size {summary['size_before']}"
          f"->{summary['size_after']}")


def test_trials_survive_faults(ws, faulty):
    from core.trials.pipeline import TrialConfig
    from core.trials.service import load_trial_run, run_trial_set

    ws, report = ws
    config = TrialConfig(k=4, simulate=True, simulate_unexecuted=True, today="2026-01-05", concurrency=2)
    run = run_trial_set(ws, report.version.id, QUERIES, None, config=config, llm=_llm(faulty, max_retries=1),
                        seed=2, query_set_id=report.query_set.id)
    info, reports = load_trial_run(ws, run.run_id)
    assert info.status == "done" and len(reports) == len(QUERIES)
    calls, errors = _ledger_checks(ws.db, run.run_id, faulty, exact=False)
    assert info.metrics["llm_calls"] == calls and info.metrics["llm_errors"] == errors  # what Trials shows
    trials = [t for r in reports for t in r.trials]
    assert info.metrics["trials"] == len(trials) == 4 * len(QUERIES)
    # failed roles leave a mark in the evidence: a planning failure or a failed simulation or a fallback order
    assert any(t.outcome == "planning_failed" or not t.simulation_used for t in trials)
    assert info.metrics["simulated"] == sum(t.simulation_used for t in trials) > 0
    assert 0.0 <= info.metrics["after"]["recall@4"] <= 1.0
    print(f"\ntrials: {calls} calls, {errors} failed, {len(faulty.injected)} injected of {_posts(faulty)} requests; "
          f"simulated={info.metrics['simulated']} after={info.metrics['after']}")


def test_role_answers_parse_for_every_role(faulty):
    """Without faults the plausible answers are usable: no call of any role fails."""
    from core.llm.framework import make_roles
    from core.llm.ledger import MemoryLedger
    from core.trials.prompted import PromptedTrialOperators

    faulty.faults(rate=0.0)
    ledger = MemoryLedger()
    ops = make_roles("strategy", "openai", ledger=ledger, base_url=faulty.url, model="m", api_key="k",
                     max_retries=0, timeout=2.0)
    a, b = TOOLS[0], TOOLS[1]
    results = [
        ops.pseudo_tools("weather in Paris"), ops.refine("x", "y", ["z"], "q"), ops.refine_all(["a"], ["b"], "q"),
        ops.judge_sufficiency("q", ["a"]), ops.scatter("a", ["b"]), ops.seed_population("a", ["b"], 3),
        ops.crossover("a", "b", "c"), ops.mutate("a", "b"), ops.guided_mutate("a", ["b"]),
        ops.score_retrieval("q", ["a"]), ops.synthetic_queries("doc", 3), ops.extract_intents("do x and y"),
        ops.select_tools("q", [("k1", "blurb"), ("k2", "b")]),
    ]
    judge = make_roles("merge", "prompted", operators=ops)
    results += [judge.classify_pair(a, b, 0.9), judge.audit_cluster([a, b]), judge.merged_doc(a, [b])]
    trial_ops = PromptedTrialOperators(ops)
    from datetime import date

    plan = trial_ops.plan_call("weather in Paris", a, today=date(2026, 1, 1))
    results += [plan, trial_ops.simulate_response("q", a, {"city": "Paris"}, "boom")]
    assert [r.error for r in results if not r.ok] == []
    assert plan.value.arguments and not plan.value.missing
    assert judge.classify_pair(a, b, 0.9).value.same and not judge.classify_pair(a, TOOLS[8], 0.1).value.same


@pytest.mark.slow
def test_pages_show_the_failed_calls(tmp_path, monkeypatch, faulty, hashing_embedder):
    """Merge review (a merge judged by the faulty endpoint) and Runs (a faulty memetic eval) say how many
    LLM calls failed; the Trials and Playground pages show ``llm_errors`` the same way (see above)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from core.evaluation import evaluate
    from storage.catalogs import get_version, list_query_sets, load_queries
    from storage.db import make_engine
    from tests.pages.conftest import settle

    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    at.session_state["llm_config"] = _llm(faulty, max_retries=0)
    # every Auto-Correction audit gets an unusable answer, so the page must call those clusters out
    faulty.respond = lambda body: ("no idea" if '"verdict": "MERGE_OK"' in body["messages"][-1]["content"]
                                   else role_answer(body))
    settle(at.switch_page("pages/merge_review.py").run())  # the first visit embeds the demo as a job
    settle(at.button(key="merge_run").click().run())
    assert not at.exception, at.exception
    shown = [c.value for c in at.caption if c.value.startswith("Judge calls failed:")]
    assert shown, [c.value for c in at.caption]
    failed, total = (int(x) for x in shown[0].split(":")[1].split("(")[0].split(" of "))
    assert 0 < failed < total, shown
    clusters = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    errored = int((clusters["verdict"] == "ERROR").sum())
    audit_warnings = [w.value for w in at.warning if "Auto-Correction audit(s) failed" in w.value]
    assert errored > 0 and len(audit_warnings) == 1 and audit_warnings[0].startswith(f"{errored} Auto-Correction")
    faulty.respond = role_answer

    db = make_engine(url)
    ws = Workspace(db, hashing_embedder)
    version = get_version(db, "demo", None)
    qs = list_query_sets(db, "demo")[0]
    queries = load_queries(db, qs.id)[:3]
    out = evaluate(ws, version.id, qs.id, queries, strategy="memetic", params={"population": 3, "generations": 2},
                   k=3, llm=_llm(faulty, max_retries=0))
    assert out.metrics["llm_errors"] > 0
    at.switch_page("pages/runs.py").run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "kind" in d.value.columns)  # the jobs panel may come first
    row = table[table["run"] == f"#{out.run_id}"].iloc[0]
    assert row["failed calls"] == out.metrics["llm_errors"] and row["LLM calls"] == out.metrics["llm_calls"]
