"""AppTest of the Runs page: an evaluation started from its form runs as a background job and lands in the
table; the table shows runs made at different k and playground runs without a single "None", and compares
against a `query` run by default."""

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def _runs_page(at: AppTest) -> AppTest:
    at.run()
    at.switch_page("pages/runs.py").run()
    assert not at.exception, at.exception
    return at


def _frame(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _no_none(frame) -> None:
    """Nothing the grid would draw as "None": no missing value in any cell."""
    assert not frame.isna().any().any(), frame[frame.isna().any(axis=1)]


def _done_eval_runs(db_url):
    from storage.db import make_engine
    from storage.runs import list_runs

    engine = make_engine(db_url)
    try:
        return [r for r in list_runs(engine, kind="eval") if r.status == "done"]
    finally:
        engine.dispose()


def test_an_evaluation_started_on_the_page_lands_in_the_table(db_url):
    at = _runs_page(AppTest.from_file(APP, default_timeout=180))
    assert at.title[0].value == "Runs"
    assert any("No finished runs yet" in i.value for i in at.info), [i.value for i in at.info]
    assert at.selectbox(key="runs_new_set").value.name == "demo"
    assert any("offline operators" in c.value for c in at.caption)  # the session's backend, said so
    next(n for n in at.number_input if n.label == "Queries").set_value(12)
    at.multiselect(key="runs_new_strategies").set_value(["query", "scattershot"])
    at.number_input(key="runs_new_k").set_value(3)
    at.button(key="runs_new_start").click().run()
    assert not at.exception, at.exception
    assert at.session_state["runs_job"][0] == "eval"

    deadline = time.monotonic() + 300  # the job embeds the demo first: wait for its runs in the store
    while len(_done_eval_runs(db_url)) < 2:
        assert time.monotonic() < deadline, "the evaluation job did not finish"
        time.sleep(0.5)
    stored = _done_eval_runs(db_url)
    # the job may still be computing its report after the second run is written: rerun until it says so
    while not at.success:
        assert time.monotonic() < deadline, "the page never reported the finished job"
        time.sleep(0.5)
        at.run()
    assert not at.exception, at.exception
    message = at.success[0].value
    assert all(f"run #{r.id} {r.strategy}" in message for r in stored), message

    table = _frame(at, "kind")
    assert list(table["run"]) == [f"#{r.id}" for r in stored]  # newest first
    assert list(table["strategy"]) == ["scattershot", "query"] and set(table["kind"]) == {"evaluation"}
    assert set(table["k"]) == {3} and set(table["queries"]) == {12}
    assert list(table["catalog · queries"]) == ["demo v5 · demo"] * 2
    assert list(table["LLM"]) == ["offline rules", "not used"]
    _no_none(table)
    # stored as normal eval runs: the config the CLI's `eval` stores, with the 12 query ids
    assert {len(r.config["query_ids"]) for r in stored} == {12} and {r.config["k"] for r in stored} == {3}
    # compared by default against the `query` run
    query_run = next(r.id for r in stored if r.strategy == "query")
    baseline = next(s for s in at.selectbox if s.label == "Baseline")
    assert baseline.value == query_run


def test_runs_at_other_k_and_playground_runs_show_without_none(db_url):
    from core.context import LLMConfig
    from core.evaluation import evaluate, load_run, select_queries
    from core.playground_runs import finish_playground_run, open_playground_run, record_strategy
    from core.scoring import score
    from core.settings import Settings, build_workspace
    from core.strategies.registry import make_strategy
    from storage.catalogs import list_query_sets, load_queries

    ws = build_workspace(Settings(db_url=db_url))
    demo = ws.ensure_demo().latest
    qs = list_query_sets(ws.db, "demo")[0]
    queries = select_queries(load_queries(ws.db, qs.id), limit=12)
    first = evaluate(ws, demo.id, qs.id, queries, strategy="query", k=5)
    hybrid = evaluate(ws, demo.id, qs.id, queries, strategy="query", k=10, params={"mode": "hybrid", "alpha": 0.5})
    bm25 = evaluate(ws, demo.id, qs.id, queries, strategy="query", k=5, params={"mode": "bm25"})
    play = open_playground_run(ws.db, demo.id, query="weather in Oslo tomorrow?", gold=(), k=5, seed=0,
                               strategies={"query": {}}, llm=LLMConfig().identity(), session_memory=False)
    record_strategy(ws.db, play, "query", make_strategy("query", ws.search_engine(demo.id)).retrieve("weather", 5))
    finish_playground_run(ws.db, play)

    at = _runs_page(AppTest.from_file(APP, default_timeout=180))
    table = _frame(at, "kind")
    _no_none(table)
    assert list(table["run"]) == [f"#{i}" for i in (play, bm25.run_id, hybrid.run_id, first.run_id)]
    assert list(table["kind"]) == ["playground", "evaluation", "evaluation", "evaluation"]
    assert list(table["k"]) == [5, 5, 10, 5]
    # each metric at the row's own k: the k = 10 run's recall is its recall@10
    assert table["recall@k"].iloc[2] == f"{hybrid.metrics['recall@10']:.3f}"
    assert table["recall@k"].iloc[1] == f"{bm25.metrics['recall@5']:.3f}"
    assert list(table.iloc[0][["recall@k", "nDCG@k", "MRR", "CSR@k"]]) == ["–"] * 4  # no gold: not measured
    assert table["strategy"].iloc[2] == "query (alpha=0.5, mode=hybrid)"
    assert table["s / query"].dtype.kind == "f" and (table["s / query"] > 0).all()
    captions = " ".join(c.value for c in at.caption)
    assert "measured at its row's own k (5, 10 here)" in captions and "Playground rows are single queries" in captions

    # nothing ticked: the plain `query` run (default parameters) is the baseline, beside the BM25 run at its k
    baseline = next(s for s in at.selectbox if s.label == "Baseline")
    assert baseline.value == first.run_id
    summary = _frame(at, "role")
    _no_none(summary)
    assert list(summary["run"]) == [f"#{first.run_id} query", f"#{bm25.run_id} query (mode=bm25)"]
    assert list(summary["role"]) == ["baseline", "compared"] and list(summary["k"]) == [5, 5]
    # the per-query table: a score for every query of the baseline
    _no_none(_frame(at, "text"))
    # any stored eval run downloads as a report; nothing ticked: the newest one is offered first
    report = next(s for s in at.selectbox if s.label == "Report of run")
    assert report.value == bm25.run_id and set(report.options) >= {f"#{bm25.run_id} evaluation · query · demo@v5"}

    # one cut-off for both: their stored rankings scored again at k = 3, nothing run again; CSR is not re-cut
    at.selectbox(key="runs_cutoff_5").set_value(3).run()
    assert not at.exception, at.exception
    summary = _frame(at, "role")
    _no_none(summary)
    assert list(summary["k"]) == [3, 3] and "CSR@k" not in summary.columns
    expected = [score(load_run(ws, r.run_id), metrics=["recall@3"]).mean("recall") for r in (first, bm25)]
    assert list(summary["recall@k"]) == pytest.approx(expected)
    assert "CSR" not in [o for s in at.selectbox if s.label == "Metric" for o in s.options]


def test_a_grid_is_shown_as_cells_by_metrics_and_compared(db_url, hashing_embedder):
    """Runs made by `toolatlas grid` (core.grid.run_cells): picking the grid lists its runs only, as one row per
    cell with every metric, and the comparison takes every cell when nothing is ticked."""
    from core.evaluation import evaluate
    from core.grid import QueryInput, expand, parse_grid, run_cells
    from core.workspace import Workspace
    from storage.catalogs import list_query_sets, load_queries
    from storage.db import make_engine

    ws = Workspace(make_engine(db_url), hashing_embedder)
    demo = ws.ensure_demo().latest
    qs = next(s for s in list_query_sets(ws.db, "demo") if s.name == "demo")
    queries = tuple(load_queries(ws.db, qs.id)[:6])
    inputs = {"demo": QueryInput(qs.id, queries)}
    spec = parse_grid("name: alpha sweep\ncatalog: demo\nquery_set: demo\nk: 3\nstrategies:\n  - query\n"
                      "  - {name: query, params: {mode: hybrid, alpha: [0.3, 0.7]}}\n")
    cells = run_cells(ws, spec.name, expand(spec), demo.id, inputs)
    other = evaluate(ws, demo.id, qs.id, queries, strategy="query", k=3, params={"mode": "bm25"})  # no grid

    at = _runs_page(AppTest.from_file(APP, default_timeout=180))
    assert len(_frame(at, "kind")) == 4  # every run until a grid is picked
    picker = at.selectbox(key="runs_grid")
    assert picker.options == ["every run (no grid)", "alpha sweep"]
    picker.set_value("alpha sweep").run()
    assert not at.exception, at.exception
    grid = _frame(at, "params")
    assert list(grid["run"]) == [f"#{r.run_id}" for r in reversed(cells)]  # newest first, as the table
    assert list(grid["params"]) == ["alpha=0.7, mode=hybrid", "alpha=0.3, mode=hybrid", "(defaults)"]
    assert {"recall@k", "nDCG@k", "P@k", "comp@k", "MRR", "CSR@k"} <= set(grid.columns)
    assert list(grid["recall@k"]) == pytest.approx([r.metrics["recall@3"] for r in reversed(cells)])
    _no_none(grid)
    table = _frame(at, "kind")
    assert f"#{other.run_id}" not in set(table["run"]) and len(table) == 3
    summary = _frame(at, "role")  # nothing ticked: every cell, the plain `query` run the baseline
    assert list(summary["run"])[0] == f"#{cells[0].run_id} query" and len(summary) == 3
    assert any("every cell of the grid" in c.value for c in at.caption)
