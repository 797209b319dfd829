import json

import numpy as np

from components.overlap_charts import MUTED, overlap_scatter
from core.models import Tool
from core.overlap import SINGLE, MapLayer


def _layer():
    tools = {k: Tool(k, f"{k}_fn", f"<b>{k}</b> tool", {"type": "object", "properties": {"x": {}}})
             for k in ("a", "b", "c", "d")}
    coords = np.array([[0, 0], [1, 1], [2, 2], [3, 3]], dtype=np.float32)
    return tools, MapLayer(("a", "b", "c", "d"), coords, ("weather", SINGLE, "weather", "money"))


def _points(fig):
    return {t.name: t for t in fig.data if t.mode == "markers"}


def test_one_trace_per_group_with_its_own_points_and_keys():
    tools, layer = _layer()
    traces = _points(overlap_scatter(layer, tools, title="t"))
    assert list(traces) == ["money", "weather", SINGLE]  # named groups first, the pooled one last
    weather = traces["weather"]
    assert list(weather.x) == [0, 2] and [row[0] for row in weather.customdata] == ["a", "c"]
    assert weather.marker.size == 6 and weather.marker.color == traces["weather"].marker.color
    assert "&lt;b&gt;a&lt;/b&gt;" in weather.hovertext[0]  # descriptions are escaped, not rendered
    json.loads(overlap_scatter(layer, tools, title="t").to_json())  # what the browser receives


def test_highlight_grows_the_chosen_and_greys_the_rest():
    tools, layer = _layer()
    traces = _points(overlap_scatter(layer, tools, title="t", highlight={"c"}))
    weather = traces["weather"]
    assert list(weather.marker.size) == [6, 11] and list(weather.marker.line.width) == [0, 1.5]
    assert weather.marker.color[0] == MUTED and weather.marker.color[1] != MUTED
    assert set(traces["money"].marker.color) == {MUTED}


def test_edges_become_one_line_trace_between_known_points():
    tools, layer = _layer()
    fig = overlap_scatter(layer, tools, title="t", edges=[("a", "b", 0.9), ("a", "zz", 0.8)])
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 1 and list(lines[0].x) == [0, 1, None]


def test_brief_hover_leaves_descriptions_out():
    tools, layer = _layer()
    full = overlap_scatter(layer, tools, title="t")
    brief = overlap_scatter(layer, tools, title="t", brief_hover=True)
    assert "tool" in _points(full)["money"].hovertext[0]
    assert list(_points(brief)["money"].hovertext) == ["<b>d_fn</b><br>money"]
    assert len(brief.to_json()) < len(full.to_json())
