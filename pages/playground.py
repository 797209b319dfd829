"""Strategy playground: run strategies on one query and watch how they search."""

import pandas as pd
import streamlit as st

from components.cancel import cancel_button, cancelled_notice
from components.pickers import catalog_picker, ensure_engine
from components.playground_charts import (
    COMPONENTS,
    fitness_lines,
    lineage_tree,
    population_animation,
    ranking_table,
    votes_bar,
)
from components.projection import map_coords
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.context import build_context
from core.playground import (
    evolves,
    in_score_order,
    lineage,
    member_label,
    members,
    memory_readout,
    outcome,
    ranking,
    step_word,
    trace_events,
)
from core.playground_runs import (
    finish_playground_run,
    list_playground_runs,
    load_playground_run,
    open_playground_run,
    record_strategy,
)
from core.strategies.memory import ToolMemory
from core.strategies.registry import make_strategy, strategy_names
from storage.catalogs import list_query_sets, load_queries
from storage.ledger import list_calls

PARAMS = {  # the knobs shown per strategy, paper defaults (FitText Table 8)
    "single_pass": {},
    "dbd": {"turns": 3},
    "ibi": {"turns": 3},
    "scattershot": {"fan_out": 5},
    "memetic": {"population": 6, "generations": 3},
    "memetic_v2": {"population": 8, "generations": 3},
    "reinvoke": {"m": 10},
    "toolscope": {},
    "query": {},
}

st.title("Strategy playground")
st.caption("See how retrieval strategies search the catalog for one query. **Start here:** pick a query and "
           "strategies, press **Run**, then read the outcome and watch a strategy's search on the map below.")
ws = workspace()
info, version = catalog_picker(ws)
engine = ensure_engine(ws, version)
llm = llm_config()

sets = list_query_sets(ws.db, info.name)
src_col, query_col = st.columns([1.2, 6], vertical_alignment="bottom")
source = src_col.radio("Query", ["From a query set", "Type one"], key="play_source", index=0 if sets else 1)
gold: tuple[str, ...] = ()
if source == "From a query set" and sets:
    set_col, pick_col = query_col.columns([1.3, 4.7])
    qs = set_col.selectbox("Query set", sets, format_func=lambda s: f"{s.name} ({s.n_queries})", key="play_set")
    queries = load_queries(ws.db, qs.id)
    q = pick_col.selectbox("Query", queries, format_func=lambda q: f"{q.id}: {q.text[:140]}", key="play_query")
    text, gold = q.text, q.gold
    query_col.caption("Gold (the expected tools): " + ", ".join(md_escape(g) for g in gold))
else:
    text = query_col.text_input("Your query", "What's 200 dollars in euros, and will it rain in Lisbon tomorrow?",
                                key="play_text")

c1, c2, c3, c4 = st.columns([5, 1, 1, 1.1], vertical_alignment="bottom")
chosen = c1.multiselect("Strategies", strategy_names(), default=["query", "scattershot", "memetic"],
                        key="play_strategies")
k = int(c2.number_input("k", 1, 50, 5, key="play_k"))
seed = int(c3.number_input("seed", 0, 10_000, 0, key="play_seed"))
p1, p2, p3 = st.columns([3, 3, 2], vertical_alignment="center")
overrides: dict[str, dict] = {}
with p1.expander("Parameters (paper defaults)"):
    for name in chosen:
        knobs = PARAMS.get(name, {})
        if knobs:
            cols = st.columns(len(knobs) + 1)
            cols[0].markdown(f"**{md_escape(name)}**")
            overrides[name] = {p: int(cols[i + 1].number_input(p, 1, 50, v, key=f"play_{name}_{p}"))
                               for i, (p, v) in enumerate(knobs.items())}

# FitText App. C.2: an agent session keeps one tool memory across its retrieval calls. Off, every run starts
# empty (as each eval query does); on, each strategy keeps its own memory across this browser session's runs.
memories = st.session_state.setdefault("play_memories", {})
keep_memory = p2.toggle("Session tool memory (FitText App. C.2)", key="play_memory",
                        help="Keep each strategy's tool memory across runs, like one agent session: later runs are "
                             "penalised for re-exploring tool sets found before, and repeats are counted.")
held_slot, clear_slot = p2.empty(), p3.empty()  # filled after a run, so they reflect what that run stored
st.caption("LLM backend: " + ("**offline operators** — deterministic heuristics, not a language model"
                              if llm.kind == "offline" else f"OpenAI-compatible endpoint {md_escape(llm.model or '')}"))

cancelled_notice("play_cancel", "The playground run was",
                 "The strategies that had answered are stored with the run (listed as stopped below).")
if c4.button("Run", type="primary", key="play_run", disabled=not (chosen and text.strip()), width="stretch"):
    cancel = cancel_button("play_cancel")
    run_id = open_playground_run(ws.db, version.id, query=text, gold=gold, k=k, seed=seed,
                                 strategies={name: overrides.get(name, {}) for name in chosen},
                                 llm=llm.identity(), session_memory=keep_memory)
    st.session_state["play_run_id"] = run_id
    progress = st.empty()
    try:
        with progress.status("Running strategies…", expanded=True):
            for name in chosen:
                st.write(f"{md_escape(name)}…")
                params = overrides.get(name, {})
                context = build_context(ws.db, engine, version.id, llm, seed=seed, strategy_params=params,
                                        api_key=llm_api_key())
                memory = memories.setdefault((version.id, name), ToolMemory()) if keep_memory else context["memory"]
                earlier = ToolMemory(list(memory.entries))
                context["memory"] = memory
                result = make_strategy(name, engine, context=context, **params).retrieve(text, k)
                record_strategy(ws.db, run_id, name, result,
                                memory_readout(result, earlier, memory) if keep_memory else None)
    except BaseException:
        # Cancel, Stop or a failing strategy: keep the strategies that answered, marked as a stopped run
        finish_playground_run(ws.db, run_id, status="stopped")
        raise
    finish_playground_run(ws.db, run_id)
    cancel.empty()
    progress.empty()  # the outcome below says it is done; the box would only push the results down
    st.toast(f"Run #{run_id} stored: its outcome is below.")

held = {name: len(mem.entries) for (vid, name), mem in memories.items() if vid == version.id}
if keep_memory:
    held_slot.caption("Memory entries: " + (", ".join(f"{n} {c}" for n, c in held.items()) if held else "none yet"))
if clear_slot.button("Clear memory", key="play_clear_memory", disabled=not held):
    memories.clear()
    st.rerun()

stored = list_playground_runs(ws.db, version.id)
shown = None
if stored:
    ids = [r.id for r in stored]
    mine = st.session_state.get("play_run_id")
    by_id = {r.id: r for r in stored}
    # no key: a new run changes the options, and the choice then moves to it
    pick = st.selectbox(
        "Stored run", ids, index=ids.index(mine) if mine in ids else 0,
        format_func=lambda i: f"#{i} · {by_id[i].created_at:%Y-%m-%d %H:%M} · {by_id[i].strategy.replace(',', ', ')}"
                              f" · {by_id[i].config.get('query', '')[:70]}" + (
                                  f" · {by_id[i].status}" if by_id[i].status != "done" else ""),
        help="Every run is stored with its traces; pick an earlier one to see it again.")
    shown = load_playground_run(ws.db, pick)
if shown is not None and shown.results:
    results, gold, k = dict(shown.results), shown.gold, shown.k
    if shown.query != text:
        st.caption(f"Query of this run: {md_escape(shown.query[:300])}")
    names = {t.key: t.name for t in engine.tools}
    rows = [outcome(name, res, gold, k) for name, res in results.items()]
    if gold:  # best first
        rows.sort(key=lambda o: (-o.ndcg, -o.recall))
    st.subheader("Outcome")
    st.dataframe(pd.DataFrame([{
        "strategy": o.strategy, f"recall@{k}": o.recall, f"nDCG@{k}": o.ndcg, "all gold found": o.comprehensiveness,
        "seconds": round(o.seconds, 2), "LLM calls": o.llm_calls, "failed calls": o.llm_errors,
        "ranking (✓ gold)": " · ".join(("✓ " if key in gold else "") + names.get(key, key) for key in o.keys)}
        for o in rows]), hide_index=True, width="stretch")
    st.caption((f"Best first (nDCG@{k}, then recall@{k}). " if gold else "")
               + "Pick a strategy below to see how it searched.")
    coords = map_coords(ws, version.id, "umap")
    order = [o.strategy for o in rows]
    pops = {name: members(results[name], engine, coords) for name in order}
    # open on the strategy with the most to show: an evolving population, else any population, else the best
    richest = next((n for n in order if evolves(results[n])), next((n for n in order if pops[n]), order[0]))

    st.subheader("How one strategy searched")
    name = st.segmented_control("Strategy", order, default=richest, key=f"play_detail_{shown.run_id}",
                                label_visibility="collapsed") or richest
    res = results[name]
    step = step_word(name, res)
    readout = shown.memory.get(name)
    if readout is not None:
        st.caption(f"Session memory: {readout.entries_before} entries before this run, "
                   f"{readout.entries_after} after; {len(readout.repeated)} of this run's descriptions "
                   f"repeat earlier ones (ratio ≥ 0.82); the memory term lowered "
                   f"{readout.penalised} fitness evaluations.")
    left, right = st.columns([1.3, 1])
    with left:
        st.plotly_chart(population_animation(engine.tools, coords, pops[name], gold, res.keys, step=step, height=620,
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
        ranking_table(ranked, gold, names, key=f"rank_{name}")
        if any(r.votes is not None for r in ranked):
            st.caption("★ gold. Ordered by FitText's vote (Alg. 7), not by similarity: each ancestor's last "
                       "population votes (most votes, then best mean rank), and the list takes the ancestors' "
                       "winners in turn.")
        elif not in_score_order(res):
            st.caption("Ordered by the strategy's own rule (Re-Invoke: the best rank a tool reaches for any one "
                       "intent), not by the score shown, which is its best similarity over the intents.")
        votes = trace_events(res, "vote")
        if votes:
            pooled = [{**v, "ancestor": event.get("ancestor", 0)} for event in votes for v in event["votes"]]
            st.plotly_chart(votes_bar(pooled, gold, names, res.keys), width="stretch", key=f"votes_{name}")
    fitness = trace_events(res, "fitness")
    described = trace_events(res, "description")
    if fitness or described:
        fit_col, tree_col = st.columns(2) if fitness and described else (st.container(), st.container())
        if fitness:
            with fit_col:
                st.plotly_chart(fitness_lines(fitness), width="stretch", key=f"fit_{name}")
                with st.expander("Fitness of every description"):
                    st.dataframe(pd.DataFrame([{
                        "description": member_label(f["id"], int(f["generation"])), "generation": f["generation"],
                        "ancestor": int(f.get("ancestor", 0)) + 1, "fitness": f["f"],
                        **{COMPONENTS[c][0].removeprefix("mean "): f[c] for c in COMPONENTS if c in f}}
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
    calls = trace_events(res, "llm_call")
    if calls:
        with st.expander(f"LLM calls ({len(calls)})"):
            ledger = {c.id: c for c in list_calls(ws.db, ids=[c["call_id"] for c in calls if c["call_id"]])}
            st.dataframe(pd.DataFrame([{
                "id": c["call_id"], "role": c["role"], "ok": c["ok"], "error": c["error"],
                "prompt": ledger[c["call_id"]].prompt[:400] if c["call_id"] in ledger else "",
                "answer": str(c["output"])[:400]} for c in calls]), hide_index=True, width="stretch")

    if len(results) >= 2:
        st.subheader("Side by side")
        st.caption("Two strategies' maps and rankings next to each other, marked as in the map above.")
        a, b = st.columns(2)
        left_name = a.selectbox("Left", order, index=0, key="play_left")
        right_name = b.selectbox("Right", order, index=len(order) - 1, key="play_right")
        for col, nm in ((a, left_name), (b, right_name)):
            r = results[nm]
            col.plotly_chart(population_animation(engine.tools, coords, pops[nm], gold, r.keys, legend=False,
                                                  step=step_word(nm, r), height=460, title=nm),
                             width="stretch", key=f"side_{nm}_{col is a}")
            with col:
                ranking_table(ranking(r), gold, names, key=f"side_rank_{nm}_{col is a}")
elif shown is None:
    st.info(f"Pick a query and strategies, then **Run**. Query: {md_escape(text[:200])}")
else:
    st.info("This run was stopped before any strategy answered.")
