import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_deep_link_on_fresh_server_goes_through_navigation(app_url, page):
    page.goto(f"{app_url}/runs", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Runs").first.wait_for(timeout=120_000)
    page.get_by_text("Strategy playground").first.wait_for(timeout=30_000)  # our titles, not file names


def test_search_in_real_browser(app_url, page):
    page.goto(app_url, wait_until="domcontentloaded")
    page.get_by_role("heading", name="Catalog").first.wait_for(timeout=120_000)
    box = page.get_by_label("Search the catalog")
    box.wait_for(timeout=120_000)
    box.fill("convert 100 US dollars into euros")
    box.press("Enter")
    page.get_by_text("results in").first.wait_for(timeout=60_000)
    card_heading = page.locator("h4").first
    card_heading.wait_for(timeout=30_000)
    assert "currenc" in card_heading.inner_text().lower() or "exchange" in card_heading.inner_text().lower()
    path = screenshot(page, "catalog_search")
    assert path.stat().st_size > 10_000
    assert page.dialogs == []
