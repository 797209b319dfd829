"""Charts and views of a CONTDA timeline run: toolset changes per step, success per method, Forget and
Discover, their trade-off, the catalog map at a step, regressions and documentation revisions.

Everything from the catalog or an operator (names, descriptions, queries, notes) is shown as inert text:
dataframes, ``st.code``, ``st.json`` or escaped markdown; plotly hover text is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from components.text import md_escape
from core.evolution.docs import STAGE_ADJUST, STAGE_EXPLORE, STAGE_SOURCE, Revision, split_notes
from core.evolution.methods import METHODS

METHOD_COLOURS = {"original": "#757575", "contda": "#1f5fbf", "contda_no_adjust": "#e07b00",
                  "contda_no_discovery": "#8e44ad"}
STATUS_COLOURS = {"retained": "#8a8a8a", "added": "#2e9e44", "removed": "#d62828", "absent": "rgba(160,160,160,0.18)",
                  "changed": "#f2b705"}
# dashes keep coinciding lines apart (a method that changes nothing draws exactly over the original docs)
METHOD_DASH = {"original": "solid", "contda": "solid", "contda_no_adjust": "dash", "contda_no_discovery": "dot"}
STAGE_TEXT = {STAGE_SOURCE: "catalog rewrite (source)", STAGE_EXPLORE: "Stage I · exploration (explore)",
              STAGE_ADJUST: "Stage II · relational notes (adjust)"}


def method_label(name: str) -> str:
    return METHODS[name].label if name in METHODS else name


def _colour(name: str) -> str:
    return METHOD_COLOURS.get(name, "#333333")


def step_names(labels: Sequence[str]) -> list[str]:
    """Axis labels: ``t0 · v1`` for versions, plain ``t3`` when the label already is the step."""
    return [f"t{t}" if str(lab) == f"t{t}" else f"t{t} · {lab}" for t, lab in enumerate(labels)]


def summary_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """``report.table_rows`` as a table (CONTDA Table 2 layout: mean ± SE in %, over seeds)."""
    return pd.DataFrame([{"method": r["label"], "AvgPerf (%)": r["AvgPerf"], "Forget (%) ↓": r["Forget"],
                          "Discover (%) ↑": r["Discover"], "seeds": r["seeds"]} for r in rows])


def changes_chart(counts: Sequence[Mapping[str, int]], labels: Sequence[str]) -> go.Figure:
    """CONTDA Fig. 1B: per step the toolset (retained + added, top panel) and the tools added, removed and
    — when any — rewritten by the catalog (bottom panel, own scale so a few changes stay visible next to
    hundreds of retained tools). Step 0 is the starting toolset, all retained."""
    x = step_names(labels)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.45, 0.55], vertical_spacing=0.08,
                        subplot_titles=("toolset size", "changes at the step"))
    retained = [c["retained"] for c in counts]
    # grouped bars; the upper panel's two traces share an offset group and the second starts where the
    # first ends, so they read as one stacked bar
    fig.add_trace(go.Bar(x=x, y=retained, name="retained", marker_color=STATUS_COLOURS["retained"],
                         offsetgroup="size", width=0.6, offset=-0.3), row=1, col=1)
    fig.add_trace(go.Bar(x=x, y=[c["added"] for c in counts], base=retained, name="added",
                         marker_color=STATUS_COLOURS["added"], offsetgroup="size", width=0.6, offset=-0.3, showlegend=False,
                         legendgroup="added"), row=1, col=1)
    kinds = [("added", "added"), ("removed", "removed")]
    if any(c.get("changed") for c in counts):
        kinds.append(("changed", "rewritten (of retained)"))
    for kind, name in kinds:
        values = [c.get(kind, 0) for c in counts]
        fig.add_trace(go.Bar(x=x, y=values, name=name, marker_color=STATUS_COLOURS[kind], legendgroup=kind,
                             offsetgroup=kind, text=[v or "" for v in values], textposition="outside",
                             cliponaxis=False), row=2, col=1)
    fig.update_layout(barmode="group", height=440, margin=dict(l=10, r=10, t=60, b=10),
                      title="Toolset per step: retained / added / removed", legend=dict(orientation="h", y=-0.1))
    fig.update_yaxes(title_text="tools", row=1, col=1)
    top = max((c.get(k, 0) for c in counts for k, _ in kinds), default=0)
    fig.update_yaxes(title_text="tools", range=[0, max(top, 1) * 1.25], row=2, col=1)
    return fig


def success_chart(summary: Mapping[str, Any], labels: Sequence[str]) -> go.Figure:
    """CONTDA Fig. 1A: success rate per method over the steps, mean ± SE over seeds, in %."""
    x = step_names(labels)
    fig = go.Figure()
    for name, m in summary.get("methods", {}).items():
        series = m["success_by_step"]
        fig.add_trace(go.Scatter(
            x=x[:len(series)], y=[100 * s["mean"] for s in series], mode="lines+markers", name=m["label"],
            line=dict(color=_colour(name), width=2.5, dash=METHOD_DASH.get(name, "solid")), marker=dict(size=8),
            error_y=dict(type="data", array=[100 * s["se"] for s in series], visible=True, thickness=1.2)))
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10), title="Success rate per step",
                      yaxis_title="success rate (%)", yaxis_rangemode="tozero",
                      legend=dict(orientation="h", y=-0.15))
    return fig


def forget_discover_chart(summary: Mapping[str, Any], labels: Sequence[str]) -> go.Figure:
    """CONTDA Fig. 1C: Forget_t and Discover_t for t = 1 … T per method (grouped bars, mean ± SE, %)."""
    x = step_names(labels)[1:]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Forget (lower is better)", "Discover (higher is better)"),
                        horizontal_spacing=0.08)
    for name, m in summary.get("methods", {}).items():
        for col, field in ((1, "forget_by_step"), (2, "discover_by_step")):
            series = m[field]
            fig.add_trace(go.Bar(
                x=x[:len(series)], y=[100 * s["mean"] for s in series], name=m["label"], legendgroup=name,
                showlegend=col == 1, marker_color=_colour(name),
                error_y=dict(type="data", array=[100 * s["se"] for s in series], visible=True)), row=1, col=col)
    fig.update_layout(barmode="group", height=360, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", y=-0.15))
    fig.update_yaxes(title_text="% of queries", row=1, col=1)
    return fig


def tradeoff_chart(summary: Mapping[str, Any]) -> go.Figure:
    """CONTDA Fig. 4b: mean Forget (x) against mean Discover (y), one point per method with SE bars; the
    upper left is the better corner. Methods landing on the same point share one label."""
    methods = summary.get("methods", {})
    fig = go.Figure()
    points: dict[tuple[float, float], list[str]] = {}
    for m in methods.values():
        points.setdefault((round(100 * m["forget"]["mean"], 3), round(100 * m["discover"]["mean"], 3)),
                          []).append(m["label"])
    symbols = ("circle", "diamond", "square", "triangle-up", "star", "hexagon")
    xs = [100 * (m["forget"]["mean"] + m["forget"]["se"]) for m in methods.values()] or [1.0]
    ys = [100 * (m["discover"]["mean"] + m["discover"]["se"]) for m in methods.values()] or [1.0]
    mid, top = max(max(xs), 1.0) / 2, max(max(ys), 1.0)
    # labels alternate above and below (in x order) and point inward so neighbours and edges do not clip them
    order = {p: i for i, p in enumerate(sorted(points))}
    for i, (name, m) in enumerate(methods.items()):
        x, y = 100 * m["forget"]["mean"], 100 * m["discover"]["mean"]
        point = (round(x, 3), round(y, 3))
        group = points[point]
        label = " / ".join(group) if group[0] == m["label"] else ""
        above = y < 0.2 * top or (order[point] % 2 == 0 and y < 0.9 * top)
        where = ("top" if above else "bottom") + (" right" if x <= mid else " left")
        fig.add_trace(go.Scatter(
            x=[x], y=[y], mode="markers+text", name=m["label"], text=[label], textposition=where, cliponaxis=False,
            marker=dict(size=15 - 3 * group.index(m["label"]), color=_colour(name), symbol=symbols[i % len(symbols)],
                        line=dict(width=1, color="#222")),
            error_x=dict(type="data", array=[100 * m["forget"]["se"]], visible=True),
            error_y=dict(type="data", array=[100 * m["discover"]["se"]], visible=True),
            hovertemplate=f"{html.escape(m['label'])}<br>Forget %{{x:.2f}}%<br>Discover %{{y:.2f}}%<extra></extra>"))
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10), title="Forget–Discover trade-off",
                      xaxis_title="mean Forget (%) — lower is better", yaxis_title="mean Discover (%) — higher is better",
                      legend=dict(orientation="h", y=-0.22))
    fig.update_xaxes(range=[-0.08 * max(max(xs), 1.0), 1.3 * max(max(xs), 1.0)])
    fig.update_yaxes(range=[-0.08 * max(max(ys), 1.0), 1.25 * max(max(ys), 1.0)])
    return fig


def step_map_chart(keys: Sequence[str], coords: np.ndarray, status: Mapping[str, str], names: Mapping[str, str],
                   *, title: str, height: int = 520) -> go.Figure:
    """The catalog map at one step: every tool of the run placed once; retained grey, added green, removed
    red (at its old place, as a cross), absent faint. Hover shows key and name."""
    fig = go.Figure()
    style = {"absent": dict(size=5, symbol="circle"), "retained": dict(size=7, symbol="circle"),
             "removed": dict(size=11, symbol="x", line=dict(width=1, color="#7a0000")),
             "added": dict(size=11, symbol="circle", line=dict(width=1, color="#0b4d1a"))}
    for state in ("absent", "retained", "removed", "added"):
        idx = [i for i, k in enumerate(keys) if status.get(k) == state]
        if not idx:
            continue
        hover = [f"<b>{html.escape(keys[i])}</b><br>{html.escape(names.get(keys[i], keys[i]))}<br>{state}" for i in idx]
        fig.add_trace(go.Scattergl(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers", name=f"{state} ({len(idx)})",
            marker=dict(color=STATUS_COLOURS[state], **style[state]), hovertext=hover, hoverinfo="text"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=45, b=10),
                      legend=dict(itemsizing="constant"), xaxis=dict(showticklabels=False, title=None),
                      yaxis=dict(showticklabels=False, title=None))
    return fig


def regression_frame(regs: Sequence[Any], queries: Mapping[str, Any]) -> pd.DataFrame:
    """One row per regression (CONTDA Table 1 cause), query text and gold from the catalog's query set."""
    rows = []
    for r in regs:
        q = queries.get(r.qid)
        rows.append({"query id": r.qid, "query": q.text if q else "(not in the stored query sets)",
                     "gold": ", ".join(q.gold) if q else "", "cause": r.cause,
                     "retrieved top-k": ", ".join(r.retrieved), "selected": ", ".join(r.selected)})
    return pd.DataFrame(rows, columns=["query id", "query", "gold", "cause", "retrieved top-k", "selected"])


def causes_line(causes: Mapping[str, float]) -> str:
    return " · ".join(f"{c}: {v:g}" for c, v in causes.items())


def revision_view(rev: Revision, step_label: str, *, key: str) -> None:
    """One revision: when and how it happened, the unified diff, the relational notes of the new text and
    the evidence behind it."""
    st.markdown(f"**{md_escape(step_label)}** · {STAGE_TEXT.get(rev.stage, md_escape(rev.stage))}")
    st.code(rev.diff or "(no line changed)", language="diff", wrap_lines=True)
    _, notes = split_notes(rev.after)
    if notes:
        st.caption("Relational notes in the revised text (Stage II)")
        st.code(notes, language=None, wrap_lines=True)
    with st.expander("Evidence", expanded=False):
        probes = rev.evidence.get("probes") if isinstance(rev.evidence, Mapping) else None
        if probes:
            st.caption("Stage I probes: track, query, outcome")
            st.dataframe(pd.DataFrame([list(p) + [""] * (3 - len(p)) for p in probes],
                                      columns=["track", "probe query", "outcome"]),
                         hide_index=True, width="stretch", key=f"{key}_probes")
        st.json(dict(rev.evidence), expanded=not probes)
