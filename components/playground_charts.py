"""Figures of the Strategy playground: the population moving on the map, fitness, votes, lineage."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.models import Tool
from core.playground import LineageNode, Member

GREY = "rgba(150,150,150,0.35)"


def _label(text: str, limit: int = 90) -> str:
    text = html.escape(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def population_animation(tools: Sequence[Tool], coords: np.ndarray, members: Sequence[Member],
                         gold: Sequence[str], final: Sequence[str]) -> go.Figure:
    """One frame per generation: the catalog in grey, gold tools as stars, the generation's members
    sized and coloured by fitness with lines to the tools each retrieves."""
    index = {t.key: i for i, t in enumerate(tools)}
    base = go.Scatter(x=coords[:, 0], y=coords[:, 1], mode="markers", marker=dict(size=5, color=GREY),
                      text=[_label(f"{t.name}: {t.description}") for t in tools], hoverinfo="text", name="tools")
    gold_idx = [index[k] for k in gold if k in index]
    gold_trace = go.Scatter(x=coords[gold_idx, 0], y=coords[gold_idx, 1], mode="markers",
                            marker=dict(size=15, symbol="star", color="#f4a261", line=dict(width=1, color="#333")),
                            text=[_label(tools[i].name) for i in gold_idx], hoverinfo="text", name="gold")
    found = [index[k] for k in final if k in index]
    final_trace = go.Scatter(x=coords[found, 0], y=coords[found, 1], mode="markers",
                             marker=dict(size=11, symbol="circle-open", color="#2a9d8f", line=dict(width=2)),
                             text=[_label(tools[i].name) for i in found], hoverinfo="text", name="final ranking")
    generations = sorted({m.generation for m in members}) or [0]

    def frame_data(g: int) -> list[go.Scatter]:
        now = [m for m in members if m.generation == g]
        xs, ys = [], []
        for m in now:
            for key in m.top_keys:  # a line to every tool the member retrieved
                if key in index:
                    j = index[key]
                    xs += [m.x, float(coords[j, 0]), None]
                    ys += [m.y, float(coords[j, 1]), None]
        links = go.Scatter(x=xs, y=ys, mode="lines", line=dict(width=1, color="rgba(53,88,214,0.35)"),
                           hoverinfo="skip", name="retrieves")
        fit = [m.fitness if m.fitness is not None else 0.0 for m in now]
        pts = go.Scatter(
            x=[m.x for m in now], y=[m.y for m in now], mode="markers",
            marker=dict(size=[8 + 14 * max(0.0, min(1.0, f)) for f in fit], color=fit, colorscale="Viridis", cmin=0, cmax=1, showscale=True,
                        colorbar=dict(title="fitness"), line=dict(width=1, color="#222")),
            text=[_label(f"{m.id} ({m.origin}) f={m.fitness if m.fitness is not None else '–'}: {m.text}", 160)
                  for m in now], hoverinfo="text", name="population")
        return [links, pts]

    first = frame_data(generations[0])
    fig = go.Figure(data=[base, gold_trace, final_trace, *first],
                    frames=[go.Frame(data=frame_data(g), traces=[3, 4], name=str(g)) for g in generations])
    fig.update_layout(
        height=560, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=1.0, x=0.35, yanchor="bottom"),
        xaxis=dict(visible=False), yaxis=dict(visible=False),
        updatemenus=[dict(type="buttons", x=0.0, y=1.08, direction="left", buttons=[
            dict(label="▶ Play", method="animate",
                 args=[None, {"frame": {"duration": 900, "redraw": True}, "fromcurrent": True,
                              "transition": {"duration": 400}}]),
            dict(label="❚❚", method="animate", args=[[None], {"mode": "immediate", "frame": {"duration": 0}}])])],
        sliders=[dict(active=0, currentvalue={"prefix": "generation "}, steps=[
            dict(label=str(g), method="animate",
                 args=[[str(g)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}])
            for g in generations])],
    )
    return fig


def fitness_lines(fitness_events: Sequence[dict]) -> go.Figure:
    """Best and mean fitness per generation, with the mean of each component (FitText Eqs. 7, 15)."""
    frame = pd.DataFrame(fitness_events)
    fig = go.Figure()
    if not frame.empty:
        by_gen = frame.groupby("generation")
        fig.add_trace(go.Scatter(x=list(by_gen.groups), y=by_gen["f"].max(), mode="lines+markers", name="best f",
                                 line=dict(width=4, color="#e76f51")))
        fig.add_trace(go.Scatter(x=list(by_gen.groups), y=by_gen["f"].mean(), mode="lines+markers", name="mean f",
                                 line=dict(width=2, color="#264653")))
        for comp, color in (("s_ret", "#2a9d8f"), ("llm_score", "#e9c46a"), ("mem", "#8d99ae"), ("crowd", "#f4a261")):
            if comp in frame:
                fig.add_trace(go.Scatter(x=list(by_gen.groups), y=by_gen[comp].mean(), mode="lines",
                                         name=f"mean {comp}", line=dict(dash="dot", color=color)))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="generation",
                      yaxis_title="value", title="Fitness per generation", xaxis=dict(dtick=1))
    return fig


def votes_bar(votes: Sequence[dict], gold: Sequence[str]) -> go.Figure:
    keys = [v["key"] for v in votes]
    fig = go.Figure(go.Bar(x=[html.escape(k) for k in keys], y=[v["votes"] for v in votes],
                           marker_color=["#f4a261" if k in gold else "#3558d6" for k in keys],
                           hovertext=[f"mean rank {v['mean_rank']:.1f} · mean similarity {v['mean_similarity']:.2f}"
                                      for v in votes]))
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), title="Votes (gold in orange)",
                      yaxis_title="votes")
    return fig


OPERATOR_COLOURS = {"ancestor": "#264653", "seed": "#8d99ae", "elite": "#2a9d8f", "crossover": "#e76f51",
                    "mutation": "#3558d6", "guided_mutation": "#7b2cbf", "local_search": "#e9c46a"}


def lineage_tree(nodes: Sequence[LineageNode]) -> go.Figure:
    """The family tree: one column per generation, a line from every parent to its child coloured by the
    operator that made the child, nodes sized by fitness (hover shows the description)."""
    where = {n.id: (n.column, -n.row) for n in nodes}
    fig = go.Figure()
    for origin in dict.fromkeys(n.origin for n in nodes):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for n in nodes:
            if n.origin != origin:
                continue
            for p in n.parents:
                if p in where:
                    xs += [where[p][0], n.column, None]
                    ys += [where[p][1], -n.row, None]
        colour = OPERATOR_COLOURS.get(origin, "#999")
        if xs:
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, width=1.5),
                                     hoverinfo="skip", name=f"{origin} edge", legendgroup=origin, showlegend=False))
        group = [n for n in nodes if n.origin == origin]
        fig.add_trace(go.Scatter(
            x=[n.column for n in group], y=[-n.row for n in group], mode="markers+text", name=origin,
            legendgroup=origin, text=[html.escape(n.id) for n in group], textposition="top center",
            textfont=dict(size=9),
            marker=dict(size=[8 + 18 * (n.fitness or 0.0) for n in group], color=colour,
                        line=dict(width=1, color="#333")),
            hovertext=[_label(f"{n.id} ({n.origin}, f={n.fitness if n.fitness is not None else '–'}): {n.text}",
                              200) for n in group], hoverinfo="text"))
    fig.update_layout(height=max(280, 40 * (max((n.row for n in nodes), default=0) + 2)),
                      margin=dict(l=10, r=10, t=30, b=10), title="Lineage: parents → children by operator",
                      xaxis=dict(title="ancestors · seeds · generations", dtick=1), yaxis=dict(visible=False))
    return fig
