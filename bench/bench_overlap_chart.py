"""Building the overlap map's figure on the server, for a large catalog.

    python bench/bench_overlap_chart.py [--n 40000] [--groups 22]

Baseline, measured in the same run: the same traces built the way the page first did it (a scan of all
points per group, Python lists for every per-point attribute). Prints both times, the ratio and the
size of the JSON the browser receives on every rerun (the page uses brief hover above 20k tools).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.models import Tool  # noqa: E402
from core.overlap import MapLayer  # noqa: E402
from core.overlap_charts import _hover, group_colours, overlap_scatter  # noqa: E402


def baseline(layer: MapLayer, tools) -> go.Figure:
    colours = group_colours(layer.groups)
    fig = go.Figure()
    for group in sorted(set(layer.groups)):
        idx = [i for i, g in enumerate(layer.groups) if g == group]
        keys = [layer.keys[i] for i in idx]
        fig.add_trace(go.Scattergl(
            x=layer.coords[idx, 0], y=layer.coords[idx, 1], mode="markers", name=group,
            customdata=[[k] for k in keys],
            marker=dict(size=[6 for _ in keys], color=[colours.get(group, "#999") for _ in keys],
                        line=dict(width=[0 for _ in keys], color="#111")),
            hovertext=[_hover(tools[k], group) for k in keys], hoverinfo="text"))
    return fig


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40_000)
    parser.add_argument("--groups", type=int, default=22)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tools = {f"t{i}": Tool(f"t{i}", f"tool_{i}", "Looks up a thing for the user and returns it as JSON. " * 2,
                           {"type": "object", "properties": {"query": {"type": "string"}}}) for i in range(args.n)}
    layer = MapLayer(tuple(tools), rng.normal(size=(args.n, 2)).astype(np.float32),
                     tuple(f"category {rng.integers(args.groups)}" for _ in range(args.n)))
    timings = {}
    for name, build in (("baseline (lists)", lambda: baseline(layer, tools)),
                        ("overlap_scatter", lambda: overlap_scatter(layer, tools, title="map")),
                        ("... brief hover", lambda: overlap_scatter(layer, tools, title="map", brief_hover=True))):
        start = time.perf_counter()
        fig = build()
        built = time.perf_counter() - start
        size = len(fig.to_json())
        timings[name] = built
        print(f"{name:>18}: built in {built:5.2f} s, {size / 1e6:5.1f} MB of JSON")
    print(f"{args.n:,} points, {args.groups} groups: "
          f"{timings['baseline (lists)'] / timings['overlap_scatter']:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
