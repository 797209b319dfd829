import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_playground_animation_in_real_browser(app_url, page):
    page.goto(f"{app_url}/playground", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Strategy playground").first.wait_for(timeout=120_000)
    page.get_by_role("button", name="Run").click()
    page.get_by_role("heading", name="Outcome").wait_for(timeout=180_000)
    # on a fresh store the catalog map (UMAP) is computed after the outcome table: allow for it
    page.get_by_role("tab", name="memetic").wait_for(timeout=240_000)
    page.get_by_role("tab", name="memetic").click()
    page.locator(".js-plotly-plot:visible").first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot:visible").first.scroll_into_view_if_needed()
    page.get_by_text("▶ Play").locator("visible=true").first.click()
    page.wait_for_timeout(4500)  # three generations at 0.9 s a frame: the last frame is showing
    path = screenshot(page, "playground")
    assert path.stat().st_size > 20_000
    assert page.dialogs == []
