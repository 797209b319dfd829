"""``run_report_html``: any stored eval, merge, trials or timeline run as one self-contained HTML file, made from
the store without running anything again; a hostile catalog's text stays text; it opens offline in Chromium."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest

from core.evaluation import evaluate
from core.merging.pipeline import MergeConfig
from core.merging.service import merge_version
from core.models import Query, Tool
from core.run_report import reportable_runs, run_report_html
from core.workspace import Workspace
from storage import ledger, runs
from storage.db import make_engine
from tests.offline_report import figures_drawn, offline_page

ASSETS = Path(__file__).resolve().parents[1] / "assets"
SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"


@pytest.fixture(scope="module")
def legacy(tmp_path_factory, minilm):
    """The store of tests/core/test_legacy_runs.py: eval runs 1 and 2, merge 4, trials 5, timeline 6 on demo v5."""
    path = tmp_path_factory.mktemp("legacy") / "legacy.sqlite"
    with gzip.open(ASSETS / "legacy_store_v1.sqlite.gz", "rb") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return Workspace(make_engine(f"sqlite:///{path}"), minilm)


def _text(doc: str) -> str:
    """The visible text of a report: scripts dropped, tags removed, whitespace collapsed."""
    body = re.sub(r"<script>.*?</script>", "", doc[doc.index("</head>"):], flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def _shell(doc: str) -> None:
    assert doc.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in doc and "default-src 'none'" in doc
    assert "<script src" not in doc.replace(" ", "").lower() and "<link" not in doc.lower()


@pytest.mark.parametrize(("run_id", "summary", "sections"), [
    (1, "evaluation run #1 · strategy query (defaults) · k=5 · 20 queries of demo · on demo@v5 · finished",
     ["recall@5", "0.9000", "demo-0001"]),
    (5, "trials run #5 · strategy query (defaults) · 3 queries · executors mcp-demo · on demo@v5 · finished",
     ["recall@10", "pass@5", "PLANNING_FAILED"]),
    (6, "timeline run #6 · markov sequence · methods original, contda", ["AvgPerf", "Paired test", "Original docs"]),
])
def test_each_kind_has_its_summary_first_its_metrics_and_a_figure(legacy, run_id, summary, sections):
    calls = len(ledger.list_calls(legacy.db, limit=100_000))
    doc = run_report_html(legacy, run_id)
    _shell(doc)
    text = _text(doc)
    assert summary in text
    assert text.index(summary) < text.index("Metrics")  # the one-line summary comes first
    assert all(s in text for s in sections)
    assert doc.count("class=\"plotly-graph-div\"") >= 1
    assert len(ledger.list_calls(legacy.db, limit=100_000)) == calls  # nothing was asked again


def test_the_evaluation_report_shows_the_stored_scores_per_query(legacy):
    text = _text(run_report_html(legacy, 1))
    stored = runs.get_run(legacy.db, 1).metrics
    assert f"ndcg@5 {stored['ndcg@5']:.4f}" in text and f"mrr {stored['mrr']:.4f}" in text
    assert text.count("demo-00") >= 20  # one row per query


@pytest.mark.slow
def test_a_merge_report_rebuilds_the_run_from_its_verdicts_and_says_what_was_not_measured(legacy):
    calls = len(ledger.list_calls(legacy.db, limit=100_000))
    doc = run_report_html(legacy, 4)
    text = _text(doc)
    assert "merge run #4 · judge offline:merge-rules-v2 · θ=0.68, k=30, Auto-Correction on · on demo@v5" in text
    assert "Clusters (19)" in text and "c001" in text and "rejected" in text  # the review's decisions
    assert "TCCR (ToolScope App. K.1) not measured" in text and "UCC (ToolScope App. K.1) not measured" in text
    assert "Recall@5" in text and doc.count("class=\"plotly-graph-div\"") == 2  # silhouette curves, cluster sizes
    assert len(ledger.list_calls(legacy.db, limit=100_000)) == calls


def test_unknown_ids_and_kinds_without_a_report_say_so(legacy):
    with pytest.raises(ValueError, match="no run with id 999"):
        run_report_html(legacy, 999)
    with pytest.raises(ValueError, match=r"run #3 is a reinvoke_index run; reports exist for eval .*evolution"):
        run_report_html(legacy, 3)
    assert [r[0] for r in reportable_runs(legacy)] == [6, 5, 4, 2, 1]


@pytest.fixture
def hostile(db, hashing_embedder):
    """A catalog whose name, tool names, descriptions and query text hold markup, with an eval and a merge run."""
    schema = {"type": "object", "properties": {"city": {"type": "string", "description": "city name"}},
              "required": ["city"]}
    tools = (Tool(key="t0", name=f"get_weather{SCRIPT}", description=f"Get the weather forecast for a city {IMG}",
                  parameters=schema),
             Tool(key="t1", name=f"GetWeather{SCRIPT}", description="Get the weather forecast for a city",
                  parameters=schema),
             Tool(key="mail", name="send_mail", description="Send an email message to a recipient"))
    queries = (Query("q1", f"weather in Paris {IMG}", ("t0",), "test"), Query("q2", "email my boss", ("mail",), "test"))
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools(f"evil{SCRIPT}", tools, queries=queries, query_set="gold")
    ev = evaluate(ws, report.version.id, report.query_set.id, queries, k=3, params={"mode": "bm25"})
    merged = merge_version(ws, report.version.id, MergeConfig(threshold=0.3, k=2))
    assert merged.result.summary()["clusters"] == 1
    return ws, ev.run_id, merged.run_id


def test_hostile_catalog_text_stays_escaped(hostile):
    ws, eval_id, merge_id = hostile
    for run_id in (eval_id, merge_id):
        doc = run_report_html(ws, run_id)
        _shell(doc)
        assert SCRIPT not in doc and IMG not in doc and "evil&lt;script&gt;" in doc
        assert "<img" not in doc[doc.index("</head>"):]
    assert "GetWeather&lt;script&gt;" in run_report_html(ws, merge_id)  # a cluster member's name, as text


def test_a_report_opens_offline_in_chromium_and_draws_its_figures(hostile, tmp_path):
    ws, eval_id, merge_id = hostile
    paths = []
    for run_id in (eval_id, merge_id):
        paths.append(tmp_path / f"run{run_id}.html")
        paths[-1].write_text(run_report_html(ws, run_id), encoding="utf-8")
    with offline_page() as (page, blocked, errors):
        for path in paths:
            page.goto(path.as_uri(), wait_until="load")
            assert figures_drawn(page) >= 1
            assert page.evaluate("window.__pwned") is None and page.locator("img").count() == 0
            assert "evil<script>" in page.inner_text("body")  # the markup shown as the text it is
    assert blocked == [] and errors == []
