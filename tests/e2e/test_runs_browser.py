"""The Runs page in a real browser: an evaluation started from its form runs as a background job, and its run
appears in the table (no "None" anywhere in it) once the server has stored it."""

import re

import pytest

from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

FULL_HEIGHT = """() => Math.max(document.body.scrollHeight,
    ...[...document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppScrollToBottomContainer']")]
        .map(e => e.scrollHeight))"""


def _cells(table) -> list[str]:
    """The grid draws on a canvas; its accessible table holds the text of the rows on screen."""
    return table.locator("td[role='gridcell']").all_inner_texts()


def test_an_evaluation_started_from_the_page_appears_in_the_table(app_url, page):
    page.goto(f"{app_url}/runs", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Runs").first.wait_for(timeout=120_000)
    start = page.get_by_role("button", name="Start evaluation")
    start.wait_for(timeout=120_000)
    settle(page)
    box = page.get_by_role("spinbutton", name="Queries")
    box.fill("15")
    box.press("Enter")
    settle(page)
    k = page.get_by_role("spinbutton", name="k", exact=True)
    k.fill("3")
    k.press("Enter")
    settle(page)
    page.locator("[data-testid='stMultiSelect']").click()  # beside `query`, a strategy to compare it with
    page.get_by_role("option", name="scattershot", exact=True).click()
    page.keyboard.press("Escape")
    settle(page)
    start.click()

    # the job embeds the demo first on a fresh server; the page polls it and reruns once it is over
    done = page.get_by_text(re.compile(r"^Evaluation finished: run #\d+ query, .*; run #\d+ scattershot"))
    done.wait_for(timeout=300_000)
    run_id, other_id = re.search(r"run #(\d+) query, .*; run #(\d+) scattershot", done.inner_text()).groups()
    table = page.locator(".st-key-runs_table_box [data-testid='stDataFrame']")
    row = table.locator("tr[role='row']").filter(has=page.locator("td", has_text=re.compile(rf"^#{run_id}$")))
    row.first.wait_for(state="attached", timeout=60_000)
    settle(page)
    cells = row.first.locator("td[role='gridcell']").all_inner_texts()
    assert cells[:2] == [f"#{run_id}", "evaluation"] and cells[2] == "query", cells
    assert "3" in cells and "15" in cells, cells  # k and the number of queries asked for
    assert all(re.fullmatch(r"[01]\.\d{3}", c) for c in cells[6:10]), cells  # recall, nDCG, MRR, CSR
    other = table.locator("tr[role='row']").filter(has=page.locator("td", has_text=re.compile(rf"^#{other_id}$")))
    assert other.first.locator("td[role='gridcell']").all_inner_texts()[1:3] == ["evaluation", "scattershot"]
    assert "None" not in _cells(table)
    # nothing ticked: the new `query` run is the baseline of the comparison below
    summary = page.locator("[data-testid='stDataFrame'] tr[role='row']").filter(
        has=page.locator("td", has_text=re.compile(rf"^#{run_id} query$")))
    summary.filter(has=page.locator("td", has_text=re.compile(r"^baseline$"))).first.wait_for(state="attached",
                                                                                            timeout=30_000)
    page.get_by_role("heading", name="Significance against the baseline").wait_for(timeout=30_000)  # 15 shared
    page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0
    assert screenshot(page, "runs").stat().st_size > 20_000  # the first screen at 1400 x 1000

    # Streamlit scrolls inside its main block, so a full-height shot needs a viewport as tall as the content
    page.set_viewport_size({"width": 1400, "height": min(int(page.evaluate(FULL_HEIGHT)) + 40, 9000)})
    table.locator("td[role='gridcell']").filter(has_text=re.compile(rf"^#{run_id}$")).first.wait_for(
        state="attached", timeout=30_000)  # the grid drawn again at the new size
    settle(page)
    assert screenshot(page, "runs_full").stat().st_size > 50_000
    assert page.dialogs == []
