"""Every page of the app in a real browser on the demo catalog, and the overlap map's lasso selection."""


from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAGES = [("catalog", "Catalog"), ("overlap_map", "Overlap map"), ("merge_review", "Merge review"),
         ("playground", "Strategy playground"), ("trials", "Trials"), ("timeline", "Timeline"), ("runs", "Runs"),
         ("settings", "Settings")]


@pytest.mark.parametrize("path,title", PAGES)
def test_every_page_renders_without_an_error(app_url, page, path, title):
    page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
    page.get_by_role("heading", name=title).first.wait_for(timeout=180_000)  # the first visit embeds the demo
    settle(page)
    errors = page.locator('[data-testid="stException"]')
    assert errors.count() == 0, errors.first.inner_text()
    assert page.get_by_text("Page not found").count() == 0  # Streamlit's own modal for an unknown path
    assert urlparse(page.url).path.endswith(f"/{path}")
    if path != "settings":  # every page with a catalog puts the app-wide selection in the address
        assert parse_qs(urlparse(page.url).query)["catalog"] == ["demo"]
    assert screenshot(page, f"page_{path}").stat().st_size > 10_000
    assert page.dialogs == []


def test_the_root_is_the_start_page_with_no_request_leaving_the_machine(app_url, page):
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(app_url) or r.url.startswith("data:")
            else outside.append(r.url))
    page.goto(app_url, wait_until="domcontentloaded")
    page.get_by_role("heading", name="Tool Atlas", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    assert page.get_by_text("Where to go").count() == 1 and page.get_by_text("Page not found").count() == 0
    assert outside == []  # the favicon is ours, not Google's font server


def test_overlap_map_lasso_selection_fills_the_table(app_url, page):
    page.goto(f"{app_url}/overlap_map", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Overlap map").first.wait_for(timeout=180_000)
    settle(page)
    plot = page.locator(".js-plotly-plot").first
    plot.wait_for(timeout=180_000)
    area = plot.locator(".nsewdrag").first  # plotly's drag surface over the axes
    box = area.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    w, h = box["width"] / 4, box["height"] / 4
    page.mouse.move(cx - w, cy - h)
    page.mouse.down()
    for x, y in ((cx + w, cy - h), (cx + w, cy + h), (cx - w, cy + h), (cx - w, cy - h + 1)):
        page.mouse.move(x, y, steps=8)
    page.mouse.up()
    page.get_by_text("selected tools").first.wait_for(timeout=60_000)
    settle(page)
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert screenshot(page, "overlap_lasso_selection").stat().st_size > 20_000
