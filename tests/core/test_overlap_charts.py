import json
from pathlib import Path

import numpy as np
import pytest

from core.models import Tool
from core.overlap import KEPT_APART, LOOK_ALIKE, MERGED, OTHER, SINGLE, MapLayer, OverlapLink, category_groups
from core.overlap_charts import (
    MUTED,
    PALETTE,
    POOLED_COLOURS,
    RING_NAME,
    group_colours,
    group_symbols,
    overlap_scatter,
)

DEMO_V5 = Path(__file__).resolve().parents[2] / "assets" / "demo" / "versions" / "v5.json"


# --- colour difference, written out here so the test measures the palette with its own yardstick ----------------

def _lab(hex_colour: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB hex colour (IEC 61966-2-1 transfer curve, CIE 1976 L*a*b*)."""
    rgb = np.array([int(hex_colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]) / 255.0
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _de76(lab1, lab2) -> float:
    return float(np.linalg.norm(np.asarray(lab1) - np.asarray(lab2)))


def _de2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference, as written out by Sharma, Wu & Dalal (2005), Color Res. Appl. 30(1)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dh = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_hp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * np.cos(np.radians(h_bar - 30)) + 0.24 * np.cos(np.radians(2 * h_bar))
         + 0.32 * np.cos(np.radians(3 * h_bar + 6)) - 0.20 * np.cos(np.radians(4 * h_bar - 63)))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -np.sin(np.radians(60 * np.exp(-(((h_bar - 275) / 25) ** 2)))) * 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    dl, dc = (l2 - l1) / s_l, (c2p - c1p) / s_c
    return float(np.sqrt(dl ** 2 + dc ** 2 + (d_hp / s_h) ** 2 + r_t * dc * (d_hp / s_h)))


@pytest.mark.parametrize("lab1,lab2,expected", [  # pairs 1, 7, 17 and 25 of Sharma et al.'s test data
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_the_yardstick_is_ciede2000(lab1, lab2, expected):
    assert _de2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def _closest_pair(colours):
    labs = {c: _lab(c) for c in colours}
    return min((_de2000(labs[a], labs[b]), a, b) for i, a in enumerate(colours) for b in colours[i + 1:])


# Twenty categorical colours can be about 20 CIEDE2000 units apart at best (greedy max-min search over sRGB,
# kept visible on white); 20 is ~10 just-noticeable differences, what small 7-px markers need to be named
# apart at a glance. CIE76 overstates blues and greens, so its bound is higher (27 measured, 25 required).
MIN_DE2000 = 20.0
MIN_DE76 = 25.0


def test_every_palette_colour_is_far_from_every_other():
    closest, a, b = _closest_pair(PALETTE)
    assert closest >= MIN_DE2000, (a, b, closest)
    assert min(_de76(_lab(x), _lab(y)) for i, x in enumerate(PALETTE) for y in PALETTE[i + 1:]) >= MIN_DE76
    assert len(set(PALETTE)) == len(PALETTE) == 20


def test_palette_stands_out_from_white_and_from_the_pooled_greys():
    for colour in PALETTE:
        assert _de2000(_lab(colour), _lab("#ffffff")) >= 20, colour
        for grey in POOLED_COLOURS.values():
            assert _de2000(_lab(colour), _lab(grey)) >= 15, (colour, grey)


def test_the_check_catches_the_palette_it_replaced():
    # two dark teals of the old palette, given to the demo's Weather and HR & Work
    assert _closest_pair(("#264653", "#073b4c"))[0] < 5


def test_every_demo_category_gets_its_own_distinct_colour():
    from core.importers.openai_tools import load_openai_tools

    tools = load_openai_tools(DEMO_V5, source="demo")
    groups = category_groups(tools)
    colours = group_colours(groups)
    names = sorted(set(groups))
    assert len(names) == 18 and OTHER not in names  # the demo has 18 categories, none pooled
    closest, a, b = _closest_pair([colours[n] for n in names])
    assert closest >= MIN_DE2000, (a, b, closest)


def test_past_twenty_groups_the_shape_tells_groups_apart():
    groups = [f"g{i:02d}" for i in range(45) for _ in range(45 - i)] + [OTHER]  # g00 largest
    colours, symbols = group_colours(groups), group_symbols(groups)
    styles = [(colours[g], symbols[g]) for g in set(groups) - {OTHER}]
    assert len(set(styles)) == 45  # no two groups look the same
    assert symbols["g00"] == "circle" and colours["g00"] == PALETTE[0]  # the largest group gets the first colour
    assert symbols["g20"] != "circle" and colours[OTHER] == POOLED_COLOURS[OTHER]


# --- the figure ------------------------------------------------------------------------------------------------

def _layer():
    tools = {k: Tool(k, f"{k}_fn", f"<b>{k}</b> tool", {"type": "object", "properties": {"x": {}}})
             for k in ("a", "b", "c", "d")}
    coords = np.array([[0, 0], [1, 1], [2, 2], [3, 3]], dtype=np.float32)
    return tools, MapLayer(("a", "b", "c", "d"), coords, ("weather", SINGLE, "weather", "money"))


def _points(fig, axis="x"):
    """The group traces of one panel (by name; without a highlight, one per group): markers that carry tool
    keys, other than the merged-away ×."""
    return {t.name: t for t in fig.data
            if t.mode == "markers" and t.customdata is not None and t.xaxis == axis and t.marker.symbol != "x"}


def test_one_trace_per_group_with_its_own_points_and_keys():
    tools, layer = _layer()
    traces = _points(overlap_scatter(layer, tools, title="t"))
    assert list(traces) == ["money", "weather", SINGLE]  # named groups first, the pooled one last
    weather = traces["weather"]
    assert list(weather.x) == [0, 2] and [row[0] for row in weather.customdata] == ["a", "c"]
    assert weather.marker.color != traces["money"].marker.color
    assert "&lt;b&gt;a&lt;/b&gt;" in weather.hovertext[0]  # descriptions are escaped, not rendered
    json.loads(overlap_scatter(layer, tools, title="t").to_json())  # what the browser receives


def test_highlight_grows_the_chosen_and_greys_the_rest():
    tools, layer = _layer()
    fig = overlap_scatter(layer, tools, title="t", highlight={"c"})
    weather = [t for t in fig.data if t.name == "weather"]
    grey, lit = weather  # the greyed points, then the lit ones
    assert [k[0] for k in grey.customdata] == ["a"] and grey.marker.color == MUTED and not grey.showlegend
    assert [k[0] for k in lit.customdata] == ["c"] and lit.marker.color != MUTED and lit.showlegend
    assert lit.marker.size > grey.marker.size and lit.marker.line.width == 1.5
    money = [t for t in fig.data if t.name == "money"]
    # nothing lit: a point-less trace keeps the group's legend entry in its colour (plotly lists no empty trace)
    assert money[0].marker.color == MUTED and list(money[1].x) == [None] and money[1].customdata is None
    assert money[1].marker.color != MUTED and money[1].showlegend and money[1].hoverinfo == "skip"


def test_links_are_thick_lines_with_the_pair_cosine_on_hover():
    tools, layer = _layer()
    links = [OverlapLink("a", "b", 0.912, LOOK_ALIKE), OverlapLink("a", "zz", 0.8, LOOK_ALIKE)]
    fig = overlap_scatter(layer, tools, title="t", links=links, link_threshold=0.75)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 1 and list(lines[0].x) == [0, 1, None]  # the link to an unknown key is left out
    assert lines[0].line.width >= 2 and lines[0].name == "look-alikes, cos ≥ 0.75" and lines[0].showlegend
    middles = [t for t in fig.data if t.mode == "markers" and t.customdata is None and t.hovertext is not None]
    assert list(middles[0].x) == [0.5] and list(middles[0].y) == [0.5]
    assert "a_fn" in middles[0].hovertext[0] and "b_fn" in middles[0].hovertext[0]
    assert "cosine 0.912" in middles[0].hovertext[0]
    assert not [t for t in fig.data if t.name == RING_NAME]  # a line this long shows itself


def test_the_ends_of_a_link_too_short_to_see_are_ringed():
    tools = {k: Tool(k, f"{k}_fn", f"{k} tool", {"type": "object"}) for k in "abc"}
    layer = MapLayer(("a", "b", "c"), np.array([[0, 0], [0.01, 0], [10, 10]], dtype=np.float32), ("x", "x", "y"))
    links = [OverlapLink("a", "b", 0.97, LOOK_ALIKE), OverlapLink("a", "c", 0.8, LOOK_ALIKE)]
    rings = [t for t in overlap_scatter(layer, tools, title="t", links=links).data if t.name == RING_NAME]
    assert len(rings) == 1 and sorted(zip(rings[0].x, rings[0].y, strict=True)) == [(0, 0), (pytest.approx(0.01), 0)]
    assert rings[0].hoverinfo == "skip"  # the point under the ring still answers the hover


def test_without_links_no_line_and_no_ring():
    tools, layer = _layer()
    fig = overlap_scatter(layer, tools, title="t")
    assert not [t for t in fig.data if t.mode == "lines" or t.name == RING_NAME]


def test_map_has_a_title_an_explaining_subtitle_and_no_unitless_ticks():
    tools, layer = _layer()
    fig = overlap_scatter(layer, tools, title="demo v5", subtitle="2-D UMAP projection: near = similar",
                          legend_title="Category")
    assert fig.layout.title.text == "demo v5" and "near = similar" in fig.layout.title.subtitle.text
    assert fig.layout.xaxis.showticklabels is False and fig.layout.yaxis.showticklabels is False
    assert fig.layout.legend.title.text == "Category"


def _merge_case():
    tools = {k: Tool(k, f"{k}_fn", f"{k} tool", {"type": "object"}) for k in "abcdef"}
    coords = np.array([[0, 0], [0.1, 0], [5, 5], [5.2, 5], [9, 0], [9, 9]], dtype=np.float32)
    groups = ("weather", "weather", "money", "money", "maps", "maps")
    before = MapLayer(tuple("abcdef"), coords, groups)
    phi = {"a": "a", "b": "a", "c": "c", "d": "d", "e": "e", "f": "f"}  # b merged into a; c and d kept apart
    kept = [0, 2, 3, 4, 5]
    after = MapLayer(tuple("acdef"), coords[kept], tuple(groups[i] for i in kept))
    links = [OverlapLink("a", "b", 0.93, MERGED, True), OverlapLink("c", "d", 0.88, KEPT_APART, False)]
    return tools, before, after, phi, links


def test_before_and_after_panels_are_equally_wide_and_both_coloured():
    tools, before, after, phi, links = _merge_case()
    fig = overlap_scatter(before, tools, title="t", after=after, merged_into=phi, links=links)
    left, right = fig.layout.xaxis.domain, fig.layout.xaxis2.domain
    assert right[1] - right[0] == pytest.approx(left[1] - left[0]) and left[1] < right[0]
    first, second = _points(fig, "x"), _points(fig, "x2")
    assert set(second) == {"weather", "money", "maps"}
    assert len({t.marker.color for t in second.values()}) == 3  # the after map is coloured, not grey
    assert all(second[g].marker.color == first[g].marker.color for g in second)  # by the same groups
    assert all(not second[g].showlegend for g in second)  # one legend for both panels
    assert [k[0] for k in second["weather"].customdata] == ["a"]  # b is gone from the after map


def test_after_panel_keeps_only_the_links_left_and_marks_what_was_merged_away():
    tools, before, after, phi, links = _merge_case()
    fig = overlap_scatter(before, tools, title="t", after=after, merged_into=phi, links=links)
    lines = {(t.name, t.xaxis): t for t in fig.data if t.mode == "lines"}
    assert set(lines) == {("pair merged into one", "x"), ("look-alikes kept apart", "x"),
                          ("look-alikes kept apart", "x2")}
    assert all(t.line.width >= 2 for t in lines.values())
    removed = [t for t in fig.data if t.xaxis == "x2" and t.marker.symbol == "x"]
    assert len(removed) == 1 and list(removed[0].x) == [pytest.approx(0.1)]
    assert "merged into <b>" not in removed[0].hovertext[0] and "merged into a_fn" in removed[0].hovertext[0]
    kept = _points(fig, "x2")["weather"]
    assert "stands for 1 merged: b_fn" in kept.hovertext[0]


def test_brief_hover_leaves_descriptions_out():
    tools, layer = _layer()
    full = overlap_scatter(layer, tools, title="t")
    brief = overlap_scatter(layer, tools, title="t", brief_hover=True)
    assert "tool" in _points(full)["money"].hovertext[0]
    assert list(_points(brief)["money"].hovertext) == ["<b>d_fn</b><br>money"]
    assert len(brief.to_json()) < len(full.to_json())


def test_legend_names_fit_the_legend_under_two_panels():
    tools, before, after, phi, links = _merge_case()
    long = "a very long merge cluster name of a tool"
    before = MapLayer(before.keys, before.coords, tuple(long if g == "maps" else g for g in before.groups))
    after = MapLayer(after.keys, after.coords, tuple(long if g == "maps" else g for g in after.groups))
    two = overlap_scatter(before, tools, title="t", after=after, merged_into=phi, links=links)
    assert all(len(t.name) <= 24 for t in two.data if t.showlegend is not False)
    assert "a very long merge clust…" in _points(two)
    assert long in _points(overlap_scatter(before, tools, title="t"))  # one panel: the legend has room
