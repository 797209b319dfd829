"""Timeline: a catalog's toolset evolving step by step, and what each documentation method forgets and
discovers along the way (CONTDA)."""

import streamlit as st

from components.executors import approve_plan, plan_key
from components.jobs import session_job
from components.pickers import catalog_picker
from components.session import executor_router, llm_api_key, llm_config, workspace
from components.text import md_escape
from components.timeline_view import (
    causes_line,
    changes_chart,
    forget_discover_chart,
    method_label,
    paired_table,
    regression_frame,
    rescued_line,
    revision_view,
    run_map,
    step_map_chart,
    step_names,
    stored_run,
    success_chart,
    summary_frame,
    tool_names,
    tradeoff_chart,
)
from core.evaluation import select_queries
from core.evolution.maps import step_counts, step_status
from core.evolution.markov import PATTERNS, MarkovConfig
from core.evolution.methods import DEFAULT_METHODS
from core.evolution.pipeline import EvolutionConfig
from core.evolution.report import (
    discoveries,
    doc_history,
    regressions,
    rescued,
    revised_keys,
    table_rows,
)
from core.evolution.service import EvolutionSpec, finished_run, list_evolution_runs, run_evolution
from core.execution.setup import plan_executors

VERSIONS, MARKOV = "Catalog versions", "Markov simulation"

st.title("Timeline")
st.caption("See how each documentation method copes as a catalog's toolset changes step by step (CONTDA §3–5): "
           "success rate, what it forgets (solved before, lost now) and what it discovers (lost before, solved "
           "now). **Start in the sidebar**: choose the toolset sequence and methods, then press **Run timeline**; "
           "stored runs open below.")
ws = workspace()
info, version = catalog_picker(ws)
llm = llm_config()
sets = ws.query_sets(info.name)

with st.sidebar:
    st.divider()
    st.subheader("New timeline")
    can_walk = len(info.versions) >= 2
    # One choice per catalog: a key shared by all catalogs carried "Catalog versions" over from the demo to a
    # one-version catalog, where it cannot run (and clicks on the other option were lost to the redraw).
    source = st.radio("Toolset sequence", [VERSIONS, MARKOV], index=0 if can_walk else 1,
                      key=f"timeline_source_{info.name}",
                      help="Walk the stored versions in order, or simulate additions and removals over the "
                           "chosen version's tools (CONTDA App. B.2).")
    if source == VERSIONS and not can_walk:
        st.warning("This catalog has one stored version; import another or use the Markov simulation.")
    if source == MARKOV:
        pattern = st.selectbox("Pattern", PATTERNS, index=PATTERNS.index("mixture"), key="timeline_pattern")
        steps = st.slider("Steps T", 1, 10, 5, key="timeline_steps")
        rate = st.slider("Share of the pool changed per step", 0.02, 0.5, 0.1, 0.01, key="timeline_rate")
    set_names = [q.name for q in sets]
    # the demo's timeline set is written for its versions; a simulation draws from one version
    preferred = "timeline" if source == VERSIONS and "timeline" in set_names else (set_names[0] if set_names else None)
    set_name = st.selectbox("Query set", set_names, index=set_names.index(preferred) if preferred else 0,
                            key=f"timeline_set_{source}", disabled=not set_names)
    gold = list(ws.queries(next(q.id for q in sets if q.name == set_name))) if set_names else []
    execute = st.toggle("Run probes through executors", value=info.name == "demo", key="timeline_execute",
                        help="Stage I calls new tools for real (the demo MCP server on the demo, MCP servers "
                             "registered for the catalog with `toolatlas import-mcp` otherwise); without it, probes "
                             "cannot verify anything.")
    plan = approve_plan(plan_executors(ws.mcp_servers(info.name), demo=info.name == "demo"), key="timeline") \
        if execute else None
    judge = st.radio("Success means", ["selection", "execution"], horizontal=True, key="timeline_judge",
                     disabled=not execute, format_func=lambda j: {"selection": "gold tool picked",
                                                                  "execution": "picked and its call worked"}[j])
    fallback = st.toggle("Fall back after a failed call", value=True, key="timeline_fallback",
                         disabled=not execute or judge != "execution",
                         help="When a picked tool's call fails, the agent may call a tool its relational notes name "
                              "as a fallback (CONTDA Fig. 9; our rule). Only calls can fail: it needs the execution "
                              "judge, and only methods with notes have fallbacks to follow.")
    index_notes = st.toggle("Index relational notes for retrieval", value=False, key="timeline_index_notes",
                            help="Off: retrieval reads each tool's description and the notes are shown to the "
                                 "selecting agent only. On: the notes are appended to the indexed text, as the "
                                 "paper appends them to the documentation.")
    seeds = st.slider("Seeds", 1, 5, 1, key="timeline_seeds",
                      help="Each seed is a separate sequence (Markov) and separate Stage I sampling. The paper "
                           "runs five; the paired test below needs at least 10 (seed, step) cells.")
    methods = st.multiselect("Methods", list(DEFAULT_METHODS), default=list(DEFAULT_METHODS), key="timeline_methods",
                             format_func=method_label)
    k = st.number_input("Top-k retrieved", 1, 20, 5, key="timeline_k")
    n_queries = st.number_input("Queries (first N)", 1, max(len(gold), 1), max(len(gold), 1), key=f"timeline_queries_{set_name}",
                                disabled=not gold)
    st.caption("Operators: " + ("**offline rules (not an LLM)**" if llm.kind == "offline"
                                else f"**{md_escape(llm.model or '')}**")
               + ". Finished steps are stored as they come: a stopped run resumes when run again with the "
                 "same settings.")
    run_clicked = st.button("Run timeline", type="primary", key="timeline_run", width="stretch",
                            disabled=not gold or not methods or (source == VERSIONS and not can_walk))

# Run timeline again with settings that already ran opens that run instead of storing a copy; the notice
# and a "Run again anyway" button stay while the settings are the same.
twin = st.session_state.get("timeline_twin")  # (settings fingerprint, run id) of the last "already run"


def _run_again_button() -> None:
    def clicked():
        st.session_state.pop("timeline_twin", None)
        st.session_state["timeline_force"] = True

    st.button("Run again anyway", key="timeline_run_again", width="stretch", on_click=clicked,
              help="Compute and store a new run with the same settings (with an LLM the operators may answer "
                   "differently).")


fingerprint = repr((info.name, version.id, source, (pattern, steps, rate) if source == MARKOV else None, set_name,
                    plan_key(plan) if plan is not None else None, judge, fallback, index_notes, seeds, tuple(methods),
                    int(k),
                    int(n_queries), tuple(sorted(llm.identity().items()))))
again_clicked = st.session_state.pop("timeline_force", False)
if twin is not None and twin[0] == fingerprint and not run_clicked:
    with st.sidebar:
        st.info(f"Already run: timeline #{twin[1]} has exactly these settings on this catalog version and is "
                "open on the right.")
        _run_again_button()
start = None
if run_clicked or again_clicked:
    try:
        spec = EvolutionSpec(
            info.name, "versions" if source == VERSIONS else "markov",
            MarkovConfig(pattern=pattern, steps=steps, rate=rate) if source == MARKOV else MarkovConfig(),
            pool_version=version.number if source == MARKOV else None, seeds=tuple(range(seeds)),
            methods=tuple(methods), config=EvolutionConfig(k=int(k), judge=judge if execute else "selection",
                                                           fallback=fallback, index_notes=index_notes))
        router = executor_router(plan) if execute else None
        chosen_queries = select_queries(gold, limit=int(n_queries))
        api_key = llm_api_key()
        same = None if again_clicked else finished_run(ws, spec, chosen_queries, llm=llm, router=router)
        if same is not None:
            st.session_state["timeline_twin"] = (fingerprint, same.id)
            st.session_state["timeline_run_id"] = same.id
            st.session_state.pop("timeline_pick", None)
            st.toast(f"Already run: opened timeline #{same.id}.")
            with st.sidebar:
                st.info(f"Already run: timeline #{same.id} has exactly these settings on this catalog version; "
                        "it is open on the right, nothing new was stored.")
                _run_again_button()
        else:
            st.session_state.pop("timeline_twin", None)

        def work(job, fresh=again_clicked):
            # "Run again anyway" stores a new run even where a stopped one with these settings could resume
            return run_evolution(ws, spec, chosen_queries, llm=llm, router=router, api_key=api_key,
                                 resume=not fresh, progress=job.report, cancelled=lambda: job.cancelling)

        job_key = ("timeline", ws.vector_space, repr(spec), tuple(q.id for q in chosen_queries),
                   tuple(sorted(llm.identity().items())), again_clicked)

        if same is None:
            def start():
                return ws.jobs.start(job_key, work, label="Starting the timeline…")
    except ValueError as err:
        st.error(f"The timeline could not run: {md_escape(str(err))}")
try:
    done = session_job(ws, state_key="timeline_job", cancel_key="timeline_cancel", what="The timeline run was",
                       start=start)
except ValueError as err:
    done = None
    st.error(f"The timeline could not run: {md_escape(str(err))}")
if done is not None:
    st.session_state["timeline_run_id"] = done.run_id
    st.session_state.pop("timeline_pick", None)
if st.session_state.get("timeline_job") is not None:
    st.stop()  # this session's run is under way (its progress is above): the stored runs open once it is over

stored = list_evolution_runs(ws, info.name)
if not sets:
    st.info("This catalog has no gold queries; import a queries JSONL on the Catalog page to score a timeline.")
if not stored:
    st.info("No timeline has been run on this catalog yet. Choose a sequence and methods in the sidebar and "
            "press **Run timeline** (the demo's five versions with one seed take about half a minute).")
    st.stop()

by_id = {r.id: r for r in stored}
chosen = st.session_state.get("timeline_run_id")
if chosen not in by_id:
    chosen = next((r.id for r in stored if r.status == "done"), stored[0].id)
if st.session_state.get("timeline_pick") not in by_id:
    st.session_state["timeline_pick"] = chosen


def _describe(run_id: int) -> str:
    r = by_id[run_id]
    spec = r.config.get("spec", {})
    what = "versions" if spec.get("source") == "versions" else f"Markov {(spec.get('markov') or {}).get('pattern')}"
    return (f"#{run_id} · {what} · {len(spec.get('seeds', []))} seed(s) · {len(r.config.get('query_ids', []))} "
            f"queries · {r.status} · {r.created_at:%Y-%m-%d %H:%M}")


run_id = st.selectbox("Stored timeline", list(by_id), key="timeline_pick", format_func=_describe)
st.session_state["timeline_run_id"] = run_id
run = stored_run(ws, by_id[run_id])
summary = run.summary
if run.status != "done":
    st.warning(f"Run #{run_id} is {run.status}: it shows what finished. Press **Run timeline** with the same "
               "settings to resume it.")
if not run.sequences or not summary.get("methods"):
    st.info("This run has no complete method series yet.")
    st.stop()

seeds_in_run = sorted(run.sequences)
c1, c2 = st.columns(2)
seed = c1.selectbox("Seed", seeds_in_run, key="timeline_seed", disabled=len(seeds_in_run) == 1)
methods_in_run = list(summary["methods"])
method = c2.selectbox("Method (regressions and revisions)", methods_in_run, format_func=method_label,
                      index=methods_in_run.index("contda") if "contda" in methods_in_run else 0, key="timeline_method")
sequence = run.sequences[seed]
labels = list(sequence["labels"])
T = min(len(labels), summary["steps"]) - 1  # a run under way or stopped: the steps it finished

# 1. summary
st.subheader("Summary")
st.dataframe(summary_frame(table_rows(summary)), hide_index=True, width="stretch", key="timeline_table")
spread = (f"mean ± standard error over {len(seeds_in_run)} seeds" if len(seeds_in_run) > 1 else
          "one seed (n = 1), so single values with no spread; run 2 or more seeds for standard errors")
st.caption(f"Run #{run.run_id} · {len(run.query_ids)} queries · {summary['steps']} steps (t0–t{summary['steps'] - 1}) "
           f"· seeds {', '.join(map(str, seeds_in_run))} · {run.llm_calls} operator calls · in %, "
           f"{spread} (CONTDA Eqs. 3–5, Table 2).")

st.subheader("Paired test between methods")
st.dataframe(paired_table(ws, run), hide_index=True, width="stretch", key="timeline_tests")
run_config = run.spec.get("config") or {}
fell_back = ("Queries solved through a fallback after a failed call (summed over steps, mean over seeds): "
             + rescued_line(rescued(run.results), methods_in_run) + "."
             if run_config.get("judge") == "execution" and run_config.get("fallback", False) else
             "No fallback in this run (it needs the execution judge and the fallback switch).")
st.caption("Each method's success rate against the baseline's (the original docs when run) on the same toolset, "
           "one pair per (seed, step) cell from t1 (at t0 every method reads the catalog's documentation): mean difference in percentage "
           "points, bootstrap 95% interval and the paired permutation test's two-sided p (our addition: the paper "
           f"reports means only). {fell_back}")

# 2.–5. figures


names_of_steps = step_names(labels)


def _figure(name: str, build):
    """A figure of a finished run, built once per session and seed: building a Plotly figure costs more than
    drawing it, and every rerun of this page (a page switch back, the step slider) built all of them again."""
    if run.status != "done":  # still filling in: its summary changes
        return build()
    kept = st.session_state.setdefault("timeline_figures", {})
    key = (run.run_id, seed, name)
    if key not in kept:
        if len(kept) >= 40:
            kept.clear()
        kept[key] = build()
    return kept[key]


def changes_tab() -> None:
    """CONTDA Fig. 1B for the chosen seed."""
    st.plotly_chart(_figure("changes", lambda: changes_chart(step_counts(sequence), labels)), width="stretch",
                    key="timeline_changes")
    st.caption(f"CONTDA Fig. 1B for seed {seed}: the toolset at each step; t0 is the starting toolset.")


def success_tab() -> None:
    """CONTDA Fig. 1A."""
    st.plotly_chart(_figure("success", lambda: success_chart(summary, labels)), width="stretch",
                    key="timeline_success")
    st.caption("CONTDA Fig. 1A: share of queries solved at each step (gold tool available, retrieved in the "
               "top-k and selected; with the execution judge its call must work, and a fallback the notes name "
               "may stand in after a failed call).")


def forget_discover_tab() -> None:
    """CONTDA Fig. 1C."""
    if T < 1:
        st.caption("Forget and Discover start at t1: this run has finished no step after t0 yet.")
        return
    st.plotly_chart(_figure("forget_discover", lambda: forget_discover_chart(summary, labels)), width="stretch",
                    key="timeline_fd")
    st.caption("CONTDA Fig. 1C: Forget_t and Discover_t for t = 1…T.")


def tradeoff_tab() -> None:
    """CONTDA Fig. 4b."""
    st.plotly_chart(_figure("tradeoff", lambda: tradeoff_chart(summary)), width="stretch", key="timeline_tradeoff")
    st.caption("CONTDA Fig. 4b: further left forgets less, higher up discovers more. The axes zoom to the "
               "methods' points, so small differences show; hover a point for its numbers.")


def step_tab() -> None:
    """The catalog map at one step, with what the chosen method lost and found there."""
    t = st.select_slider("Step", options=list(range(T + 1)), value=min(1, T), key="timeline_step",
                         format_func=lambda i: names_of_steps[i])
    keys, coords = run_map(ws, run, seed)
    names = tool_names(ws, info.name, keys)
    status = step_status(sequence, t)
    counts = {s: sum(1 for v in status.values() if v == s) for s in ("retained", "added", "removed")}
    title = (f"Step {names_of_steps[t]}: {counts['retained'] + counts['added']} tools · "
             f"+{counts['added']} added · −{counts['removed']} removed")
    st.plotly_chart(step_map_chart(keys, coords, status, names, title=title), width="stretch", key="timeline_map")
    st.caption("Every tool that appears at any step, placed by its catalog text (PCA of the embeddings). Removed "
               "tools are drawn where they were; absent ones are faint.")

    # 7. regressions
    st.subheader(f"Regressions at step {md_escape(names_of_steps[t])} — {method_label(method)}")
    queries = {q.id: q for s in sets for q in ws.queries(s.id)}
    if t == 0:
        st.caption("Step 0 is the starting point: there is no earlier step to lose queries from.")
    else:
        regs = regressions(run.results, seed, method, t)
        found = discoveries(run.results, seed, method, t)
        st.caption(f"{len(regs)} {'query' if len(regs) == 1 else 'queries'} solved at {md_escape(names_of_steps[t - 1])} and lost at {md_escape(names_of_steps[t])}; "
                   f"{len(found)} discovered (lost before, solved now). Failures at this step by cause "
                   f"(CONTDA Table 1): {causes_line(summary['methods'][method]['causes_by_step'][t])}.")
        if regs:
            st.dataframe(regression_frame(regs, queries), hide_index=True, width="stretch",
                         key="timeline_regressions")
        else:
            st.success("Nothing was forgotten at this step.")


def revisions_tab() -> None:
    """How the chosen method rewrote each tool's documentation, step by step."""
    st.subheader(f"Documentation revisions — {method_label(method)}")
    revised = revised_keys(run.results, seed, method)
    if not revised:
        st.caption("This method made no revisions in this run (the original docs change only when the catalog "
                   "rewrites a tool).")
    else:
        names = tool_names(ws, info.name, list(revised))
        tool = st.selectbox("Tool", list(revised), key="timeline_tool",
                            format_func=lambda key: f"{key} — {names.get(key, key)} ({revised[key]} revisions)")
        for i, rev in enumerate(doc_history(run.results, seed, method, tool)):
            revision_view(rev, names_of_steps[rev.step] if rev.step < len(names_of_steps) else f"t{rev.step}",
                          key=f"timeline_rev_{i}")


# Lazy tabs, one per figure: only the open one is built and sent (a page switch drew every figure, the map and
# the tables at once, and Plotly's drawing was most of what the browser did for this page), and the open tab
# holds across reruns (the step slider, a seed).
TABS = {"Success by step": success_tab, "Toolset changes": changes_tab, "Forget / discover": forget_discover_tab,
        "Trade-off": tradeoff_tab, "Catalog map by step": step_tab, "Documentation revisions": revisions_tab}
tabs = st.tabs(list(TABS), key="timeline_tab", on_change="rerun")
for tab, body in zip(tabs, TABS.values(), strict=True):
    if tab.open:
        with tab:
            body()
