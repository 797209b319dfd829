"""Shared pieces of the merge pages: run (or rebuild) a merge with a progress bar, and the sweep chart."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from core.merging.candidates import SweepRow
from core.merging.pipeline import MergeConfig
from core.merging.service import MergeRun, judge_id, merge_version
from storage.merges import list_merge_runs

STAGES = {"pairs": "Classifying candidate pairs", "audit": "Auto-Correction audits", "docs": "Writing merged docs"}


def finished_run(ws, version_id: int, config: MergeConfig, llm) -> bool:
    wanted = {"version_id": version_id, **config.as_dict(), "judge": judge_id(llm)}
    return any(r.status == "done" and dict(r.config) == wanted for r in list_merge_runs(ws.db, version_id))


def run_with_progress(ws, version_id: int, config: MergeConfig, llm, api_key: str | None = None) -> MergeRun:
    bar = st.progress(0.0, text="Finding candidate pairs…")

    def report(done: int, total: int, stage: str) -> None:
        bar.progress(done / total if total else 1.0, text=f"{STAGES.get(stage, stage)}: {done}/{total}")

    run = merge_version(ws, version_id, config, llm, api_key=api_key, progress=report)
    bar.empty()
    return run


def sweep_chart(rows: list[SweepRow], chosen: float) -> go.Figure:
    fig = go.Figure()
    x = [r.threshold for r in rows]
    fig.add_trace(go.Scatter(x=x, y=[r.pairs for r in rows], mode="lines+markers", name="candidate pairs"))
    fig.add_trace(go.Scatter(x=x, y=[r.tools_in_clusters for r in rows], mode="lines+markers",
                             name="tools in clusters"))
    fig.add_trace(go.Scatter(x=x, y=[r.clusters for r in rows], mode="lines+markers", name="clusters"))
    fig.add_vline(x=chosen, line_dash="dot", annotation_text=f"θ = {chosen:.2f}")
    fig.update_layout(height=280, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="cosine threshold θ",
                      title="Threshold sweep (candidate graph before any judging)")
    return fig
