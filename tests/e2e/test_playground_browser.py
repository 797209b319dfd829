import pytest

from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _full_height(page) -> None:
    """Streamlit scrolls inside its main block, so a full-page shot needs a viewport as tall as the content."""
    height = page.evaluate("""() => Math.max(document.body.scrollHeight,
        ...[...document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppScrollToBottomContainer']")]
            .map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 40, 9000)})
    settle(page)


def test_playground_animation_in_real_browser(app_url, page):
    page.goto(f"{app_url}/playground", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Strategy playground").first.wait_for(timeout=120_000)
    page.get_by_text("Start here:").first.wait_for()
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("heading", name="Outcome").wait_for(timeout=180_000)
    # on a fresh store the catalog map (UMAP) is computed after the outcome table: allow for it
    page.get_by_role("heading", name="How one strategy searched").wait_for(timeout=240_000)
    settle(page)
    # the evolving strategy opens first, its search map right under the outcome
    chosen = page.locator("[data-testid='stButtonGroup'] button[aria-checked='true']")
    assert chosen.first.inner_text().strip() == "memetic"
    plot = page.locator(".js-plotly-plot:visible").first
    plot.wait_for(timeout=60_000)
    names = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => t.name)")
    assert names[-1] == "gold tool"  # drawn last: on top of every population marker
    top = plot.bounding_box()["y"] + page.evaluate(
        "() => document.querySelector(\"[data-testid='stMain']\").scrollTop")
    assert top < 1400  # the key chart starts within a screen and a half, not 2,000 px down
    screenshot(page, "playground_top")  # 1400×1000, as a visitor first sees it

    plot.scroll_into_view_if_needed()
    current = plot.locator(".slider-group > text.slider-label")  # the slider's "generation g" heading
    assert current.text_content() == "generation 1"  # the same numbering as the fitness chart's axis
    plot.get_by_text("▶ Play").click()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot .slider-group > text.slider-label').textContent"
        " === 'generation 3'",
        timeout=30_000)
    assert page.get_by_text("generation 0").count() == 0
    assert page.get_by_text("mean s_ret").count() == 0
    _full_height(page)
    path = screenshot(page, "playground")
    assert path.stat().st_size > 20_000
    assert page.get_by_text("Traceback").count() == 0
    assert page.dialogs == []
