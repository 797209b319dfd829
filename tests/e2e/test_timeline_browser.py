import re

import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_timeline_runs_and_the_step_slider_moves_the_map(app_url, page):
    page.goto(f"{app_url}/timeline", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Timeline").first.wait_for(timeout=120_000)
    run = page.get_by_role("button", name="Run timeline")
    run.wait_for(timeout=180_000)
    if page.get_by_text("No timeline has been run").count():
        # a short run: the demo's five versions, every method, the first 30 gold queries
        box = page.get_by_label("Queries (first N)")
        box.fill("30")
        box.press("Enter")
        page.wait_for_timeout(1000)
        run.click()
    page.get_by_text("Catalog map by step").wait_for(timeout=400_000)
    page.locator(".js-plotly-plot").nth(4).wait_for(timeout=60_000)  # the map is the fifth figure
    header = page.get_by_role("heading", name=re.compile(r"^Regressions at step"))
    before = header.inner_text()
    assert "t1 · v2" in before
    assert page.locator(".gtitle").filter(has_text="Step t1 · v2").count() == 1

    step = page.locator("[data-testid='stSlider']").filter(has=page.get_by_text("Step", exact=True))
    thumb = step.get_by_role("slider")
    thumb.focus()
    thumb.press("ArrowRight")
    page.get_by_role("heading", name=re.compile(r"^Regressions at step t2 · v3")).wait_for(timeout=60_000)
    page.locator(".gtitle").filter(has_text="Step t2 · v3").wait_for(timeout=60_000)
    assert header.inner_text() != before
    # Streamlit scrolls inside its main block, so a full-page shot needs a viewport as tall as the content
    height = page.evaluate("""() => Math.max(document.body.scrollHeight,
        ...[...document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppScrollToBottomContainer']")]
            .map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 40, 9000)})
    page.wait_for_timeout(2500)  # let the figures redraw at the new size
    assert page.get_by_text("Traceback").count() == 0
    assert screenshot(page, "timeline").stat().st_size > 50_000
    assert page.dialogs == []
