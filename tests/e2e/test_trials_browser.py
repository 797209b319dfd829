import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Streamlit scrolls inside its main block: the page's height is the tallest of these
PAGE_HEIGHT_JS = """() => Math.max(document.body.scrollHeight,
    ...[...document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppScrollToBottomContainer']")]
        .map(e => e.scrollHeight))"""
# With the first three candidates open, the raw-JSON traces made this page 6,705 px tall (issue 16 item 7
# measured 7,400 px); the step rows made it about 2,900 px. Trials over a pool of 20 reported at @5 and @10
# (issue 15) add the cut-off measures and the evidence column above the traces: 3,780 px. The bar stays well
# under the raw-JSON height.
MAX_HEIGHT_THREE_OPEN = 4_000


def open_expander(expander, inside: str, *, timeout: float = 120.0) -> None:
    """Open ``expander`` until ``inside`` shows in it. The page's expanders are lazy (their body comes with the
    rerun the click starts), and a rerun that lands between the click and the browser's redraw (a job follower
    finishing, on a loaded machine) can draw the expander closed again; then it is clicked again."""
    target = expander.get_by_text(inside).first
    details = expander.locator("details").first
    deadline = time.monotonic() + timeout
    while True:
        # Lazy expanders fill in on the rerun a click starts: click only when it is drawn closed.
        if not target.is_visible() and details.get_attribute("open") is None:
            expander.locator("summary").click()
        try:
            target.wait_for(timeout=10_000)
            return
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise


def test_trials_for_one_query_show_each_trial_as_a_readable_row(app_url, page):
    page.goto(f"{app_url}/trials", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Trials").first.wait_for(timeout=120_000)
    page.get_by_role("button", name="Run trials").wait_for(timeout=180_000)  # first visit embeds the demo
    # one line under the title says what the page is for and what to do first
    assert page.locator("[data-testid='stCaptionContainer']").filter(has_text="press Run trials").count() == 1
    page.get_by_text("Free text").click()
    settle(page)
    box = page.get_by_label("Request", exact=True)
    box.fill("Please find me a flight from JFK to LHR on 12 March.")
    box.press("Enter")
    settle(page)
    page.get_by_role("button", name="Run trials").click()
    page.get_by_text("Trace per candidate").wait_for(timeout=180_000)
    settle(page)
    # the ranking before → after is still there, with the outcome of each candidate
    assert page.get_by_role("heading", name="Ranking before → after").count() == 1
    assert page.locator("[data-testid='stDataFrame']").count() == 1
    page.locator("[data-testid='stExpander'] summary").filter(has_text="FUNCTIONAL_SUCCESS").first.wait_for()

    expanders = page.locator("[data-testid='stExpander']")
    assert expanders.count() >= 3
    for i in range(3):
        open_expander(expanders.nth(i), "Verdict")
    settle(page)
    first = expanders.first
    assert "search_flights" in first.locator("summary").inner_text()
    # plan: the arguments as a small table (name, value, where it came from)
    table = first.locator("[data-testid='stTable']")
    assert table.count() == 1
    text = table.inner_text()
    assert "argument" in text and "where it came from" in text and "origin" in text and "JFK" in text and "LHR" in text
    # call, answer and verdict: one row of cells, readable, not JSON
    assert first.get_by_text("via mcp-demo").count() == 1
    assert first.get_by_text("flights: 3 items").count() == 1
    assert first.get_by_text("Functional success").count() == 1
    assert first.get_by_text("the call ran and its answer serves the request").count() == 1  # the judge agreed
    assert expanders.locator("[data-testid='stCode']").filter(visible=True).count() == 0  # no JSON dump in sight
    height = page.evaluate(PAGE_HEIGHT_JS)
    print(f"Trials page height with 3 candidates open: {height} px")
    assert height < MAX_HEIGHT_THREE_OPEN, height

    # the answer's full JSON is one click away
    first.get_by_role("button", name="Full JSON").click()
    code = page.locator("[data-testid='stCode']").filter(has_text="flight_number").filter(visible=True)
    code.first.wait_for(timeout=30_000)
    page.keyboard.press("Escape")
    code.first.wait_for(state="hidden", timeout=30_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no focus ring in the shot

    first.scroll_into_view_if_needed()
    assert screenshot(page, "trials_trace").stat().st_size > 20_000
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 40, 9000)})
    settle(page)
    assert screenshot(page, "trials_trace_full").stat().st_size > 50_000
    assert page.get_by_text("Traceback").count() == 0
    assert page.dialogs == []
