"""Strategy playground: run strategies on one query and watch how they search.

The run is a background job (``core.playground_service``): the page starts it, follows it in a fragment that
refreshes only itself, and shows the stored outcome when it is over. Each part a widget changes is a fragment
of its own, so a click reruns only that part.
"""

import pandas as pd
import streamlit as st

from components.jobs import session_job
from components.pickers import catalog_picker, ensure_engine
from components.playground_charts import side_by_side, strategy_detail
from components.projection import map_coords
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.playground import evolves, members, outcome
from core.playground_service import KNOBS, SessionMemory, playground_run, playground_runs, start_playground
from core.strategies.registry import strategy_names

STOPPED = "The strategies that had answered are stored with the run (listed as stopped below)."

st.title("Strategy playground")
st.caption("See how retrieval strategies search the catalog for one query. **Start here:** pick a query and "
           "strategies, press **Run**, then read the outcome and watch a strategy's search on the map below.")
ws = workspace()
info, version = catalog_picker(ws)
engine = ensure_engine(ws, version)
llm = llm_config()
# FitText App. C.2: an agent session keeps one tool memory across its retrieval calls. Off, every run starts
# empty (as each eval query does); on, each strategy keeps its own memory across this browser session's runs.
memory: SessionMemory = st.session_state.setdefault("play_session_memory", SessionMemory())


@st.fragment
def run_form() -> str:
    """What the next run will be: a change here reruns only this part; Run starts the job and reruns the page.
    Returns the query as it stands."""
    sets = ws.query_sets(info.name)
    src_col, query_col = st.columns([1.2, 6], vertical_alignment="bottom")
    source = src_col.radio("Query", ["From a query set", "Type one"], key="play_source", index=0 if sets else 1)
    gold: tuple[str, ...] = ()
    if source == "From a query set" and sets:
        set_col, pick_col = query_col.columns([1.3, 4.7])
        qs = set_col.selectbox("Query set", sets, format_func=lambda s: f"{s.name} ({s.n_queries})",
                               key="play_set")
        q = pick_col.selectbox("Query", ws.queries(qs.id), format_func=lambda q: f"{q.id}: {q.text[:140]}",
                               key="play_query")
        text, gold = q.text, q.gold
        query_col.caption("Gold (the expected tools): " + ", ".join(md_escape(g) for g in gold))
    else:
        text = query_col.text_input("Your query", "What's 200 dollars in euros, and will it rain in Lisbon "
                                    "tomorrow?", key="play_text")

    c1, c2, c3, c4 = st.columns([5, 1, 1, 1.1], vertical_alignment="bottom")
    chosen = c1.multiselect("Strategies", strategy_names(), default=["query", "scattershot", "memetic"],
                            key="play_strategies")
    k = int(c2.number_input("k", 1, 50, 5, key="play_k"))
    seed = int(c3.number_input("seed", 0, 10_000, 0, key="play_seed"))
    p1, p2, p3 = st.columns([3, 3, 2], vertical_alignment="center")
    overrides: dict[str, dict] = {}
    with p1.expander("Parameters (paper defaults)"):
        for name in chosen:
            knobs = KNOBS.get(name, {})
            if knobs:
                cols = st.columns(len(knobs) + 1)
                cols[0].markdown(f"**{md_escape(name)}**")
                overrides[name] = {p: int(cols[i + 1].number_input(p, 1, 50, v, key=f"play_{name}_{p}"))
                                   for i, (p, v) in enumerate(knobs.items())}
    keep_memory = p2.toggle("Session tool memory (FitText App. C.2)", key="play_memory",
                            help="Keep each strategy's tool memory across runs, like one agent session: later runs "
                                 "are penalised for re-exploring tool sets found before, and repeats are counted.")
    held = memory.held(version.id)
    if keep_memory:
        p2.caption("Memory entries: " + (", ".join(f"{n} {c}" for n, c in held.items()) if held else "none yet"))
    p3.button("Clear memory", key="play_clear_memory", disabled=not held or running, on_click=memory.clear)
    st.caption("LLM backend: " + ("**offline operators** — deterministic heuristics, not a language model"
                                  if llm.kind == "offline" else
                                  f"OpenAI-compatible endpoint {md_escape(llm.model or '')}"))
    if c4.button("Run", type="primary", key="play_run", disabled=running or not (chosen and text.strip()),
                 width="stretch"):
        started = start_playground(ws, version.id, query=text, gold=gold, k=k, seed=seed,
                                   strategies={name: overrides.get(name, {}) for name in chosen}, llm=llm,
                                   api_key=llm_api_key(), memory=memory if keep_memory else None)
        st.session_state["play_job"] = started.key
        st.session_state["play_run_id"] = None  # the newest run: this one, once it is stored
        st.rerun()  # the whole page: the run's progress below the form
    return text


form = st.container()  # drawn after the run's state is known, above its progress
try:
    finished = session_job(ws, state_key="play_job", cancel_key="play_cancel", what="The playground run was")
except Exception as exc:  # a strategy failed: the run is stored as stopped
    finished = None
    st.error(f"The playground run failed: {md_escape(str(exc), 500)}. {STOPPED}")
if finished is not None:
    st.session_state["play_run_id"] = finished.run_id
    st.toast(f"Run #{finished.run_id} stored: its outcome is below.")
job_key = st.session_state.get("play_job")
running = job_key is not None and ws.jobs.running(job_key) is not None
with form:
    text = run_form()


@st.fragment
def stored_run(text: str) -> None:
    """A stored run's outcome and how its strategies searched; picking another run reruns only this part."""
    stored = playground_runs(ws, version.id)
    if not stored:
        st.info(f"Pick a query and strategies, then **Run**. Query: {md_escape(text[:200])}")
        return
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
    if by_id[pick].status == "running":
        st.info(f"Run #{pick} has not finished: its outcome shows here once its strategies have answered.")
        return
    shown = playground_run(ws, pick)
    if not shown.results:
        st.info("This run was stopped before any strategy answered.")
        return
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
    strategy_detail(ws, shown, engine.tools, coords, order, pops, names, default=richest)
    if len(results) >= 2:
        side_by_side(shown, engine.tools, coords, order, pops, names)


stored_run(text)
