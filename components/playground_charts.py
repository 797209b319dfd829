"""Figures and tables of the Strategy playground: the population moving on the map, fitness, votes, lineage,
and a strategy's final ranking; and the page's two sections a widget changes (one strategy's search, two side by
side), each a fragment.

Generations are numbered as ``core.playground`` explains (1 = the seed population, ancestors 0) on every
figure: slider, fitness axis, lineage columns and hover labels. Tool names, descriptions and model output are
HTML-escaped in every hover and label.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.text import md_escape
from core.models import Tool
from core.playground import (
    LineageNode,
    Member,
    RankedTool,
    in_score_order,
    lineage,
    member_label,
    ranking,
    step_word,
    trace_events,
)
from core.playground_runs import PlaygroundRun
from core.playground_service import llm_calls
from core.strategies.base import RetrievalResult
from core.strategies.fitness import spearman

GREY = "rgba(150,150,150,0.35)"
GOLD = "#f4a100"
FINAL = "#2a9d8f"
# light to dark blue: no yellow end that a gold star could be mistaken for
FITNESS_SCALE = [[0.0, "#dbe7f5"], [0.5, "#6b9bd1"], [1.0, "#0b2e6b"]]
ORIGIN_LABELS = {"ancestor": "ancestor (the query's pseudo-tool)", "seed": "seed (written from its ancestor)",
                 "elite": "elite (best, carried over)", "crossover": "crossover of two parents",
                 "mutation": "mutation", "guided_mutation": "guided mutation", "local_search": "local search",
                 "copy": "copy (the operator failed)", "refine": "refinement", "refine_all": "joint refinement",
                 "scatter": "scattered variant"}
OPERATOR_COLOURS = {"ancestor": "#264653", "seed": "#8d99ae", "elite": "#2a9d8f", "crossover": "#e76f51",
                    "mutation": "#3558d6", "guided_mutation": "#7b2cbf", "local_search": "#e9c46a",
                    "copy": "#b0b0b0", "refine": "#3558d6", "refine_all": "#3558d6", "scatter": "#e76f51"}
COMPONENTS = {  # fitness terms of FitText Eqs. 7 and 15, in words
    "s_ret": ("mean retrieval score", "#2a9d8f"), "llm_score": ("mean LLM relevance score", "#e9c46a"),
    "mem": ("mean memory penalty", "#8d99ae"), "crowd": ("mean crowding penalty", "#f4a261"),
    "s_anchor": ("mean ancestor-anchored score", "#6a4c93")}
TRUTH = "#d62828"  # the members' true quality against gold, on every figure that shows it
ANCESTOR_COLOURS = ("#3558d6", "#e76f51", "#2a9d8f", "#7b2cbf", "#e9c46a", "#264653")


def _label(text: str, limit: int = 90) -> str:
    text = html.escape(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fitness_text(f: float | None) -> str:
    return "not scored" if f is None else f"fitness {f:.3f}"


def population_animation(tools: Sequence[Tool], coords: np.ndarray, members: Sequence[Member],
                         gold: Sequence[str], final: Sequence[str], *, step: str = "generation",
                         height: int = 560, legend: bool = True, title: str = "The search on the catalog map"
                         ) -> go.Figure:
    """The search on the catalog map, one frame per generation (or turn): the catalog in grey, the
    generation's descriptions coloured by fitness with lines to the tools each retrieves, the ancestors as
    diamonds, the final top-k ringed and gold tools as stars drawn on top of everything."""
    index = {t.key: i for i, t in enumerate(tools)}
    ancestors = [m for m in members if m.generation == 0]
    moving = [m for m in members if m.generation != 0] or ancestors
    scored = any(m.fitness is not None for m in moving)
    generations = sorted({m.generation for m in moving}) or [0]

    base = go.Scatter(x=coords[:, 0], y=coords[:, 1], mode="markers", marker=dict(size=5, color=GREY),
                      text=[_label(f"{t.name}: {t.description}") for t in tools], hoverinfo="text",
                      name="catalog tool")  # legend names short: the caption under the map says more

    def frame_data(g: int) -> list[go.Scatter]:
        now = [m for m in moving if m.generation == g]
        xs: list[float | None] = []
        ys: list[float | None] = []
        for m in now:
            for key in m.top_keys:  # a line to every tool the member retrieved
                if key in index:
                    j = index[key]
                    xs += [m.x, float(coords[j, 0]), None]
                    ys += [m.y, float(coords[j, 1]), None]
        links = go.Scatter(x=xs, y=ys, mode="lines", line=dict(width=1, color="rgba(53,88,214,0.3)"),
                           hoverinfo="skip", name="retrieves")
        fit = [m.fitness if m.fitness is not None else 0.0 for m in now]
        marker = dict(size=[9 + 12 * max(0.0, min(1.0, f)) for f in fit] if scored else 11,
                      line=dict(width=1, color="#222"))
        if scored:
            marker.update(color=fit, colorscale=FITNESS_SCALE, cmin=0, cmax=1, showscale=True,
                          colorbar=dict(title="description<br>fitness", len=0.7, thickness=14))
        else:
            marker.update(color="#6b9bd1")
        pts = go.Scatter(
            x=[m.x for m in now], y=[m.y for m in now], mode="markers", marker=marker,
            text=[f"<b>{html.escape(m.label or m.id)}</b> · {html.escape(ORIGIN_LABELS.get(m.origin, m.origin))}"
                  f" · {_fitness_text(m.fitness)}<br>{_label(m.text, 160)}" for m in now],
            hoverinfo="text", name="description")  # its colour is explained by the colour bar
        return [links, pts]

    anc = go.Scatter(x=[m.x for m in ancestors], y=[m.y for m in ancestors], mode="markers",
                     marker=dict(size=12, symbol="diamond", color="#264653", line=dict(width=1, color="white")),
                     text=[f"<b>{html.escape(m.label or m.id)}</b><br>{_label(m.text, 160)}" for m in ancestors],
                     hoverinfo="text", name="ancestor", visible=bool(ancestors) and moving is not ancestors)
    found = [index[k] for k in final if k in index]
    final_trace = go.Scatter(x=coords[found, 0], y=coords[found, 1], mode="markers",
                             marker=dict(size=16, symbol="circle-open", color=FINAL, line=dict(width=2.5)),
                             text=[_label(tools[i].name) for i in found], hoverinfo="text", name="final top-k")
    gold_idx = [index[k] for k in gold if k in index]
    gold_trace = go.Scatter(x=coords[gold_idx, 0], y=coords[gold_idx, 1], mode="markers",
                            marker=dict(size=24, symbol="star", color=GOLD, line=dict(width=1.5, color="#222")),
                            text=[f"gold: {_label(tools[i].name)}" for i in gold_idx], hoverinfo="text",
                            name="gold tool")
    first = frame_data(generations[0])
    # drawing order = stacking order: the gold stars last, so no population marker hides them
    fig = go.Figure(data=[base, *first, anc, final_trace, gold_trace])
    top = 100 if legend else 40  # the title, then the legend's two rows, above the map
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=top, b=10), showlegend=legend,
                      title=dict(text=html.escape(title), x=0.0, xanchor="left", y=0.99, yanchor="top",
                                 yref="container"),
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=0.0, font=dict(size=12),
                                  entrywidth=0.33, entrywidthmode="fraction"),  # three a row, however narrow
                      xaxis=dict(visible=False), yaxis=dict(visible=False), hovermode="closest")
    if len(generations) > 1:
        # buttons and slider under the map, the legend above it: nothing overlaps the points or each other
        fig.frames = [go.Frame(data=frame_data(g), traces=[1, 2], name=str(g)) for g in generations]
        fig.update_layout(
            margin=dict(l=10, r=10, t=top, b=90),
            updatemenus=[dict(type="buttons", x=0.0, y=-0.02, xanchor="left", yanchor="top", direction="left",
                              pad=dict(r=6, t=28), buttons=[
                dict(label="▶ Play", method="animate",
                     args=[None, {"frame": {"duration": 900, "redraw": True}, "fromcurrent": True,
                                  "transition": {"duration": 400}}]),
                dict(label="❚❚", method="animate",
                     args=[[None], {"mode": "immediate", "frame": {"duration": 0}}])])],
            sliders=[dict(active=0, x=0.36, len=0.64, y=-0.02, yanchor="top", pad=dict(t=10, b=0),
                          currentvalue={"prefix": f"{step} ", "visible": True, "xanchor": "left"}, steps=[
                dict(label=str(g), method="animate",
                     args=[[str(g)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}])
                for g in generations])],
        )
    return fig


def fitness_lines(fitness_events: Sequence[dict], k: int = 5) -> go.Figure:
    """Best and mean fitness per generation, with the mean of each term (FitText Eqs. 7, 15); generation g is
    Alg. 1's round g (1 = the seed population). Where the query has gold (events with ``ndcg``), the members'
    true quality beside it: their mean nDCG@k and the nDCG@k of the fittest member."""
    frame = pd.DataFrame(fitness_events)
    fig = go.Figure()
    if not frame.empty:
        by_gen = frame.groupby("generation")
        gens = [int(g) for g in by_gen.groups]
        mean_f = list(by_gen["f"].mean())
        # the terms first, beneath: one that equals the mean fitness (no penalty bit) is drawn as a wide pale
        # band under the fitness line and says so, instead of vanishing behind it
        for comp, (name, color) in COMPONENTS.items():
            if comp in frame:
                values = list(by_gen[comp].mean())
                same = all(abs(a - b) <= 1e-9 for a, b in zip(values, mean_f, strict=True))
                fig.add_trace(go.Scatter(
                    x=gens, y=values, mode="lines+markers", name=name + (" (same as mean fitness)" if same else ""),
                    line=dict(dash="solid" if same else "dot", color=color, width=9 if same else 2),
                    marker=dict(size=5), opacity=0.45 if same else 1.0))
        fig.add_trace(go.Scatter(x=gens, y=by_gen["f"].max(), mode="lines+markers", name="best fitness",
                                 line=dict(width=4, color="#e76f51")))
        fig.add_trace(go.Scatter(x=gens, y=mean_f, mode="lines+markers", name="mean fitness",
                                 line=dict(width=2, color="#264653")))
        if "ndcg" in frame:
            fittest = frame.loc[by_gen["f"].idxmax()]
            fig.add_trace(go.Scatter(x=gens, y=list(by_gen["ndcg"].mean()), mode="lines+markers",
                                     name=f"mean nDCG@{k} against gold (truth)",
                                     line=dict(width=2, dash="dash", color=TRUTH)))
            fig.add_trace(go.Scatter(x=gens, y=list(fittest["ndcg"]), mode="markers",
                                     name=f"nDCG@{k} of the fittest member", marker=dict(size=11, symbol="x",
                                                                                     color=TRUTH)))
    title = "Fitness per generation" + (" beside the truth" if "ndcg" in frame else "")
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="generation",
                      yaxis_title="value (0–1)", title=title, xaxis=dict(dtick=1),
                      legend=dict(orientation="h", y=-0.25), hovermode="x unified")
    return fig


def fitness_truth_scatter(fitness_events: Sequence[dict], k: int = 5) -> go.Figure | None:
    """Every scored member as a point, fitness across and its nDCG@k against gold up (one colour per
    generation), with Spearman's ρ of the two in the title: does fitness rank members the way the truth does?
    None when the events carry no truth (no gold)."""
    rows = [f for f in fitness_events if "ndcg" in f]
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    rho = spearman(list(frame["f"]), list(frame["ndcg"]))
    fig = go.Figure()
    for g, group in frame.groupby("generation"):
        fig.add_trace(go.Scatter(
            x=group["f"], y=group["ndcg"], mode="markers", name=f"generation {int(g)}",
            marker=dict(size=10, opacity=0.75, line=dict(width=1, color="#333")),
            hovertext=[f"{html.escape(member_label(str(r['id']), int(r['generation'])))} · fitness {r['f']:.3f} · "
                       f"nDCG@{k} {r['ndcg']:.2f}" for _, r in group.iterrows()], hoverinfo="text"))
    said = "ρ undefined: one of the two never varies" if math.isnan(rho) else f"Spearman ρ = {rho:.2f}"
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=40, b=10), title=f"Fitness against the truth ({said})",
                      xaxis_title="fitness", yaxis_title=f"nDCG@{k} against gold", yaxis=dict(range=[-0.05, 1.05]),
                      legend=dict(orientation="h", y=-0.25, title=None))
    return fig


def votes_bar(votes: Sequence[dict], gold: Sequence[str], names: Mapping[str, str] | None = None,
              order: Sequence[str] = ()) -> go.Figure:
    """FitText Alg. 7's vote: per tool, the votes each ancestor's last population gave it (stacked, one
    colour per ancestor), tools on the vertical axis so long names never collide; gold tools are starred and
    ``order`` (the final ranking) comes first, top down."""
    names = names or {}
    tally: dict[str, dict[int, dict]] = {}
    for v in votes:
        tally.setdefault(v["key"], {})[int(v.get("ancestor", 0))] = v
    keys = [k for k in order if k in tally] + sorted((k for k in tally if k not in order),
                                                     key=lambda k: -sum(x["votes"] for x in tally[k].values()))
    label = {k: ("★ " if k in gold else "") + html.escape(names.get(k, k)) for k in keys}
    fig = go.Figure()
    for a in sorted({a for per in tally.values() for a in per}):
        rows = [k for k in keys if a in tally[k]]
        fig.add_trace(go.Bar(
            y=[label[k] for k in rows], x=[tally[k][a]["votes"] for k in rows], orientation="h",
            name=f"ancestor {a + 1}", marker_color=ANCESTOR_COLOURS[a % len(ANCESTOR_COLOURS)],
            hovertext=[f"{label[k]} · ancestor {a + 1}: {tally[k][a]['votes']} votes, mean rank "
                       f"{tally[k][a]['mean_rank']:.1f}, mean similarity {tally[k][a]['mean_similarity']:.2f}"
                       for k in rows], hoverinfo="text"))
    fig.update_layout(barmode="stack", height=max(260, 110 + 24 * len(keys)), margin=dict(l=10, r=10, t=60, b=10),
                      title="Votes per tool (★ gold)", xaxis_title="votes (descriptions that retrieved it)",
                      yaxis=dict(autorange="reversed", categoryorder="array", categoryarray=[label[k] for k in keys]),
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right",
                                  traceorder="normal"), showlegend=len(fig.data) > 1)
    return fig


def lineage_tree(nodes: Sequence[LineageNode], *, step: str = "generation") -> go.Figure:
    """The family tree: one column per generation (0: ancestors), a line from every parent to its child
    coloured by the operator that made the child, nodes sized by fitness; names and texts on hover (always-on
    labels of dozens of nodes collide)."""
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
                                     hoverinfo="skip", legendgroup=origin, showlegend=False))
        group = [n for n in nodes if n.origin == origin]
        fig.add_trace(go.Scatter(
            x=[n.column for n in group], y=[-n.row for n in group], mode="markers",
            name=html.escape(ORIGIN_LABELS.get(origin, origin)), legendgroup=origin,
            marker=dict(size=[9 + 16 * max(0.0, n.fitness or 0.0) for n in group], color=colour,
                        line=dict(width=1, color="#333")),
            hovertext=[f"<b>{html.escape(n.label or n.id)}</b> · {html.escape(ORIGIN_LABELS.get(n.origin, n.origin))}"
                       f" · {_fitness_text(n.fitness)}"
                       + (f"<br>from {html.escape(', '.join(member_label(p) for p in n.parents))}" if n.parents else "")
                       + f"<br>{_label(n.text, 200)}" for n in group], hoverinfo="text"))
    columns = sorted({n.column for n in nodes})
    ticks = ["ancestors" if c == 0 else f"{step} {c}" + (" (seeds)" if c == 1 and step == "generation" else "")
             for c in columns]
    fig.update_layout(height=max(320, 34 * (max((n.row for n in nodes), default=0) + 3) + 60),
                      margin=dict(l=10, r=10, t=40, b=80), title="Lineage: parents → children, by operator",
                      xaxis=dict(title=None, tickvals=columns, ticktext=ticks, showgrid=True),
                      yaxis=dict(visible=False),
                      legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom"))
    return fig


def ranking_frame(rows: Sequence[RankedTool], gold: Sequence[str], names: Mapping[str, str], *,
                  scored: bool = False) -> pd.DataFrame:
    """The final ranking as a table, best first, gold tools starred. A voted ranking shows the vote behind
    each place: the ancestor whose vote placed the tool and its votes there. When the joined list is sorted on a
    score (``scored``: the memetic strategies' anchored vote score) the table shows that score; a round-robin join
    (Scattershot) has no score in rank order, so it shows the mean rank that breaks ties in votes instead (the
    mean rank is on the votes chart's hover either way)."""
    voted = any(r.votes is not None for r in rows)
    out = []
    for r in rows:
        row: dict[str, object] = {"rank": r.rank, "tool": ("★ " if r.key in gold else "") + names.get(r.key, r.key)}
        if voted:
            row.update({"ancestor": r.ancestor, "votes": r.votes})
            if scored:  # what orders the list, in place of the vote's tie-break (on the votes chart's hover)
                row["score"] = round(r.score, 4)
            else:
                row["mean rank"] = None if r.mean_rank is None else round(r.mean_rank, 2)
        else:
            row["score"] = round(r.score, 4)
        out.append(row)
    return pd.DataFrame(out)


def ranking_table(rows: Sequence[RankedTool], gold: Sequence[str], names: Mapping[str, str], *, key: str,
                  scored: bool = False) -> None:
    """``ranking_frame`` as a compact table: narrow number columns, so the tool name and every vote column fit
    in a side column."""
    column = st.column_config.NumberColumn
    st.dataframe(ranking_frame(rows, gold, names, scored=scored), hide_index=True, width="stretch", key=key, column_config={
        "rank": column("rank", width=44), "tool": st.column_config.TextColumn("tool", width=140),
        "ancestor": column("ancestor", width=66, help="The ancestor (query intent) whose population's vote "
                                                      "placed the tool (FitText Alg. 7)."),
        "votes": column("votes", width=50, help="Descriptions of that ancestor's last population that "
                                                "retrieved the tool."),
        "mean rank": column("mean rank", width=76, format="%.1f", help="Its mean place in their retrievals "
                                                                       "(breaks ties in votes)."),
        "score": column("score", width=72, format="%.4f", help="What the list is sorted on. For a memetic "
                        "strategy: the tool's mean similarity to the voting descriptions blended with its "
                        "similarity to the ancestor (vote_anchor), best over the ancestors.")})


# -- the page's sections that a widget changes: each a fragment, so a pick reruns only its own section ----------


@st.fragment
def strategy_detail(ws, run: PlaygroundRun, tools: Sequence[Tool], coords: np.ndarray, order: Sequence[str],
                    pops: Mapping[str, Sequence[Member]], names: Mapping[str, str], *, default: str) -> None:
    """How one strategy of ``run`` searched (picked among ``order``, opening on ``default``): its search on the
    map, final ranking, votes, fitness, lineage and LLM calls."""
    results, gold, k = run.results, run.gold, run.k
    st.subheader("How one strategy searched")
    name = st.segmented_control("Strategy", order, default=default, key=f"play_detail_{run.run_id}",
                                label_visibility="collapsed") or default
    res = results[name]
    step = step_word(name, res)
    readout = run.memory.get(name)
    if readout is not None:
        st.caption(f"Session memory: {readout.entries_before} entries before this run, "
                   f"{readout.entries_after} after; {len(readout.repeated)} of this run's descriptions "
                   f"repeat earlier ones (ratio ≥ 0.82); the memory term lowered "
                   f"{readout.penalised} fitness evaluations.")
    left, right = st.columns([1.3, 1])
    with left:
        st.plotly_chart(population_animation(tools, coords, pops[name], gold, res.keys, step=step, height=620,
                                             title=f"How {name} searched the catalog map" if pops[name] else
                                             f"{name}: its top-{k} and the gold tools on the catalog map"),
                        width="stretch", key=f"anim_{name}")
        if pops[name]:
            st.caption("Grey dots are the catalog's tools, placed by meaning (UMAP). Each description the strategy "
                       "wrote sits among the tools it resembles, with lines to the tools it retrieves"
                       + (f"; press ▶ Play or drag the slider to step through the {step}s (generation 1 is the "
                          "seed population)" if step == "generation" else "")
                       + ". Gold stars are the expected tools, rings the final top-k.")
        else:
            st.caption(f"{md_escape(name)} writes no descriptions of its own, so there is no search to follow: the "
                       "map shows where its final top-k (rings) and the gold tools (stars) sit among the catalog's "
                       "tools (grey, placed by meaning with UMAP).")
    with right:
        st.markdown(f"**Final ranking of {md_escape(name)}**")
        ranked = ranking(res)
        ranking_table(ranked, gold, names, key=f"rank_{name}", scored=in_score_order(res))
        if any(r.votes is not None for r in ranked):
            st.caption("★ gold. Each ancestor's last population votes (FitText Alg. 7: most votes, then best mean "
                       "rank); the ancestors' lists are then joined — Scattershot takes their winners in turn, the "
                       "memetic strategies sort on each tool's score: its mean similarity to the voters blended "
                       "with its similarity to the ancestor (our addition, `vote_anchor`).")
        elif not in_score_order(res):
            st.caption("Ordered by the strategy's own rule (Re-Invoke: the best rank a tool reaches for any one "
                       "intent), not by the score shown, which is its best similarity over the intents.")
        votes = trace_events(res, "vote")
        if votes:
            pooled = [{**v, "ancestor": event.get("ancestor", 0)} for event in votes for v in event["votes"]]
            st.plotly_chart(votes_bar(pooled, gold, names, res.keys), width="stretch", key=f"votes_{name}")
    _search_history(res, step, name, k)
    calls = trace_events(res, "llm_call")
    if calls:
        with st.expander(f"LLM calls ({len(calls)})"):
            ledger = llm_calls(ws, [c["call_id"] for c in calls])
            st.dataframe(pd.DataFrame([{
                "id": c["call_id"], "role": c["role"], "ok": c["ok"], "error": c["error"],
                "prompt": ledger[c["call_id"]].prompt[:400] if c["call_id"] in ledger else "",
                "answer": str(c["output"])[:400]} for c in calls]), hide_index=True, width="stretch")


def _search_history(res: RetrievalResult, step: str, name: str, k: int = 5) -> None:
    """Fitness per generation and the lineage, each with its table, side by side when both exist; with gold,
    fitness against the members' true quality under them."""
    fitness = trace_events(res, "fitness")
    described = trace_events(res, "description")
    if not (fitness or described):
        return
    fit_col, tree_col = st.columns(2) if fitness and described else (st.container(), st.container())
    if fitness:
        with fit_col:
            st.plotly_chart(fitness_lines(fitness, k), width="stretch", key=f"fit_{name}")
            truth = fitness_truth_scatter(fitness, k)
            if truth is not None:
                st.plotly_chart(truth, width="stretch", key=f"truth_{name}")
                st.caption(f"Each point is one description in one generation: its fitness (what the strategy "
                           f"selects on) against its nDCG@{k} against the gold tools (what it should find). A "
                           "fitness that tracks the truth has points rising to the right (ρ near 1).")
            with st.expander("Fitness of every description"):
                st.dataframe(pd.DataFrame([{
                    "description": member_label(f["id"], int(f["generation"])), "generation": f["generation"],
                    "ancestor": int(f.get("ancestor", 0)) + 1, "fitness": f["f"],
                    **{COMPONENTS[c][0].removeprefix("mean "): f[c] for c in COMPONENTS if c in f},
                    **({f"nDCG@{k} (truth)": f["ndcg"], f"recall@{k} (truth)": f["recall"]} if "ndcg" in f else {})}
                    for f in fitness]), hide_index=True, width="stretch")
    if described:
        with tree_col:
            nodes = lineage(res)
            st.plotly_chart(lineage_tree(nodes, step=step), width="stretch", key=f"lineage_{name}")
            with st.expander(f"Every description ({len(nodes)})"):
                st.dataframe(pd.DataFrame([{
                    "description": n.label, step: n.generation, "made by": n.origin,
                    "from": ", ".join(member_label(p) for p in n.parents), "text": n.text} for n in nodes]),
                    hide_index=True, width="stretch")


@st.fragment
def side_by_side(run: PlaygroundRun, tools: Sequence[Tool], coords: np.ndarray, order: Sequence[str],
                 pops: Mapping[str, Sequence[Member]], names: Mapping[str, str]) -> None:
    """Two strategies of ``run`` next to each other, each with its map and ranking."""
    st.subheader("Side by side")
    st.caption("Two strategies' maps and rankings next to each other, marked as in the map above.")
    a, b = st.columns(2)
    left_name = a.selectbox("Left", order, index=0, key="play_left")
    right_name = b.selectbox("Right", order, index=len(order) - 1, key="play_right")
    for col, nm in ((a, left_name), (b, right_name)):
        r = run.results[nm]
        col.plotly_chart(population_animation(tools, coords, pops[nm], run.gold, r.keys, legend=False,
                                              step=step_word(nm, r), height=460, title=nm),
                         width="stretch", key=f"side_{nm}_{col is a}")
        with col:
            ranking_table(ranking(r), run.gold, names, key=f"side_rank_{nm}_{col is a}", scored=in_score_order(r))
