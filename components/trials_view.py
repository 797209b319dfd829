"""Charts and tables of GRETEL trials: step timelines, rankings before/after, the failure taxonomy."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.text import md_escape
from core.trials.evidence import (
    EXECUTION_FAILURE,
    FUNCTIONAL_SUCCESS,
    NOT_EXECUTED,
    PARAMETER_MISMATCH,
    PLANNING_FAILED,
    SEMANTIC_MISMATCH,
    Trial,
    TrialReport,
)

COLOURS = {FUNCTIONAL_SUCCESS: "#2e7d32", SEMANTIC_MISMATCH: "#f9a825", PARAMETER_MISMATCH: "#ef6c00",
           PLANNING_FAILED: "#c62828", EXECUTION_FAILURE: "#6a1b9a", NOT_EXECUTED: "#757575"}
# plain symbols: emoji fonts are missing on many servers and headless browsers
ICONS = {FUNCTIONAL_SUCCESS: "✓", SEMANTIC_MISMATCH: "∅", PARAMETER_MISMATCH: "✗", PLANNING_FAILED: "✗",
         EXECUTION_FAILURE: "!", NOT_EXECUTED: "○"}
_STEP_COLOURS = {"ok": "#43a047", "failed": "#e53935", "skipped": "#9e9e9e"}
_STEP_LABELS = {"plan": "plan", "execute": "call", "simulate": "simulate", "classify": "class"}


def outcome_label(trial: Trial) -> str:
    sim = " · simulated answer" if trial.simulation_used else ""
    return f"{ICONS[trial.outcome]} {trial.outcome}{sim}"


def ranking_table(report: TrialReport, names: Mapping[str, str]) -> pd.DataFrame:
    """GRETEL Table 5 as a table: each candidate's place before and after, the move, and its evidence."""
    gold = set(report.gold)
    moves = report.moves()
    rows = []
    for i, key in enumerate(report.after):
        trial = report.trial(key)
        move = moves.get(key, 0)
        arrow = f"▲ {move}" if move > 0 else (f"▼ {-move}" if move < 0 else "•")
        rows.append({"after": i + 1, "before": report.before.index(key) + 1, "move": arrow,
                     "tool": names.get(key, key), "gold": "★" if key in gold else "",
                     "outcome": outcome_label(trial) if trial else "", "why": report.rerank.reasons.get(key, "")})
    return pd.DataFrame(rows)


def step_timeline(trial: Trial) -> go.Figure:
    """One bar per step of the trial, laid end to end in time, coloured by how the step ended."""
    fig = go.Figure()
    start = 0.0
    for step in trial.steps:
        width = max(step.seconds, 0.002)
        fig.add_trace(go.Bar(
            y=[trial.name], x=[width], base=[start], orientation="h", name=_STEP_LABELS[step.name],
            marker_color=_STEP_COLOURS[step.status], text=[f"{_STEP_LABELS[step.name]} · {step.status}"],
            textposition="inside", insidetextanchor="middle", showlegend=False,
            hovertemplate=f"{_STEP_LABELS[step.name]} ({step.status}): {step.seconds * 1000:.1f} ms<extra></extra>"))
        start += width
    fig.update_layout(height=110, margin=dict(l=10, r=10, t=10, b=30), barmode="stack",
                      xaxis_title="seconds", yaxis_visible=False)
    return fig


def taxonomy_chart(failures: Mapping[str, Any]) -> go.Figure:
    """GRETEL Table 4: shares of the top-k candidates' trials per outcome class."""
    counts = failures.get("counts", {})
    classes = [FUNCTIONAL_SUCCESS, SEMANTIC_MISMATCH, PARAMETER_MISMATCH, PLANNING_FAILED, EXECUTION_FAILURE]
    judged = max(int(failures.get("judged", 0)), 1)
    fig = go.Figure(go.Bar(
        x=[counts.get(c, 0) / judged for c in classes], y=[c.replace("_", " ").lower() for c in classes],
        orientation="h", marker_color=[COLOURS[c] for c in classes],
        text=[f"{counts.get(c, 0)} ({counts.get(c, 0) / judged:.0%})" for c in classes], textposition="auto"))
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=40, b=30), xaxis_tickformat=".0%",
                      title=f"Outcome of the top-{failures.get('k', 5)} candidates' trials "
                            f"({failures.get('judged', 0)} tried, {counts.get(NOT_EXECUTED, 0)} not executable)")
    return fig


def metrics_table(metrics: Mapping[str, Any]) -> pd.DataFrame:
    before, after = metrics.get("before", {}), metrics.get("after", {})
    return pd.DataFrame([{"measure": m, "before": before[m], "after": after.get(m), "change": after.get(m, 0) - before[m]}
                         for m in before])


def show_json(value: Any, *, key: str) -> None:
    """JSON shown as code (inert text, whatever a tool returned)."""
    st.code(json.dumps(value, indent=2, ensure_ascii=False, default=str)[:8000], language="json")


def trial_detail(trial: Trial, *, key: str) -> None:
    st.plotly_chart(step_timeline(trial), width="stretch", key=f"{key}_timeline")
    for step in trial.steps:
        head = f"**{_STEP_LABELS[step.name]}** · {step.status} · {step.seconds * 1000:.1f} ms"
        st.markdown(head)
        if step.note:
            st.caption(md_escape(step.note))
        if step.name != "classify" or step.output:
            show_json({"input": step.input, "output": step.output}, key=f"{key}_{step.name}")


def reports_table(reports: Sequence[TrialReport], k: int) -> pd.DataFrame:
    rows = []
    for r in reports:
        gold = set(r.gold)
        first_before = next((i + 1 for i, key in enumerate(r.before) if key in gold), None)
        first_after = next((i + 1 for i, key in enumerate(r.after) if key in gold), None)
        rows.append({"query": r.query_id, "text": r.query[:90], "gold rank before": first_before,
                     "gold rank after": first_after,
                     f"successes in top {k}": sum(1 for key in r.after[:k]
                                                  if (t := r.trial(key)) and t.outcome == FUNCTIONAL_SUCCESS)})
    return pd.DataFrame(rows)
