import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_merge_review_accept_and_map_before_after(app_url, page):
    page.goto(f"{app_url}/merge_review", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Merge review").first.wait_for(timeout=120_000)
    page.get_by_role("button", name="Run merge").wait_for(timeout=180_000)  # first visit embeds the demo
    page.get_by_role("button", name="Run merge").click()
    page.get_by_text("Pair verdicts").wait_for(timeout=180_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000)
    # the Cancel shown while the merge ran is gone once it is over
    assert page.get_by_role("button", name="Cancel").count() == 0
    page.get_by_role("button", name="Accept").click()
    page.get_by_text("— accepted").wait_for(timeout=60_000)  # the cluster heading shows the new status
    page.get_by_text("History").wait_for(timeout=30_000)
    assert screenshot(page, "merge_review").stat().st_size > 20_000

    page.goto(f"{app_url}/overlap_map", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Overlap map").first.wait_for(timeout=120_000)
    page.get_by_text("Merge cluster").click()
    page.get_by_text("After merging ·").first.wait_for(timeout=180_000)  # the after-merge panel beside the original
    page.wait_for_timeout(1500)
    assert page.locator(".js-plotly-plot:visible").count() >= 1  # one figure, two panels
    assert screenshot(page, "overlap_before_after").stat().st_size > 20_000
    assert page.dialogs == []
