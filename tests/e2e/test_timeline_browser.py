import re

import pytest

from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_timeline_runs_and_the_step_slider_moves_the_map(app_url, page):
    page.goto(f"{app_url}/timeline", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Timeline").first.wait_for(timeout=120_000)
    page.get_by_text("Start in the sidebar").first.wait_for()
    run = page.get_by_role("button", name="Run timeline")
    run.wait_for(timeout=180_000)
    # a short run: the demo's five versions, every method, the first 30 gold queries
    box = page.get_by_label("Queries (first N)")
    box.fill("30")
    box.press("Enter")
    settle(page)
    run.click()
    page.get_by_text("Catalog map by step").wait_for(timeout=400_000)
    settle(page)
    stored = page.get_by_label("Stored timeline")

    def stored_runs() -> list[str]:
        stored.click()
        options = page.get_by_role("option").all_inner_texts()
        page.keyboard.press("Escape")
        settle(page)
        return options

    runs = stored_runs()
    page.evaluate("""() => document.querySelectorAll(
        "[data-testid='stMain'], [data-testid='stSidebarContent'], [data-testid='stAppScrollToBottomContainer']"
    ).forEach(e => e.scrollTo(0, 0))""")
    screenshot(page, "timeline_top")  # 1400×1000, as a visitor first sees it
    assert page.get_by_text("± 0.00").count() == 0  # one seed: no spread shown, and the caption says n = 1
    page.get_by_text("one seed (n = 1)").first.wait_for()
    # the same settings again: the stored run is opened, nothing is computed or stored twice
    run.click()
    notice = page.get_by_text(re.compile(r"Already run: timeline #\d+")).first
    notice.wait_for(timeout=60_000)
    page.get_by_role("button", name="Run again anyway").wait_for()
    settle(page)
    assert stored_runs() == runs
    twin = re.search(r"#(\d+)", notice.inner_text()).group(1)
    assert any(o.startswith(f"#{twin} · versions") and "30 queries" in o for o in runs)
    assert stored.input_value().startswith(f"#{twin} · versions")  # the run with these settings is shown
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)  # the open tab's figure: success by step
    page.get_by_role("tab", name="Trade-off").click()  # lazy: its figure comes with the rerun
    page.get_by_text("CONTDA Fig. 4b").first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    page.get_by_role("tab", name="Catalog map by step").click()  # lazy: its body comes with the rerun
    page.locator(".gtitle").filter(has_text="Step t1 · v2").wait_for(timeout=60_000)
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
    settle(page)
    assert page.get_by_text("Traceback").count() == 0
    assert screenshot(page, "timeline").stat().st_size > 50_000
    assert page.dialogs == []
