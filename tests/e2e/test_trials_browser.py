import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_trials_for_one_query_show_the_trace(app_url, page):
    page.goto(f"{app_url}/trials", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Trials").first.wait_for(timeout=120_000)
    page.get_by_role("button", name="Run trials").wait_for(timeout=180_000)  # first visit embeds the demo
    page.get_by_text("Free text").click()
    box = page.get_by_label("Request")
    box.fill("Please find me a flight from JFK to LHR on 12 March.")
    box.press("Enter")
    page.wait_for_timeout(1000)
    page.get_by_role("button", name="Run trials").click()
    page.get_by_text("Trace per candidate").wait_for(timeout=180_000)
    # open the first candidate's trace: its step timeline and the JSON of every step
    page.locator("[data-testid='stExpander'] summary").first.click()
    page.locator("[data-testid='stExpander'] .js-plotly-plot").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)
    assert page.get_by_text("FUNCTIONAL_SUCCESS").count() >= 1
    assert screenshot(page, "trials_trace").stat().st_size > 20_000
    assert page.dialogs == []
