"""The HTML report: one file that opens from disk with the network cut off, every figure drawn, no console
error, and a hostile catalog's text shown as text."""

from __future__ import annotations

import pytest

from core.check.report import render_html
from core.check.service import CheckConfig, run_check
from core.check.summary import markdown
from tests.core.check.conftest import BASE, QUERIES, replace, side, tool
from tests.offline_report import figures_drawn, offline_page

SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"


@pytest.fixture
def hostile_result(hashing_embedder):
    """NEW adds a tool named and described with markup, breaks a schema and rewords a gold tool."""
    evil = tool("evil_tool", f"Reads {SCRIPT} and {IMG} then reports the weather forecast for a city",
                {"city": ("string", f"City {IMG}")}, ["city"], f"Cat {SCRIPT}")
    evil = type(evil)(**{**evil.__dict__, "name": f"evil{SCRIPT}"})
    new = replace(BASE, "convert_currency", description="Exchange a sum between two monetary units at the market rate")
    new = (*replace(new, "play_music", description="", parameters={}), evil)
    return run_check(side(f"base{IMG}.json", BASE), side("new.json", new), embedder=hashing_embedder,
                     queries=QUERIES, config=CheckConfig(k=1, threshold=0.5), map_method="pca")


def test_the_report_escapes_catalog_text_and_needs_no_network(hostile_result):
    doc = render_html(hostile_result)
    assert SCRIPT not in doc and IMG not in doc
    assert "evil&lt;script&gt;window.__pwned" in doc
    assert "<script src" not in doc.replace(" ", "").lower() and "<link" not in doc.lower()
    assert doc.index("class='verdict fail'") < doc.index("id='s0'")  # the verdict comes first
    assert doc.count("class='query'") == len(hostile_result.retrieval.regressions) + len(
        hostile_result.retrieval.discovered) >= 1


def test_the_markdown_summary_keeps_catalog_text_in_code_spans(hostile_result):
    md = markdown(hostile_result)
    assert md.startswith("### ❌ toolatlas check: FAIL: breaking, regression")
    line = next(ln for ln in md.splitlines() if "added" in ln and "evil" in ln)
    assert line == "- added `evil<script>window.__pwned = 'script'</script>`"  # inside a code span: shown, not run
    assert "**Retrieval regressions**" in md and "doc changed" not in md  # causes are said in words


def test_the_report_opens_offline_in_chromium(hostile_result, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(render_html(hostile_result), encoding="utf-8")
    with offline_page() as (page, blocked, errors):
        page.goto(path.as_uri(), wait_until="load")
        assert figures_drawn(page) == 2  # the retrieval bars and the two maps
        assert page.evaluate("window.__pwned") is None
        assert page.locator("img").count() == 0
        assert "evil<script>" in page.inner_text("body")  # the markup is shown as the text it is
    assert blocked == [] and errors == []
