"""Plotly figures for catalog statistics.

Plotly interprets a little HTML in labels, so catalog text is entity-escaped first.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence

import plotly.graph_objects as go

from core.models import Tool


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, height=320, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def description_length_histogram(tools: Sequence[Tool]) -> go.Figure:
    lengths = [len(t.description.split()) for t in tools]
    fig = go.Figure(go.Histogram(x=lengths, nbinsx=40, marker_color="#3558d6"))
    return _layout(fig, "Description length", "words", "tools")


def parameter_count_histogram(tools: Sequence[Tool]) -> go.Figure:
    counts = Counter(len(t.parameter_names) for t in tools)
    xs = sorted(counts)
    fig = go.Figure(go.Bar(x=xs, y=[counts[x] for x in xs], marker_color="#7a5af5"))
    return _layout(fig, "Parameters per tool", "parameters", "tools")


def category_bar(tools: Sequence[Tool], top: int = 30) -> go.Figure:
    counts = Counter(t.category or "(none)" for t in tools).most_common(top)
    fig = go.Figure(go.Bar(x=[c for _, c in counts][::-1], y=[html.escape(n) for n, _ in counts][::-1], orientation="h",
                           marker_color="#2a9d8f"))
    fig = _layout(fig, f"Categories (top {min(top, len(counts))})", "tools", "")
    fig.update_layout(height=max(320, 18 * len(counts) + 80))
    return fig


def doc_quality_bar(scores: Sequence[int]) -> go.Figure:
    counts = Counter(scores)
    fig = go.Figure(go.Bar(x=[1, 2, 3, 4, 5], y=[counts.get(s, 0) for s in range(1, 6)],
                           marker_color=["#c0392b", "#e67e22", "#f1c40f", "#7fb77e", "#2a9d8f"]))
    fig = _layout(fig, "Documentation quality (rules)", "score (5 = nothing to fix)", "tools")
    fig.update_xaxes(dtick=1)
    return fig
