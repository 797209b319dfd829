"""The Overlap map figure: one WebGL scatter per group, links between look-alike tools, highlighted points, and
the catalog before and after a merge side by side on shared axes."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.models import Tool
from core.overlap import (
    KEPT_APART,
    LINK_KINDS,
    LOOK_ALIKE,
    MERGED,
    OTHER,
    POOLED,
    SINGLE,
    SMALLER,
    MapLayer,
    OverlapLink,
)

# Twenty colours for categories or clusters, most distinct first. The first twelve are Sasha Trubetskoy's
# "20 simple, distinct colours" (their light pastels dropped: small markers in pastel vanish on white); the
# last eight were added one at a time, each the sRGB colour (L* 42–82, chroma ≥ 28) farthest by CIEDE2000
# from those already chosen, from white and from the greys below. Any two differ by ΔE2000 ≥ 20.6 and
# ΔE76 ≥ 27 (tests/core/test_overlap_charts.py measures it; the palette this replaced had two
# near-identical dark teals at ΔE2000 4.5).
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#469990", "#9a6324",
           "#800000", "#808000", "#000075", "#f4c400", "#fc98b0", "#aca4fc", "#007434", "#049cfc", "#9c6484",
           "#00e4c4", "#504808")
# With more groups than colours, the next twenty reuse the colours with the next marker shape, and so on.
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "cross")
POOLED_COLOURS = {OTHER: "#9a9a9a", SINGLE: "#b4b4b4", SMALLER: "#8a8a8a"}
MUTED = "rgba(170,170,170,0.25)"
POINT_SIZE = 7
RING = "#1a1a1a"  # circle around a tool whose look-alike sits on the same spot, where no line can show it
LINK_STYLE = {
    LOOK_ALIKE: dict(width=2.5, color="rgba(40,40,40,0.7)", dash="solid"),
    MERGED: dict(width=3.0, color="rgba(20,20,20,0.85)", dash="solid"),
    KEPT_APART: dict(width=2.0, color="rgba(215,48,39,0.8)", dash="dot"),
}
# Legend names of the reading aids, short enough for a fifth of the width of two panels (≤ 24 characters).
LINK_NAMES = {LOOK_ALIKE: "look-alike pair", MERGED: "pair merged into one", KEPT_APART: "look-alikes kept apart"}
REMOVED_NAME = "merged away (×)"
RING_NAME = "look-alike on same spot"
RING_BELOW = 0.025  # a link shorter than this share of the map's diagonal is hidden under its points: ring them
LEGEND_LAST = 1100  # legend rank of the reading aids (lines, rings, ×): after the groups (plotly's default 1000)
MAP_SUBTITLE = ("2-D {method} projection of the tools' embeddings: near = similar descriptions; the axes have no "
                "units. Hover a point for the tool, a line's middle for the pair's cosine.")


def _hover(tool: Tool, group: str, brief: bool = False) -> str:
    if brief:
        return f"<b>{html.escape(tool.name)}</b><br>{html.escape(group)}"
    desc = tool.description if len(tool.description) <= 160 else tool.description[:159] + "…"
    params = ", ".join(tool.parameter_names[:8])
    return (f"<b>{html.escape(tool.name)}</b><br>{html.escape(group)}<br>{html.escape(desc)}"
            + (f"<br><i>{html.escape(params)}</i>" if params else ""))


def _take(values, sel: np.ndarray | None):
    """``values[sel]`` for a per-point array; a scalar (one value for every point) or no ``sel`` as given."""
    return values if sel is None or not isinstance(values, np.ndarray) else values[sel]


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _ranked(groups: Sequence[str]) -> list[str]:
    """Named groups, largest first (ties by name): the largest get the most distinct colours."""
    counts = Counter(g for g in groups if g not in POOLED)
    return sorted(counts, key=lambda g: (-counts[g], g))


def group_colours(groups: Sequence[str]) -> dict[str, str]:
    """A colour per group, the same in the before and after maps; pooled groups ("(other)", "(not merged)",
    "(smaller clusters)") are grey. Past ``len(PALETTE)`` groups colours repeat, told apart by :func:`group_symbols`."""
    colours = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(_ranked(groups))}
    return {**colours, **{g: POOLED_COLOURS[g] for g in POOLED if g in groups}}


def group_symbols(groups: Sequence[str]) -> dict[str, str]:
    """A marker shape per group: circles for the first ``len(PALETTE)`` groups, then the next shape for each
    further round of colours, so no two groups share both colour and shape (up to 100 groups)."""
    shapes = {g: SYMBOLS[(i // len(PALETTE)) % len(SYMBOLS)] for i, g in enumerate(_ranked(groups))}
    return {**shapes, **{g: "circle" for g in POOLED if g in groups}}


def _link_traces(fig: go.Figure, links: Sequence[OverlapLink], layer: MapLayer, tools: Mapping[str, Tool], *,
                 col: int, shown: set[str], names: Mapping[str, str], short: float) -> set[str]:
    """Each kind of link as one line trace, plus an invisible marker at each link's middle that carries the
    pair's hover text (WebGL lines have no hover of their own). Returns the keys of the tools at either end
    of a link shorter than ``short`` (map units), which a line cannot show."""
    index = layer.index_of()
    linked: set[str] = set()
    for kind in LINK_KINDS:
        xs: list[float | None] = []
        ys: list[float | None] = []
        mid_x: list[float] = []
        mid_y: list[float] = []
        text: list[str] = []
        for link in links:
            if link.kind != kind or link.a not in index or link.b not in index:
                continue
            (x0, y0), (x1, y1) = layer.coords[index[link.a]], layer.coords[index[link.b]]
            xs += [float(x0), float(x1), None]
            ys += [float(y0), float(y1), None]
            mid_x.append(float(x0 + x1) / 2)
            mid_y.append(float(y0 + y1) / 2)
            text.append(_link_hover(link, tools))
            if np.hypot(x1 - x0, y1 - y0) < short:
                linked.update((link.a, link.b))
        if not mid_x:
            continue
        group = f"link:{kind}"
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line=LINK_STYLE[kind], name=names[kind],
                                   legendgroup=group, showlegend=group not in shown, hoverinfo="skip",
                                   legendrank=LEGEND_LAST), row=1, col=col)
        fig.add_trace(go.Scattergl(x=mid_x, y=mid_y, mode="markers", marker=dict(size=12, color="rgba(0,0,0,0)"),
                                   hovertext=text, hoverinfo="text", legendgroup=group, showlegend=False,
                                   name=names[kind]), row=1, col=col)
        shown.add(group)
    return linked


def _link_hover(link: OverlapLink, tools: Mapping[str, Tool]) -> str:
    a, b = (html.escape(tools[k].name) if k in tools else html.escape(k) for k in (link.a, link.b))
    outcome = {LOOK_ALIKE: "look-alike pair", MERGED: "merged into one tool", KEPT_APART: "kept as two tools"}[link.kind]
    if link.judged_same is not None:
        outcome += " · judge: " + ("same job" if link.judged_same else "different jobs")
    return f"<b>{a}</b> ↔ <b>{b}</b><br>cosine {link.cosine:.3f} · {outcome}"


def _point_traces(fig: go.Figure, layer: MapLayer, tools: Mapping[str, Tool], *, col: int, colours: Mapping[str, str],
                  symbols: Mapping[str, str], highlight: set[str], shown: set[str],
                  stands_for: Mapping[str, list[str]], brief_hover: bool, name_chars: int) -> None:
    members: dict[str, list[int]] = {}
    for i, g in enumerate(layer.groups):
        members.setdefault(g, []).append(i)
    order = sorted(members, key=lambda g: (g in POOLED, g.casefold(), g))
    # numpy arrays and scalars where possible: plotly validates Python lists item by item, which made a
    # 40k-point map take seconds to build on the server.
    for group in order:
        idx = np.asarray(members[group])
        keys = np.asarray([layer.keys[i] for i in idx], dtype=object)
        colour = colours.get(group, POOLED_COLOURS[OTHER])
        size = POINT_SIZE - 1 if group in POOLED else POINT_SIZE
        if stands_for:  # after a merge, a kept tool that stands for merged ones is drawn larger
            size = np.where(np.fromiter((k in stands_for for k in keys), dtype=bool, count=len(keys)), size + 3, size)
        hover = [_hover(tools[k], group, brief_hover) for k in keys]
        if stands_for:
            hover = [h + (f"<br>stands for {len(stands_for[k])} merged: "
                          + html.escape(", ".join(tools[m].name for m in stands_for[k][:6]))
                          + (" …" if len(stands_for[k]) > 6 else "") if k in stands_for else "")
                     for h, k in zip(hover, keys, strict=True)]
        hover = np.asarray(hover, dtype=object)
        # With a highlight, a group is two traces: its greyed points, then its lit ones in the group's colour;
        # the legend entry is the lit trace's (even when empty), so the legend keeps every group's colour.
        if highlight:
            lit = np.fromiter((k in highlight for k in keys), dtype=bool, count=len(keys))
            parts = [(~lit, dict(size=size - 1, color=MUTED, line=dict(width=0)), False),
                     (lit, dict(size=size + 5, color=colour, line=dict(width=1.5, color=RING)), True)]
        else:
            parts = [(None, dict(size=size, color=colour, line=dict(width=0.5, color="white")), True)]
        for sel, marker, legend in parts:
            if sel is not None and not sel.any():
                if legend:  # nothing lit: a point-less entry (plotly lists no empty trace) keeps the group's colour
                    fig.add_trace(go.Scattergl(x=[None], y=[None], mode="markers", name=html.escape(_clip(group, name_chars)),
                                               legendgroup=f"group:{group}", showlegend=f"group:{group}" not in shown,
                                               marker={**marker, "size": POINT_SIZE, "symbol": symbols.get(group, "circle")},
                                               hoverinfo="skip"), row=1, col=col)
                continue
            marker = {**marker, "size": _take(marker["size"], sel), "symbol": symbols.get(group, "circle")}
            fig.add_trace(go.Scattergl(
                x=_take(layer.coords[idx, 0], sel), y=_take(layer.coords[idx, 1], sel), mode="markers",
                name=html.escape(_clip(group, name_chars)), legendgroup=f"group:{group}",
                showlegend=legend and f"group:{group}" not in shown, customdata=_take(keys, sel).reshape(-1, 1),
                marker=marker, hovertext=_take(hover, sel), hoverinfo="text"), row=1, col=col)
        shown.add(f"group:{group}")


def _ring_trace(fig: go.Figure, layer: MapLayer, ringed: set[str], *, col: int, shown: set[str]) -> None:
    """An open circle around each tool whose look-alike sits on (almost) the same spot (one trace, drawn over
    the points and not hoverable, so the point under it still answers): near-duplicates often land on one
    spot, where the line between them has no length."""
    idx = [i for i, k in enumerate(layer.keys) if k in ringed]
    if not idx:
        return
    fig.add_trace(go.Scattergl(
        x=layer.coords[idx, 0], y=layer.coords[idx, 1], mode="markers", name=RING_NAME, legendgroup="ring",
        showlegend="ring" not in shown, legendrank=LEGEND_LAST, hoverinfo="skip",
        marker=dict(symbol="circle-open", size=POINT_SIZE + 5, color=RING, line=dict(width=1.3, color=RING))),
        row=1, col=col)
    shown.add("ring")


def _removed_trace(fig: go.Figure, layer: MapLayer, tools: Mapping[str, Tool], merged_into: Mapping[str, str], *,
                   col: int) -> None:
    """Where the tools a merge folded away used to be, faint, so the after map shows what went."""
    gone = [i for i, k in enumerate(layer.keys) if merged_into.get(k, k) != k]
    if not gone:
        return
    keys = [layer.keys[i] for i in gone]
    text = [f"<b>{html.escape(tools[k].name)}</b><br>merged into {html.escape(tools[merged_into[k]].name)}"
            if merged_into[k] in tools else f"<b>{html.escape(tools[k].name)}</b><br>merged away" for k in keys]
    fig.add_trace(go.Scattergl(
        x=layer.coords[gone, 0], y=layer.coords[gone, 1], mode="markers", name=REMOVED_NAME, legendrank=LEGEND_LAST,
        marker=dict(symbol="x", size=8, color="rgba(60,60,60,0.75)", line=dict(width=0)),
        customdata=np.asarray(keys, dtype=object).reshape(-1, 1), hovertext=text, hoverinfo="text"), row=1, col=col)


def overlap_scatter(layer: MapLayer, tools: Mapping[str, Tool], *, title: str, subtitle: str = "",
                    after: MapLayer | None = None, merged_into: Mapping[str, str] | None = None,
                    panel_titles: tuple[str, str] = ("Before merging", "After merging"), legend_title: str = "",
                    colours: Mapping[str, str] | None = None, symbols: Mapping[str, str] | None = None,
                    highlight: Collection[str] = (), links: Sequence[OverlapLink] = (),
                    link_threshold: float | None = None,
                    axes: tuple[tuple[float, float], tuple[float, float]] | None = None,
                    height: int | None = None, brief_hover: bool = False) -> go.Figure:
    """The map of ``layer``: one WebGL trace per group (clicking a legend entry hides the group), ``links``
    drawn as lines under the points, the two ends of a link too short to see ringed in black
    (near-duplicates often land on one spot). With ``after``, a second panel of the same width and axes shows
    the merged catalog coloured by the same groups, only the links left among its tools, and a faint × where
    each tool of ``merged_into`` (φ) was folded away. ``link_threshold`` names the cosine above which
    look-alike links were drawn, in their legend entry. With ``highlight`` non-empty, those points keep their
    colour and grow while the rest is greyed out. ``brief_hover`` shows name and group only: descriptions
    are most of the figure's bytes, which every rerun sends to the browser again (40k tools: 11 MB with
    them, ~3 MB without)."""
    groups = list(layer.groups) + (list(after.groups) if after is not None else [])
    colours = dict(colours or group_colours(groups))
    symbols = dict(symbols or group_symbols(groups))
    merged_into = dict(merged_into or {})
    panels = [layer] if after is None else [layer, after]
    fig = make_subplots(rows=1, cols=len(panels), horizontal_spacing=0.025,
                        subplot_titles=list(panel_titles) if after is not None else None)
    shown: set[str] = set()
    stands: dict[str, list[str]] = {}
    for k, rep in merged_into.items():
        if rep != k:
            stands.setdefault(rep, []).append(k)
    names = dict(LINK_NAMES)
    if link_threshold is not None:
        names[LOOK_ALIKE] = f"look-alikes, cos ≥ {link_threshold:.2f}"
    (x0, x1), (y0, y1) = axes if axes is not None else shared_axes(layer.coords)
    short = RING_BELOW * float(np.hypot(x1 - x0, y1 - y0))
    for col, panel in enumerate(panels, start=1):
        ringed = _link_traces(fig, links, panel, tools, col=col, shown=shown, names=names, short=short)
        if col == 2:
            _removed_trace(fig, layer, tools, merged_into, col=col)
        _point_traces(fig, panel, tools, col=col, colours=colours, symbols=symbols, highlight=set(highlight),
                      shown=shown, stands_for=stands if col == 2 else {}, brief_hover=brief_hover,
                      name_chars=40 if after is None else 24)
        if not highlight:
            _ring_trace(fig, panel, ringed, col=col, shown=shown)
    n_legend = len(shown) + (1 if after is not None and any(merged_into.get(k, k) != k for k in layer.keys) else 0)
    if after is None:
        legend = dict(title=dict(text=legend_title), itemsizing="constant", font=dict(size=11), tracegroupgap=2,
                      orientation="v", x=1.01, y=1, yanchor="top")
        height = height or 640
        bottom = 10
    else:
        rows = -(-n_legend // 5)  # five entries a row across the two panels
        bottom = 30 + 19 * rows
        legend = dict(title=dict(text=legend_title, side="top"), itemsizing="constant", font=dict(size=11),
                      orientation="h", x=0, xanchor="left", y=-0.01, yanchor="top", entrywidth=0.19,
                      entrywidthmode="fraction", tracegroupgap=0)
        height = height or 620 + bottom
    fig.update_layout(
        title=dict(text=title, subtitle=dict(text=subtitle, font=dict(size=12, color="#555")), x=0, xanchor="left",
                   font=dict(size=17)),
        height=height, margin=dict(l=10, r=10, t=80 if after is None else 110, b=bottom), dragmode="lasso",
        legend=legend, clickmode="event+select", hovermode="closest", plot_bgcolor="white",
        hoverlabel=dict(align="left"))
    # subplot titles: a little above the frame, and dark (the app's chart theme greys annotations)
    fig.update_annotations(yshift=4, font=dict(size=14, color="#222"))
    fig.update_xaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False, showline=True, mirror=True,
                     linecolor="#d0d0d0", title=None)
    fig.update_yaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False, showline=True, mirror=True,
                     linecolor="#d0d0d0", title=None)
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
