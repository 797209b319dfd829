"""The Overlap map figure: a WebGL scatter per group, neighbour links, highlighted points."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core.models import Tool
from core.overlap import OTHER, SINGLE, MapLayer

PALETTE = ("#3558d6", "#e76f51", "#2a9d8f", "#e9c46a", "#7b2cbf", "#f4a261", "#264653", "#d62828", "#588157",
           "#8338ec", "#ff006e", "#3a86ff", "#fb5607", "#6a994e", "#bc6c25", "#118ab2", "#ef476f", "#073b4c",
           "#06d6a0", "#9d4edd")
MUTED = "rgba(170,170,170,0.25)"


def _hover(tool: Tool, group: str, brief: bool = False) -> str:
    if brief:
        return f"<b>{html.escape(tool.name)}</b><br>{html.escape(group)}"
    desc = tool.description if len(tool.description) <= 160 else tool.description[:159] + "…"
    params = ", ".join(tool.parameter_names[:8])
    return (f"<b>{html.escape(tool.name)}</b><br>{html.escape(group)}<br>{html.escape(desc)}"
            + (f"<br><i>{html.escape(params)}</i>" if params else ""))


def group_colours(groups: Sequence[str]) -> dict[str, str]:
    """Stable colours: the same group gets the same colour in the before and after maps."""
    names = sorted(set(groups) - {SINGLE, OTHER})
    colours = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(names)}
    colours[SINGLE] = "rgba(120,120,120,0.55)"
    colours[OTHER] = "rgba(120,120,120,0.55)"
    return colours


def overlap_scatter(layer: MapLayer, tools: Mapping[str, Tool], *, title: str,
                    colours: Mapping[str, str] | None = None, highlight: Collection[str] = (),
                    edges: Sequence[tuple[str, str, float]] = (), axes: tuple[tuple[float, float],
                                                                               tuple[float, float]] | None = None,
                    height: int = 560, brief_hover: bool = False) -> go.Figure:
    """One WebGL trace per group (legend toggles groups). With ``highlight`` non-empty, those points keep
    their colour and grow while the rest is greyed out. ``edges`` are neighbour links by key.
    ``brief_hover`` shows name and group only: descriptions are most of the figure's bytes, which every
    rerun sends to the browser again (40k tools: 11 MB with them, ~3 MB without)."""
    colours = dict(colours or group_colours(layer.groups))
    index = layer.index_of()
    hl = set(highlight)
    fig = go.Figure()
    if edges:
        xs: list[float | None] = []
        ys: list[float | None] = []
        for a, b, _ in edges:
            if a in index and b in index:
                (x0, y0), (x1, y1) = layer.coords[index[a]], layer.coords[index[b]]
                xs += [float(x0), float(x1), None]
                ys += [float(y0), float(y1), None]
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line=dict(width=0.7, color="rgba(80,80,80,0.35)"),
                                   hoverinfo="skip", name="neighbour links"))
    members: dict[str, list[int]] = {}
    for i, g in enumerate(layer.groups):
        members.setdefault(g, []).append(i)
    order = sorted(members, key=lambda g: (g in (SINGLE, OTHER), g))
    # numpy arrays and scalars where possible: plotly validates Python lists item by item, which made a
    # 40k-point map take seconds to build on the server.
    for group in order:
        idx = np.asarray(members[group])
        keys = np.asarray([layer.keys[i] for i in idx], dtype=object)
        colour = colours.get(group, "#999")
        if hl:
            lit = np.fromiter((k in hl for k in keys), dtype=bool, count=len(keys))
            marker = dict(size=np.where(lit, 11, 6), color=np.where(lit, colour, MUTED).astype(object),
                          line=dict(width=np.where(lit, 1.5, 0.0), color="#111"))
        else:
            marker = dict(size=6, color=colour, line=dict(width=0, color="#111"))
        fig.add_trace(go.Scattergl(
            x=layer.coords[idx, 0], y=layer.coords[idx, 1], mode="markers", name=html.escape(group[:40]),
            customdata=keys.reshape(-1, 1), marker=marker,
            hovertext=np.asarray([_hover(tools[k], group, brief_hover) for k in keys], dtype=object), hoverinfo="text"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), dragmode="lasso",
                      legend=dict(itemsizing="constant", font=dict(size=10)), clickmode="event+select")
    if axes is not None:
        fig.update_xaxes(range=list(axes[0]))
        fig.update_yaxes(range=list(axes[1]))
    return fig


def shared_axes(coords, pad: float = 0.05) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis ranges covering ``coords`` with a margin, so two maps can share them."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    span = (hi - lo) * pad + 1e-6
    return (float(lo[0] - span[0]), float(hi[0] + span[0])), (float(lo[1] - span[1]), float(hi[1] + span[1]))


def silhouette_chart(before: Sequence[tuple[int, float]], after: Sequence[tuple[int, float]]) -> go.Figure:
    """Silhouette per k before and after merging: lower after means less crowding (ToolScope App. D.1)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[k for k, _ in before], y=[s for _, s in before], mode="lines+markers",
                             name="original"))
    fig.add_trace(go.Scatter(x=[k for k, _ in after], y=[s for _, s in after], mode="lines+markers",
                             name="merged"))
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="k (k-means clusters)",
                      yaxis_title="silhouette (cosine)", title="Silhouette before / after merging")
    return fig
