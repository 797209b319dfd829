"""Long work runs as a background job of the app: leaving the Overlap map while its first map is computed does not
stop the computation, the Runs page lists the job, and coming back shows the map without starting it again."""

import pytest

from tests.e2e.conftest import screenshot, start_app, stop_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def fresh_app(tmp_path):
    """An app of its own: its first UMAP (numba compiles on first use) takes long enough to leave mid-way."""
    proc, url = start_app(f"sqlite:///{tmp_path / 'jobs.db'}", tmp_path / "streamlit.log")
    yield url
    stop_app(proc)


def _jobs_panel(page, app_url):
    page.goto(f"{app_url}/runs", wait_until="domcontentloaded")
    panel = page.get_by_text("Background work in this app")
    panel.first.wait_for(timeout=60_000)
    return panel.first.inner_text()


def test_a_map_left_mid_way_goes_on_and_is_there_on_return(fresh_app, page):
    page.goto(f"{fresh_app}/overlap_map", wait_until="domcontentloaded")
    page.get_by_text("Computing the UMAP map", exact=False).first.wait_for(timeout=240_000)  # after the embedding
    # leave at once: a new page load ends this browser session's script run
    label = _jobs_panel(page, fresh_app)
    assert "under way" in label, label
    screenshot(page, "jobs_panel_running")
    page.wait_for_function(
        "() => [...document.querySelectorAll('summary, [data-testid=\"stExpander\"] p')]"
        ".some(e => /: 0 under way/.test(e.innerText))", timeout=240_000)  # the panel refreshes itself

    page.goto(f"{fresh_app}/overlap_map", wait_until="domcontentloaded")
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    # the map came from the job's cache: no progress bar for a second computation
    assert page.get_by_text("Computing the UMAP map").count() == 0
    assert screenshot(page, "jobs_map_after_return").stat().st_size > 20_000
    assert page.dialogs == []
