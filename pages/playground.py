"""Strategy playground: run strategies on one query and watch how they search."""

import pandas as pd
import streamlit as st

from components.cancel import cancel_button, cancelled_notice
from components.pickers import catalog_picker, ensure_engine
from components.playground_charts import fitness_lines, lineage_tree, population_animation, votes_bar
from components.projection import map_coords
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.context import build_context
from core.playground import lineage, members, memory_readout, outcome, trace_events
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
ws = workspace()
info, version = catalog_picker(ws, key="play")
engine = ensure_engine(ws, version)
llm = llm_config()
st.caption("LLM backend: " + ("**offline operators** — deterministic heuristics, not a language model"
                              if llm.kind == "offline" else f"OpenAI-compatible endpoint {md_escape(llm.model or '')}"))

sets = list_query_sets(ws.db, info.name)
source = st.radio("Query", ["From a query set", "Type one"], horizontal=True, key="play_source",
                  index=0 if sets else 1)
gold: tuple[str, ...] = ()
if source == "From a query set" and sets:
    qs = st.selectbox("Query set", sets, format_func=lambda s: f"{s.name} ({s.n_queries})", key="play_set")
    queries = load_queries(ws.db, qs.id)
    q = st.selectbox("Query", queries, format_func=lambda q: f"{q.id}: {q.text[:110]}", key="play_query")
    text, gold = q.text, q.gold
    st.caption("Gold: " + ", ".join(md_escape(g) for g in gold))
else:
    text = st.text_input("Your query", "What's 200 dollars in euros, and will it rain in Lisbon tomorrow?",
                         key="play_text")

c1, c2, c3 = st.columns([3, 1, 1])
chosen = c1.multiselect("Strategies", strategy_names(), default=["query", "scattershot", "memetic"],
                        key="play_strategies")
k = int(c2.number_input("k", 1, 50, 5, key="play_k"))
seed = int(c3.number_input("seed", 0, 10_000, 0, key="play_seed"))
overrides: dict[str, dict] = {}
with st.expander("Parameters (paper defaults)"):
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
m1, m2 = st.columns([3, 1])
keep_memory = m1.toggle("Session tool memory (FitText App. C.2)", key="play_memory",
                        help="Keep each strategy's tool memory across runs, like one agent session: later runs are "
                             "penalised for re-exploring tool sets found before, and repeats are counted.")
held_slot, clear_slot = m1.empty(), m2.empty()  # filled after a run, so they reflect what that run stored

cancelled_notice("play_cancel", "The playground run was",
                 "The strategies that had answered are stored with the run (listed as stopped below).")
if st.button("Run", type="primary", key="play_run", disabled=not (chosen and text.strip())):
    cancel = cancel_button("play_cancel")
    run_id = open_playground_run(ws.db, version.id, query=text, gold=gold, k=k, seed=seed,
                                 strategies={name: overrides.get(name, {}) for name in chosen},
                                 llm=llm.identity(), session_memory=keep_memory)
    st.session_state["play_run_id"] = run_id
    try:
        with st.status("Running strategies…", expanded=True) as status:
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
            status.update(label="Done", state="complete")
    except BaseException:
        # Cancel, Stop or a failing strategy: keep the strategies that answered, marked as a stopped run
        finish_playground_run(ws.db, run_id, status="stopped")
        raise
    finish_playground_run(ws.db, run_id)
    cancel.empty()

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
    by_key = {t.key: t for t in engine.tools}
    rows = [outcome(name, res, gold, k) for name, res in results.items()]
    st.subheader("Outcome")
    st.dataframe(pd.DataFrame([{
        "strategy": o.strategy, f"recall@{k}": o.recall, f"nDCG@{k}": o.ndcg, "all gold found": o.comprehensiveness,
        "seconds": round(o.seconds, 2), "LLM calls": o.llm_calls, "failed calls": o.llm_errors,
        "ranking": " · ".join(("✓ " if key in gold else "") + key for key in o.keys)} for o in rows]),
        hide_index=True, width="stretch")
    coords = map_coords(ws, version.id, "umap")
    if len(results) >= 2:
        st.subheader("Side by side")
        names = list(results)
        a, b = st.columns(2)
        left_name = a.selectbox("Left", names, index=0, key="play_left")
        right_name = b.selectbox("Right", names, index=len(names) - 1, key="play_right")
        for col, nm in ((a, left_name), (b, right_name)):
            res = results[nm]
            pop = members(res, engine, coords)
            if pop:
                col.plotly_chart(population_animation(engine.tools, coords, pop, gold, res.keys), width="stretch",
                                 key=f"side_{nm}_{col is a}")
            col.dataframe(pd.DataFrame({"rank": range(1, len(res.keys) + 1),
                                        "tool": [by_key[x].name for x in res.keys],
                                        "gold": [x in gold for x in res.keys]}), hide_index=True, width="stretch")
    for name, tab in zip(results, st.tabs(list(results)), strict=True):
        res = results[name]
        with tab:
            readout = shown.memory.get(name)
            if readout is not None:
                st.caption(f"Session memory: {readout.entries_before} entries before this run, "
                           f"{readout.entries_after} after; {len(readout.repeated)} of this run's descriptions "
                           f"repeat earlier ones (ratio ≥ 0.82); the memory term lowered "
                           f"{readout.penalised} fitness evaluations.")
            left, right = st.columns([3, 2])
            with left:
                pop = members(res, engine, coords)
                if pop:
                    st.plotly_chart(population_animation(engine.tools, coords, pop, gold, res.keys), width="stretch",
                                    key=f"anim_{name}")
                else:
                    st.caption("This strategy has no population to animate; its retrievals are listed on the right.")
            with right:
                st.dataframe(pd.DataFrame({
                    "rank": range(1, len(res.keys) + 1), "tool": [by_key[x].name for x in res.keys],
                    "score": [round(s, 4) for s in res.scores], "gold": [x in gold for x in res.keys]}),
                    hide_index=True, width="stretch")
                votes = trace_events(res, "vote")
                if votes:
                    pooled = [v for event in votes for v in event["votes"]]  # one vote per ancestor lineage
                    st.plotly_chart(votes_bar(pooled, gold), width="stretch", key=f"votes_{name}")
            fitness = trace_events(res, "fitness")
            if fitness:
                st.plotly_chart(fitness_lines(fitness), width="stretch", key=f"fit_{name}")
                with st.expander("Fitness components"):
                    st.dataframe(pd.DataFrame(fitness), hide_index=True, width="stretch")
            described = trace_events(res, "description")
            if described:
                st.plotly_chart(lineage_tree(lineage(res)), width="stretch", key=f"lineage_{name}")
                with st.expander(f"Lineage table ({len(described)} descriptions)"):
                    st.dataframe(pd.DataFrame([{"id": d["id"], "generation": d.get("generation"),
                                                "operator": d.get("origin"), "parents": ", ".join(d.get("parents", [])),
                                                "text": d["text"]} for d in described]),
                                 hide_index=True, width="stretch")
            calls = trace_events(res, "llm_call")
            if calls:
                with st.expander(f"LLM calls ({len(calls)})"):
                    ledger = {c.id: c for c in list_calls(ws.db, ids=[c["call_id"] for c in calls if c["call_id"]])}
                    st.dataframe(pd.DataFrame([{
                        "id": c["call_id"], "role": c["role"], "ok": c["ok"], "error": c["error"],
                        "prompt": ledger[c["call_id"]].prompt[:400] if c["call_id"] in ledger else "",
                        "answer": str(c["output"])[:400]} for c in calls]), hide_index=True, width="stretch")
elif shown is None:
    st.info(f"Pick a query and strategies, then **Run**. Query: {md_escape(text[:200])}")
else:
    st.info("This run was stopped before any strategy answered.")
