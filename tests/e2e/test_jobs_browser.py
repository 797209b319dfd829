"""Long work runs as a background job of the app: leaving a page while a fresh app embeds the demo does not stop
the embedding, the Runs page lists it until it is done, and coming back needs no second embedding."""

import pytest

from tests.e2e.conftest import screenshot, start_app, stop_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PANEL_DONE = ("() => [...document.querySelectorAll('summary, [data-testid=\"stExpander\"] p')]"
              ".some(e => /: 0 under way, 1 finished/.test(e.innerText))")


SEEN_EMBEDDING = """
window.__sawEmbedding = false;
new MutationObserver(() => {
  if (document.body && /Embedding/.test(document.body.innerText)) window.__sawEmbedding = true;
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


@pytest.fixture
def fresh_app(tmp_path):
    """An app of its own, on an empty store: its first visit embeds the demo catalog (several seconds)."""
    proc, url = start_app(f"sqlite:///{tmp_path / 'jobs.db'}", tmp_path / "streamlit.log")
    yield url
    stop_app(proc)


def test_work_left_mid_way_goes_on_and_is_not_redone_on_return(fresh_app, page):
    page.goto(f"{fresh_app}/overlap_map", wait_until="domcontentloaded")
    page.get_by_text("Embedding", exact=False).first.wait_for(timeout=180_000)
    # leave at once: a new page load ends this browser session's script run, not the job
    page.goto(f"{fresh_app}/runs", wait_until="domcontentloaded")
    panel = page.get_by_text("Background work in this app")
    panel.first.wait_for(timeout=60_000)
    screenshot(page, "jobs_panel")
    page.wait_for_function(PANEL_DONE, timeout=240_000)  # the panel refreshes itself until the job is over

    # back on a page that needs the engine: it must not show an embedding progress bar at any moment
    page.add_init_script(SEEN_EMBEDDING)
    page.goto(f"{fresh_app}/catalog", wait_until="domcontentloaded")
    page.get_by_label("Search the catalog").first.wait_for(timeout=60_000)
    assert page.evaluate("() => window.__sawEmbedding") is False
    page.goto(f"{fresh_app}/runs", wait_until="domcontentloaded")
    page.get_by_text("Background work in this app").first.wait_for(timeout=60_000)
    # still one finished job: the Catalog page found the engine the job had built and embedded nothing again
    page.wait_for_function(PANEL_DONE, timeout=30_000)
    page.wait_for_timeout(1500)  # the table draws on a canvas after the expander
    assert screenshot(page, "jobs_panel_done").stat().st_size > 10_000
    assert page.dialogs == []
