"""A catalog of HTML/JS/markdown payloads, imported through the real upload widget, renders inert on every page.

The payloads (tests/assets/hostile_tools.json and hostile_queries.jsonl) set ``window.__pwned`` instead of
calling alert where they can, and sit in names, keys, descriptions, categories, parameter names and
descriptions, enum values, query ids and texts, and the catalog name. On every page we fail on any dialog,
on ``window.__pwned``, on any element the payloads could have created (script, img/svg with handlers,
iframe, javascript: links, style blocks, KaTeX output, ``:red[…]`` turned into coloured text), and on
catalog payloads showing up anywhere but as literal text.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.app_server import start_app, stop_app
from tests.e2e.conftest import REPO, _need_browser, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ASSETS = REPO / "tests" / "assets"
MARKER = Path("/tmp/toolatlas-hostile-catalog-PWNED")  # what the file's mcp_command / command would touch
TOOLS = ASSETS / "hostile_tools.json"
QUERIES = ASSETS / "hostile_queries.jsonl"
# the catalog name is a payload too; it is shown in the pickers, chart titles and messages
NAME = 'hostile <img src=x onerror="window.__pwned=10"> :red[NAME-RED]'

INERT_JS = r"""
() => {
  const bad = [];
  if (window.__pwned !== undefined) bad.push('window.__pwned=' + window.__pwned);
  for (const s of document.querySelectorAll('script')) {
    if ((s.textContent || '').includes('pwned') || (s.getAttribute('src') || '').includes('pwned')) bad.push('script element');
  }
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const v = a.value || '';
      if (a.name.startsWith('on') && /pwned|alert/.test(v)) bad.push(el.tagName + ' ' + a.name + '=' + v.slice(0, 60));
      if (['href', 'src', 'xlink:href', 'srcdoc', 'action', 'formaction'].includes(a.name)
          && /^\s*javascript:|pwned/i.test(v) && !/^#[\w-]*$/.test(v)) {  // heading anchors (#slug) are fine
        bad.push(el.tagName + ' ' + a.name + '=' + v.slice(0, 60));
      }
    }
  }
  for (const f of document.querySelectorAll('iframe, object, embed')) bad.push(f.tagName + ' element');
  for (const i of document.querySelectorAll('img[src="x"], svg[onload]')) bad.push(i.tagName + ' from a payload');
  for (const s of document.querySelectorAll('style')) {
    if ((s.textContent || '').includes('body{display:none}')) bad.push('style element from a payload');
  }
  for (const k of document.querySelectorAll('.katex, .katex-display')) {
    if (/math link|pwned|href/.test(k.textContent || '')) bad.push('KaTeX rendered a payload');
  }
  for (const el of document.querySelectorAll('span, div, p, a, strong, em, h1, h2, h3, h4, li')) {
    // an interpreted :red[…] directive wraps its text in an element of its own
    if (['HOSTILE-RED', 'NAME-RED', 'bg'].includes((el.textContent || '').trim())) bad.push(':color[] directive interpreted');
    if (el.tagName === 'A' && /click me|anchor|math link/.test(el.textContent || '')) bad.push('link from a payload');
    if (el.tagName === 'H1' && (el.textContent || '').includes('Heading injection')) bad.push('heading injection');
  }
  return bad;
}
"""


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory):
    """The app on its own store (a known DB URL, so the CLI can add an eval run for the Runs page)."""
    _need_browser()
    db_url = f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'atlas.db'}"
    try:
        proc, url = start_app(db_url, tmp_path_factory.mktemp("hostile-log") / "streamlit.log")
    except RuntimeError as err:
        pytest.fail(str(err))
    yield url, db_url
    stop_app(proc)


def settle(page, extra_ms: int = 400) -> None:
    """Wait until the script run is over (the status widget is gone)."""
    page.wait_for_timeout(extra_ms)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=180_000)
    page.wait_for_timeout(300)


def check_inert(page, where: str) -> None:
    bad = page.evaluate(INERT_JS)
    assert bad == [], f"{where}: payload interpreted: {bad}"
    assert page.dialogs == [], f"{where}: dialogs opened: {page.dialogs}"
    exc = page.locator("[data-testid='stException']")
    assert exc.count() == 0, f"{where}: exception shown: {exc.first.inner_text()[:500]}"


def open_page(page, url: str, heading: str) -> None:
    """Through the sidebar navigation (one browser session, like a user); a fresh load the first time."""
    nav = page.locator("[data-testid='stSidebarNav'] a").filter(has_text=heading)
    if url and not nav.count():
        page.goto(url, wait_until="domcontentloaded")
    else:
        nav.first.click()
    try:
        page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=180_000)
        settle(page)
    except Exception:
        screenshot(page, "hostile_failure")
        raise


def pick_hostile(page) -> None:
    box = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="Catalog").first
    box.wait_for(timeout=60_000)
    box.locator("input").first.click()
    page.keyboard.type("hostile")
    page.keyboard.press("Enter")
    settle(page, 800)
    assert "hostile" in box.inner_html(), box.inner_html()[:3000]


def search(page, text: str) -> None:
    # while Streamlit swaps a tab panel in, the old input can linger next to the new one: use the visible one
    box = page.locator('input[aria-label="Search the catalog"]:visible').last
    box.fill(text)
    box.press("Enter")
    settle(page, 800)
    page.get_by_text("results in").first.wait_for(timeout=60_000)


def body_text(page) -> str:
    return page.evaluate("() => document.body.innerText")


def test_hostile_catalog_renders_inert_everywhere(hostile_app, page):
    page.add_init_script("window.__pwned = undefined;")
    MARKER.unlink(missing_ok=True)
    try:
        _visit_every_page(page, *hostile_app)
    except BaseException:
        screenshot(page, "hostile_failure")
        raise
    assert not MARKER.exists(), "a command from the uploaded catalog file ran"


def _visit_every_page(page, url: str, db_url: str) -> None:

    # 1. import through the real upload widget on the Catalog page
    open_page(page, f"{url}/catalog", "Catalog")
    page.get_by_label("Search the catalog").first.wait_for(timeout=180_000)  # the demo is embedded first
    settle(page)  # the rest of that first run (statistics, charts) redraws the tabs: upload after it
    page.get_by_role("tab", name="Import / export").click()
    inputs = page.locator("[data-testid='stFileUploader'] input[type='file']")
    inputs.nth(0).set_input_files(str(TOOLS))
    inputs.nth(1).set_input_files(str(QUERIES))
    page.wait_for_timeout(1500)  # let both uploads finish
    page.get_by_label("Catalog name", exact=True).fill(NAME)
    page.wait_for_timeout(500)
    page.get_by_role("button", name="Import", exact=True).click()
    try:
        page.get_by_text("Imported 15 tools").wait_for(timeout=120_000, state="attached")
    except Exception:
        screenshot(page, "hostile_failure")
        raise
    settle(page)
    page.get_by_role("tab", name="Import / export").click()  # the rerun shows the first tab again
    assert "Imported 15 tools into hostile <img" in body_text(page)  # the name shown literally
    # the file's launch fields (mcp_command, mcp_cwd, command, args, a Python path) were dropped and listed
    assert "Dropped 5 launch fields from 3 tools" in body_text(page)
    check_inert(page, "catalog import")
    screenshot(page, "hostile_import")

    # an eval run on the hostile catalog for the Runs page, into the app's own store
    cli = subprocess.run([sys.executable, "-m", "core.cli", "eval", NAME, "--strategy", "query", "-k", "5",
                          "--db", db_url, "--json"], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert cli.returncode == 0, cli.stderr[-2000:]

    # 2. Catalog: search + tool cards (each search puts another payload tool on top), statistics
    open_page(page, "", "Catalog")
    pick_hostile(page)
    # Still on the Catalog page, so the tabs may keep Import / export open (whether a rerun redraws them
    # depends on timing): choose Search, as a user would.
    page.get_by_role("tab", name="Search", exact=True).click()
    page.get_by_label("Search the catalog").first.wait_for(timeout=120_000)
    queries = ["send an email to a recipient with a subject", "convert money from one currency to another",
               "FX click me anchor", "evaluate an arithmetic expression math link",
               "translate a short text between two languages", "look up the current weather for a city",
               "set a reminder at a time", "stock quote ticker symbol", "dictionary word entities"]
    seen = ""
    for query in queries:
        search(page, query)
        page.locator("h4").first.wait_for(timeout=30_000)
        check_inert(page, f"catalog search {query!r}")
        seen += body_text(page)
    for shown in (":red[HOSTILE-RED]", "[click me](javascript:window.__pwned=4)", '<svg onload="window.__pwned=3">',
                  "$\\href{javascript:window.__pwned=6}{math link}$", "<iframe srcdoc=",
                  "<script>window.__pwned=1</script>", "# Heading injection", "<style>body{display:none}</style>",
                  "&lt;script&gt;entity"):
        assert shown in seen, f"{shown!r} was never shown literally on a tool card"
    page.get_by_text("JSON schema").first.click()
    page.wait_for_timeout(500)
    check_inert(page, "catalog JSON schema")
    screenshot(page, "hostile_catalog")
    page.get_by_role("tab", name="Statistics").click()
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    page.wait_for_timeout(800)
    check_inert(page, "catalog statistics")
    screenshot(page, "hostile_catalog_stats")

    # 3. Overlap map: hover across the map so hover labels with payloads are drawn
    open_page(page, "", "Overlap map")
    pick_hostile(page)
    plot = page.locator(".js-plotly-plot").first
    plot.wait_for(timeout=180_000)
    page.wait_for_timeout(1000)
    box = plot.bounding_box()
    hovered = 0
    for fy in (0.2, 0.35, 0.5, 0.65, 0.8):
        for fx in (0.1, 0.25, 0.4, 0.55, 0.7, 0.85):
            page.mouse.move(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
            page.wait_for_timeout(60)
            if page.locator(".hoverlayer .hovertext").count():
                hovered += 1
                check_inert(page, "overlap map hover")
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    page.get_by_label("Highlight search hits", exact=True).fill("weather")
    page.get_by_label("Highlight search hits", exact=True).press("Enter")
    settle(page, 800)
    check_inert(page, "overlap map")
    screenshot(page, "hostile_overlap_map")

    # 4. Merge review: run a merge; near-duplicate payload tools form clusters shown by name
    open_page(page, "", "Merge review")
    pick_hostile(page)
    thumb = page.locator("[data-testid='stSidebar'] [data-testid='stSlider'] [role='slider'], "
                         "[data-testid='stSidebar'] [data-testid='stSlider'] [tabindex='0']").first
    if thumb.count():
        thumb.focus()
        page.keyboard.press("Home")  # θ = 0.60: the payload look-alikes become clusters
        settle(page, 800)
    run = page.get_by_role("button", name="Run merge")
    if run.count():
        run.click()
    page.get_by_text("Tools before").first.wait_for(timeout=180_000)
    settle(page)
    if page.get_by_text("Open a cluster").count():
        page.get_by_text("Pair verdicts").first.wait_for(timeout=30_000)
    check_inert(page, "merge review")
    screenshot(page, "hostile_merge_review")

    # 5. Strategy playground: a hostile query from the imported set, three strategies
    open_page(page, "", "Strategy playground")
    pick_hostile(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("heading", name="Outcome").wait_for(timeout=180_000)
    settle(page)
    check_inert(page, "playground")
    screenshot(page, "hostile_playground")

    # 6. Trials: free text run, open a trace (expander labels carry tool names)
    open_page(page, "", "Trials")
    pick_hostile(page)
    # a catalog from a file has no server to start: the page says so instead of asking
    page.get_by_text("No MCP server is registered for this catalog").wait_for(timeout=60_000)
    page.get_by_role("button", name="Run trials").click()
    page.get_by_text("Trace per candidate").wait_for(timeout=180_000)
    settle(page)
    assert not MARKER.exists(), "Run trials started a command from the catalog file"
    page.locator("[data-testid='stExpander'] summary").first.click()
    page.wait_for_timeout(800)
    check_inert(page, "trials")
    screenshot(page, "hostile_trials")

    # 7. Timeline: a Markov simulation over the hostile version
    open_page(page, "", "Timeline")
    pick_hostile(page)
    # One stored version: the simulation is the only sequence. A click that lands while the sidebar is being
    # redrawn (after picking the catalog) can be lost, leaving "Catalog versions" chosen and Run disabled,
    # so choose it again until Run is enabled.
    enabled = ("() => [...document.querySelectorAll('button')].some(b => "
               "b.innerText.trim() === 'Run timeline' && !b.disabled)")
    for _ in range(6):
        page.locator("[data-testid='stSidebar']").get_by_text("Markov simulation", exact=True).click()
        settle(page, 800)
        if page.evaluate(enabled):
            break
        page.wait_for_timeout(3000)
    run = page.get_by_role("button", name="Run timeline")
    page.wait_for_function(enabled, timeout=120_000)
    run.click()
    page.get_by_role("heading", name="Summary").wait_for(timeout=180_000)
    settle(page)
    check_inert(page, "timeline")
    screenshot(page, "hostile_timeline")

    # 8. Runs: the CLI eval's per-query drill-down shows hostile query ids and texts
    open_page(page, "", "Runs")
    pq = page.locator("[data-testid='stDataFrame']").last
    pq.wait_for(timeout=60_000)
    pq.scroll_into_view_if_needed()
    grid = pq.bounding_box()
    page.mouse.click(grid["x"] + 12, grid["y"] + 35 + 17)  # the first row's selection cell
    settle(page, 800)
    check_inert(page, "runs")
    screenshot(page, "hostile_runs")

    # 9. Settings
    open_page(page, "", "Settings")
    check_inert(page, "settings")
    screenshot(page, "hostile_settings")


def test_trials_show_the_registered_server_command_and_start_it_only_when_agreed(hostile_app, page, tmp_path):
    """A server registered by the operator's import-mcp is shown as the exact command, and started only after
    the visitor ticks the box: the command touches a marker before it runs the demo MCP server."""
    url, db_url = hostile_app
    started = tmp_path / "server-started"
    command = ["sh", "-c", f'touch "{started}" && exec "$0" "$1"', sys.executable,
               str(REPO / "assets" / "demo_mcp" / "server.py")]
    cli = subprocess.run([sys.executable, "-m", "core.cli", "import-mcp", "--name", "served", "--db", db_url,
                          "--", *command], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert cli.returncode == 0, cli.stderr[-2000:]
    started.unlink()  # import-mcp itself ran the server once, as the operator asked

    page.goto(f"{url}/trials", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Trials", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    box = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="Catalog").first
    box.locator("input").first.click()
    page.keyboard.type("served")
    page.keyboard.press("Enter")
    settle(page, 800)
    page.get_by_text("Running this page starts 1 MCP server process").wait_for(timeout=180_000)
    shown = page.locator("[data-testid='stCode']").first.inner_text()
    assert str(started) in shown and "demo_mcp/server.py" in shown and f"in {REPO}" in shown, shown
    consent = page.get_by_role("checkbox", name="Start these servers when I run")
    assert not consent.is_checked()
    screenshot(page, "trials_server_consent")

    page.get_by_role("button", name="Run trials").click()
    page.get_by_text("Trace per candidate").wait_for(timeout=180_000)
    settle(page)
    assert not started.exists(), "the server started although the box was not ticked"

    page.get_by_text("Start these servers when I run").click()
    page.wait_for_function("() => [...document.querySelectorAll('input[type=checkbox]')].some(c => c.checked)",
                           timeout=60_000)
    settle(page, 800)
    page.get_by_role("button", name="Run trials").click()
    settle(page, 800)
    page.get_by_text("Trace per candidate").wait_for(timeout=180_000)
    assert started.exists(), "the agreed server was not started"
    check_inert(page, "trials with a registered server")
