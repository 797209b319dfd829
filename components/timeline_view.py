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
from core.evolution.maps import catalog_tools, step_map
from core.evolution.methods import METHODS
from core.evolution.report import paired_rows, same_series
from core.evolution.service import load_evolution

METHOD_COLOURS = {"original": "#757575", "contda": "#1f5fbf", "contda_no_adjust": "#e07b00",
                  "contda_no_discovery": "#8e44ad"}
STATUS_COLOURS = {"retained": "#8a8a8a", "added": "#2e9e44", "removed": "#d62828", "absent": "rgba(160,160,160,0.18)",
                  "changed": "#f2b705"}
# dashes keep coinciding lines apart (a method that changes nothing draws exactly over the original docs)
METHOD_DASH = {"original": "solid", "contda": "solid", "contda_no_adjust": "dash", "contda_no_discovery": "dot"}
METHOD_SYMBOLS = {"original": "circle", "contda": "diamond", "contda_no_adjust": "square",
                  "contda_no_discovery": "triangle-up"}
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


def paired_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """``report.paired_rows`` as a table: each method against the baseline over the run's (seed, step) cells."""
    columns = ["baseline", "method", "cells", "Δ success (pp)", "95% CI (pp)", "p", "wins/ties/losses"]
    return pd.DataFrame([{c: r.get(c, "") for c in columns} for r in rows], columns=columns)


def rescued_line(rescued: Mapping[str, float], methods: Sequence[str]) -> str:
    """Queries solved through a fallback per method (summed over steps, mean over seeds), as one caption line."""
    return " · ".join(f"{md_escape(method_label(m))}: {rescued.get(m, 0.0):g}" for m in methods)


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


def _error_bars(series: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Standard-error bars for a per-step series, only where it was measured over two or more seeds (one
    seed has no spread: a bar of zero height would read as a measured certainty)."""
    if all(int(s.get("n", 2)) < 2 for s in series):
        return dict(visible=False)
    return dict(type="data", array=[100 * s["se"] for s in series], visible=True, thickness=1.2)


def _spread_text(stat: Mapping[str, Any]) -> str:
    return f" ± {100 * stat['se']:.2f}" if int(stat.get("n", 2)) >= 2 else ""


def _covered(values: Mapping[str, Sequence[float]]) -> dict[str, list[list[str]]]:
    """Per method and step, the other methods with the same value there (to 1e-9)."""
    return {name: [[o for o, theirs in values.items() if o != name and t < len(theirs) and abs(theirs[t] - v) <= 1e-9]
                   for t, v in enumerate(vals)] for name, vals in values.items()}


def success_chart(summary: Mapping[str, Any], labels: Sequence[str]) -> go.Figure:
    """CONTDA Fig. 1A: success rate per method over the steps, mean ± SE over seeds, in %.

    Methods with the same curve stay visible: each method's points sit a little left or right of the step
    (a dodge, as grouped bars do), dashes differ, and the legend and hover name the methods a line coincides
    with."""
    x = step_names(labels)
    methods = summary.get("methods", {})
    same = same_series(summary, "success_by_step")
    values = {n: [100 * s["mean"] for s in m["success_by_step"]] for n, m in methods.items()}
    shared = _covered(values)
    width = 0.07 if len(methods) > 1 else 0.0
    fig = go.Figure()
    for i, (name, m) in enumerate(methods.items()):
        series = m["success_by_step"]
        twins = [methods[o]["label"] for o in same[name]]
        legend = m["label"] + (f" (same line as {' and '.join(twins)})" if twins else "")
        shift = (i - (len(methods) - 1) / 2) * width
        hover = [f"{html.escape(x[t])} · {html.escape(m['label'])}: {y:.1f}%{html.escape(_spread_text(s))}" + (
            f" — same as {html.escape(', '.join(methods[o]['label'] for o in at))}" if at else "")
            for t, (y, s, at) in enumerate(zip(values[name], series, shared[name], strict=True))]
        fig.add_trace(go.Scatter(
            x=[t + shift for t in range(len(series))], y=values[name], mode="lines+markers", name=html.escape(legend),
            line=dict(color=_colour(name), width=2.5, dash=METHOD_DASH.get(name, "solid")),
            marker=dict(size=8, symbol=METHOD_SYMBOLS.get(name, "circle"), line=dict(width=1, color="white")),
            error_y=_error_bars(series), hovertext=hover, hoverinfo="text"))
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=40, b=10), title="Success rate per step",
                      yaxis_title="success rate (%)", xaxis_title="step", yaxis_rangemode="tozero",
                      legend=dict(orientation="h", y=-0.25), hovermode="closest")
    fig.update_xaxes(tickvals=list(range(len(x))), ticktext=x, range=[-0.4, len(x) - 0.6])
    return fig


def forget_discover_chart(summary: Mapping[str, Any], labels: Sequence[str]) -> go.Figure:
    """CONTDA Fig. 1C: Forget_t and Discover_t for t = 1 … T per method (grouped bars, mean ± SE, %)."""
    x = step_names(labels)[1:]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Forget (lower is better)", "Discover (higher is better)"),
                        horizontal_spacing=0.08)
    for name, m in summary.get("methods", {}).items():
        for col, field, what in ((1, "forget_by_step", "Forget"), (2, "discover_by_step", "Discover")):
            series = m[field]
            fig.add_trace(go.Bar(
                x=x[:len(series)], y=[100 * s["mean"] for s in series], name=html.escape(m["label"]),
                legendgroup=name, showlegend=col == 1, marker_color=_colour(name), error_y=_error_bars(series),
                hovertext=[f"{html.escape(m['label'])} · {what} at {html.escape(step)}: {100 * s['mean']:.1f}%"
                           f"{html.escape(_spread_text(s))}" for step, s in zip(x, series, strict=False)],
                hoverinfo="text"), row=1, col=col)
    fig.update_layout(barmode="group", height=360, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", y=-0.15))
    fig.update_yaxes(title_text="% of queries", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    return fig


def tradeoff_chart(summary: Mapping[str, Any]) -> go.Figure:
    """CONTDA Fig. 4b: mean Forget (x) against mean Discover (y), one point per method with SE bars (over two
    or more seeds); the upper left is the better corner.

    Points are named in the legend and on hover, not by text on the plot (labels of near points collide);
    markers shrink in drawing order, so methods on the same or nearby points show as nested rings, and the
    legend says which methods share a point."""
    methods = summary.get("methods", {})
    fig = go.Figure()
    where = {name: (round(100 * m["forget"]["mean"], 3), round(100 * m["discover"]["mean"], 3))
             for name, m in methods.items()}
    symbols = ("circle", "diamond", "square", "triangle-up", "star", "hexagon")
    xs = [100 * (m["forget"]["mean"] + m["forget"]["se"]) for m in methods.values()]
    ys = [100 * (m["discover"]["mean"] + m["discover"]["se"]) for m in methods.values()]
    names = list(methods)
    for i, (name, m) in enumerate(methods.items()):
        x, y = 100 * m["forget"]["mean"], 100 * m["discover"]["mean"]
        twins = [methods[o]["label"] for o in names[:i] if where[o] == where[name]]
        legend = m["label"] + (f" (same point as {' and '.join(twins)})" if twins else "")
        spread = int(m["forget"].get("n", 2)) >= 2
        fig.add_trace(go.Scatter(
            x=[x], y=[y], mode="markers", name=html.escape(legend),
            marker=dict(size=max(8, 24 - 5 * i), color=_colour(name),
                        symbol=METHOD_SYMBOLS.get(name, symbols[i % len(symbols)]),
                        line=dict(width=1.5, color="white")),
            error_x=dict(type="data", array=[100 * m["forget"]["se"]], visible=spread),
            error_y=dict(type="data", array=[100 * m["discover"]["se"]], visible=spread),
            hovertext=[f"{html.escape(legend)}<br>mean Forget {x:.2f}%{html.escape(_spread_text(m['forget']))}"
                       f"<br>mean Discover {y:.2f}%{html.escape(_spread_text(m['discover']))}"],
            hoverinfo="text"))
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=40, b=10), title="Forget–Discover trade-off",
                      xaxis_title="mean Forget (%) — lower is better", yaxis_title="mean Discover (%) — higher is better",
                      legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(range=_around(xs, [100 * (m["forget"]["mean"] - m["forget"]["se"]) for m in methods.values()]))
    fig.update_yaxes(range=_around(ys, [100 * (m["discover"]["mean"] - m["discover"]["se"])
                                        for m in methods.values()]))
    return fig


def _around(highs: Sequence[float], lows: Sequence[float], *, least: float = 2.0) -> list[float]:
    """An axis range around the points (with their error bars) and at least ``least`` percentage points
    wide, so methods a fraction of a point apart are told apart rather than piled up at one spot of a
    0–100 scale; never below 0."""
    lo, hi = min(list(lows) or [0.0]), max(list(highs) or [1.0])
    span = max(hi - lo, least)
    mid = (hi + lo) / 2
    pad = 0.2 * span
    start = max(0.0 - pad / 4, mid - span / 2 - pad)
    return [start, start + span + 2 * pad]


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
                     "retrieved top-k": ", ".join(r.retrieved), "selected": ", ".join(r.selected),
                     "fallbacks": "; ".join(f"{a} → {b} ({'answered' if ok else 'failed'})"
                                            for a, b, ok in r.fallbacks)})
    return pd.DataFrame(rows, columns=["query id", "query", "gold", "cause", "retrieved top-k", "selected",
                                       "fallbacks"])


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


# -- stored runs, read once per change (cached for the process, keyed by the store they come from) ---------------


@st.cache_data(show_spinner=False, max_entries=8)
def _stored_run(store: str, run_id: int, n_items: int, status: str, _ws):
    return load_evolution(_ws, run_id)


def stored_run(ws, info):
    """A stored timeline run (``core.evolution.service.EvolutionRun``) for its row ``info``, read again only
    when it gained items or changed status."""
    return _stored_run(ws.store_url, info.id, info.n_items, info.status, ws)


@st.cache_data(show_spinner="Placing the run's tools on a map…", max_entries=16)
def _run_map(store: str, space: str, run_id: int, seed: int, _ws, _run):
    return step_map(_ws, _run, seed)


def run_map(ws, run, seed: int):
    """Every tool of one seed's sequence placed on a map (``core.evolution.maps.step_map``): keys and 2-D coords."""
    return _run_map(ws.store_url, ws.vector_space, run.run_id, seed, ws, run)


@st.cache_data(show_spinner=False, max_entries=16)
def _tool_names(store: str, catalog: str, keys: tuple[str, ...], _ws):
    return {k: t.name for k, t in catalog_tools(_ws, catalog, keys).items()}


def tool_names(ws, catalog: str, keys) -> dict[str, str]:
    """Key → name of the given tools, from any stored version of ``catalog``."""
    return _tool_names(ws.store_url, catalog, tuple(keys), ws)


@st.cache_data(show_spinner=False, max_entries=8)
def _paired_rows(store: str, run_id: int, n_results: int, _run) -> list[dict[str, Any]]:
    return paired_rows(_run.paired_tests())


def paired_table(ws, run) -> pd.DataFrame:
    """The run's paired tests as a table (``core.evolution.report.paired_tests``), computed once per run state."""
    return paired_frame(_paired_rows(ws.store_url, run.run_id, len(run.results), run))
