"""AppTest of the Trials page: a stored run's ranking with its evidence column, both cut-offs in the query-set
view, and "Re-run this candidate" as a background job whose new evidence is stored and shown."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def _stored_run(db_url, n: int):
    """A trials run on the demo's first ``n`` queries with no executor: every candidate NOT_EXECUTED."""
    from core.settings import Settings, build_workspace
    from core.trials.pipeline import TrialConfig
    from core.trials.service import run_trial_set
    from storage.catalogs import get_version, list_query_sets, load_queries

    ws = build_workspace(Settings(db_url=db_url))
    ws.ensure_demo()
    version = get_version(ws.db, "demo")
    queries = [q for q in load_queries(ws.db, list_query_sets(ws.db, "demo")[0].id) if q.gold][:n]
    return ws, run_trial_set(ws, version.id, queries, None, config=TrialConfig(k=12, today="2025-06-02"))


def _trials(at: AppTest) -> AppTest:
    settle(at.switch_page("pages/trials.py").run())
    assert not at.exception, at.exception
    return at


def test_rerun_a_candidate_runs_as_a_job_and_the_page_shows_the_new_evidence(db_url):
    from storage import runs

    ws, run = _stored_run(db_url, 1)
    report = run.reports[0]
    gold = report.gold[0]
    assert report.trial(gold).outcome == "NOT_EXECUTED"
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["trials_last"] = (run.run_id, report.query_id)
    _trials(at)
    table = next(d.value for d in at.dataframe if "evidence" in d.value.columns)
    assert len(table) == 12 and set(table["evidence"]) <= {"○ not called", "✗ failed"}
    untried = table["evidence"].tolist().count("○ not called")
    # a candidate's trace and its Re-run button are drawn once its (lazy) expander is open
    assert not [b for b in at.button if b.key == f"trials_rerun_btn_{gold}"]
    at.session_state[f"trials_open_{gold}"] = True  # what a click on the expander sets
    _trials(at)
    # the click starts a job (the demo's MCP server is agreed to by default); the page follows it, then draws
    # the report from the store with the new evidence
    settle(at.button(key=f"trials_rerun_btn_{gold}").click().run())
    assert not at.exception, at.exception
    items = runs.load_items(ws.db, run.run_id)
    assert f"{report.query_id}!rerun-1" in items
    fresh = items[f"{report.query_id}!rerun-1"]
    assert next(t for t in fresh["trials"] if t["key"] == gold)["outcome"] != "NOT_EXECUTED"
    table = next(d.value for d in at.dataframe if "evidence" in d.value.columns)
    assert table["evidence"].tolist().count("○ not called") == untried - 1


def test_the_query_set_view_reports_both_cutoffs(db_url):
    _, run = _stored_run(db_url, 2)
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["trials_set_last"] = run.run_id
    at.session_state["trials_view"] = "Query set"
    _trials(at)
    frame = next(d.value for d in at.dataframe if "measure" in d.value.columns)
    assert {"recall@5", "recall@10", "pass@5", "pass@10", "ndcg@10"} <= set(frame["measure"])
    captions = " ".join(c.value for c in at.caption)
    assert "12 candidates tried and re-ranked per query; measured at @5 and @10" in captions
