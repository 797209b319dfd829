"""The Overlap map as a newcomer sees it in Chromium: every demo category in its own colour, look-alike pairs
drawn as lines with their cosine on hover, and after a merge two equal panels, both coloured."""

import pytest

from tests.e2e.conftest import ARTIFACTS, screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# What the browser drew, read from plotly's graph div: the distinct colours of tool points (traces that carry
# tool keys), the line traces with their width and point count, and each x-axis's domain.
FIGURE = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  const points = gd.data.filter(t => t.mode === 'markers' && t.customdata && t.marker.symbol !== 'x');
  const colours = axis => [...new Set(points.filter(t => (t.xaxis || 'x') === axis)
                                          .flatMap(t => [].concat(t.marker.color)))];
  const fl = gd._fullLayout;
  return {
    colours: colours('x'), after: colours('x2'),
    lines: gd.data.filter(t => t.mode === 'lines').map(t => ({name: t.name, width: t.line.width, axis: t.xaxis || 'x',
                                                            n: t.x.filter(v => v !== null).length})),
    domains: Object.keys(fl).filter(k => /^xaxis\\d*$/.test(k)).sort().map(k => fl[k].domain),
    title: fl.title.text, subtitle: fl.title.subtitle ? fl.title.subtitle.text : '',
    ticks: fl.xaxis.showticklabels,
  };
}"""

# The pixel, on the page, of the middle of the first link of the left panel.
FIRST_LINK_MIDDLE = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  const t = gd.data.find(t => t.mode === 'lines' && (t.xaxis || 'x') === 'x');
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
  const x = (t.x[0] + t.x[1]) / 2, y = (t.y[0] + t.y[1]) / 2;
  return {x: box.left + xa._offset + xa.l2p(x), y: box.top + ya._offset + ya.l2p(y)};
}"""


def _open_map(page, app_url):
    page.goto(f"{app_url}/overlap_map", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Overlap map").first.wait_for(timeout=180_000)  # the first visit embeds the demo
    settle(page)
    page.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')._fullLayout", timeout=60_000)


def _shots(page, name):
    """The 1400×1000 window a newcomer sees first, then the whole page: Streamlit scrolls inside its main
    section, so the window is made as tall as that section's content for the second picture."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    size = page.viewport_size
    tall = page.evaluate("() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
                         "[data-testid=\"stSidebarContent\"]')].map(e => e.scrollHeight), window.innerHeight)")
    page.set_viewport_size({"width": size["width"], "height": int(tall) + 40})
    page.wait_for_function(f"() => window.innerHeight >= {int(tall)}")
    path = screenshot(page, f"{name}_full")
    page.set_viewport_size(size)
    return path


def test_overlap_map_colours_every_category_and_draws_links(app_url, page):
    _open_map(page, app_url)
    assert page.get_by_text("Each dot is a tool;").count() == 1  # the page says what it shows
    fig = page.evaluate(FIGURE)
    assert len(fig["colours"]) >= 18, fig["colours"]  # the demo's 18 categories, one colour each
    links = [t for t in fig["lines"] if t["axis"] == "x"]
    assert links and all(t["width"] >= 2 for t in links) and sum(t["n"] for t in links) >= 10, links
    assert "near = similar" in fig["subtitle"] and fig["title"] and fig["ticks"] is False
    assert page.get_by_text("neighbour links").count() >= 1

    spot = page.evaluate(FIRST_LINK_MIDDLE)
    page.mouse.move(spot["x"], spot["y"])
    page.locator(".hoverlayer .hovertext").filter(has_text="cosine").first.wait_for(timeout=10_000)
    assert _shots(page, "overlap_map").stat().st_size > 20_000
    assert page.dialogs == []


def test_after_a_merge_both_panels_are_equal_and_coloured(app_url, page):
    page.goto(f"{app_url}/merge_review", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Merge review").first.wait_for(timeout=180_000)
    settle(page)
    run = page.get_by_role("button", name="Run merge")
    if run.count():  # none yet at these settings in this app's store
        run.click()
        page.get_by_text("Pair verdicts").wait_for(timeout=180_000)
        settle(page)

    _open_map(page, app_url)
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')._fullLayout.xaxis2", timeout=60_000)
    fig = page.evaluate(FIGURE)
    (l0, l1), (r0, r1) = fig["domains"][:2]
    assert abs((l1 - l0) - (r1 - r0)) < 1e-6 and l1 < r0  # side by side, the same width
    assert len(fig["after"]) >= 18, fig["after"]  # the merged catalog keeps the category colours
    kinds = {t["name"] for t in fig["lines"]}
    assert "pair merged into one" in kinds and all(t["width"] >= 2 for t in fig["lines"])
    assert page.get_by_text("After merging").count() >= 1
    assert _shots(page, "overlap_before_after_merge").stat().st_size > 20_000

    page.get_by_text("merge cluster").first.click()
    settle(page)
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')._fullLayout.legend.title.text"
                           ".startsWith('Merge cluster')", timeout=60_000)
    fig = page.evaluate(FIGURE)
    assert len(fig["after"]) >= 3, fig["after"]  # cluster colours in the after panel too, not only grey
    assert _shots(page, "overlap_by_cluster").stat().st_size > 20_000
    assert page.dialogs == []
