"""Trials: call the retrieved tools for real and re-rank them on what happened (GRETEL)."""

import hashlib

import streamlit as st

from components.executors import approve_plan, plan_key, sandbox_choice
from components.jobs import session_job
from components.pickers import catalog_picker, ensure_engine
from components.session import executor_router, llm_api_key, llm_config, workspace
from components.text import md_escape
from components.trials_view import (
    metrics_table,
    outcome_label,
    ranking_table,
    reports_table,
    show_trial,
    taxonomy_chart,
    trace_json,
)
from core.evaluation import select_queries
from core.execution.setup import plan_executors
from core.models import Query
from core.strategies.registry import strategy_names
from core.trials.pipeline import TrialConfig
from core.trials.service import latest_report, load_trial_run, run_trial_set, start_rerun

st.title("Trials")
st.caption("Do the retrieved tools really work? Pick or type a request and press **Run trials**: the top-K are "
           "called for real and re-ranked on what happened (GRETEL), then measured at the cut-offs you pick.")
ws = workspace()
info, version = catalog_picker(ws)
engine = ensure_engine(ws, version)
names = {t.key: t.name for t in engine.tools}
llm = llm_config()
with st.sidebar:
    st.divider()
    strategies = list(strategy_names())
    strategy = st.selectbox("Initial ranking", strategies, index=strategies.index("query"), key="trials_strategy")
    k = st.slider("Candidates tried (K)", 3, 30, 20, key="trials_k",
                  help="The pool tried and re-ranked. Larger than the cut-offs, so a working tool from below a "
                       "cut-off can move into it.")
    cutoffs = st.multiselect("Measured at", [1, 3, 5, 10, 20], default=[5, 10], key="trials_cutoffs",
                             help="Recall@K, nDCG@K and Pass@K are reported at each (GRETEL reports 5 and 10).")
    simulate = st.toggle("Simulate after transient failures", value=True, key="trials_simulate")
    judge = st.toggle("Judge whether answers serve the request", value=True, key="trials_judge",
                      help="A non-empty answer about something else is a semantic mismatch (GRETEL Table 4).")
    timeout = st.slider("Call timeout (s)", 1.0, 30.0, 8.0, 0.5, key="trials_timeout")
    st.caption("Planner / simulator / judge / re-ranker: "
               + ("**offline rules (not an LLM)**: the judge checks word overlap between request and answer"
                  if llm.kind == "offline" else f"**{md_escape(llm.model or '')}**"))
    sandbox = sandbox_choice(engine.tools, key=f"trials_sandbox_{info.name}")
plan = approve_plan(plan_executors(ws.mcp_servers(info.name), demo=info.name == "demo", sandbox=sandbox),
                    key="trials")
router = executor_router(plan)
config = TrialConfig(k=k, simulate=simulate, timeout=timeout, cutoffs=tuple(cutoffs) or (5, 10), judge=judge)
api_key = llm_api_key()
sets = ws.query_sets(info.name)
gold_queries = list(ws.queries(sets[0].id)) if sets else []


def trial_job(queries: list[Query], *, fresh: bool = False):
    """Start (or join) the trials of ``queries`` with the sidebar's settings as a background job; its result
    is the stored run (``core.trials.service.TrialsRun``)."""
    def work(job):
        return run_trial_set(ws, version.id, queries, router, strategy=strategy, config=config, llm=llm,
                             api_key=api_key, resume=not fresh, cancelled=lambda: job.cancelling,
                             progress=lambda d, n, q: job.report(d / max(n, 1), f"Query {d}/{n} {q}"))

    key = ("trials", version.id, ws.vector_space, strategy, repr(config), tuple(q.id for q in queries),
           tuple(sorted(llm.identity().items())), plan_key(plan), fresh)
    return ws.jobs.start(key, work, label="Planning and calling the candidates…")


# a radio, not st.tabs: a button press reruns the page and tabs would jump back to the first one
view = st.radio("View", ["One query", "Query set"], horizontal=True, key="trials_view",
                label_visibility="collapsed")

if view == "One query":
    mode = st.radio("Query", ["From the gold set", "Free text"], horizontal=True, key="trials_mode",
                    disabled=not gold_queries)
    if mode == "Free text" or not gold_queries:
        text = st.text_input("Request", "How many kilometres is 26.2 miles?", key="trials_text")
        query = Query("free-" + hashlib.sha256(text.encode()).hexdigest()[:10], text)
    else:
        query = st.selectbox("Gold query", gold_queries, key="trials_query",
                             format_func=lambda q: f"{q.id} · {q.text[:100]}")
    again = st.session_state.get("trials_reused") == query.id
    start = None
    if st.button("Run trials", type="primary", key="trials_run") or (
            again and st.button("Run again", key="trials_again",
                                help="Try the candidates anew (say, after fixing a server); stored as a new run.")):
        fresh = bool(st.session_state.get("trials_again", False))

        def start(fresh=fresh):
            return trial_job([query], fresh=fresh)
    run = session_job(ws, state_key="trials_one_job", cancel_key="trials_one_cancel", what="The trial run was",
                      start=start)
    if run is not None and run.reports:
        qid = run.reports[0].query_id
        st.session_state["trials_last"] = (run.run_id, qid)
        st.session_state["trials_reused"] = qid if run.reused else None
        again = run.reused and qid == query.id
    if again:
        st.caption("These trials were already run today with the same settings: shown from the store, not "
                   "called again. **Run again** tries the candidates anew.")
    last = st.session_state.get("trials_last")
    if not last:
        st.info("Pick a query and press **Run trials**: the top-K candidates are tried one by one and the "
                "trace of every call appears here.")
    else:
        run_id, qid = last
        # a "Re-run this candidate" click (its button is drawn below, with the candidate's trace) starts the
        # re-run as a background job here, before the report is drawn, so the page shows its progress first
        rerun_start = None
        clicked = next((k for k in list(st.session_state.keys()) if isinstance(k, str)
                        and k.startswith("trials_rerun_btn_") and st.session_state.get(k) is True), None)
        if clicked is not None:
            tool_key = clicked.removeprefix("trials_rerun_btn_")

            def rerun_start(tool_key=tool_key):
                return start_rerun(ws, run_id, qid, tool_key, router, llm=llm, api_key=api_key,
                                   executors=plan_key(plan))
        session_job(ws, state_key="trials_rerun_job", cancel_key="trials_rerun_cancel", what="The re-run was",
                    start=rerun_start)
        report = latest_report(ws, run_id, qid)  # with the newest re-run's evidence, once one is stored
        st.markdown(f"**Request:** {md_escape(report.query)}")
        if report.gold:
            st.caption("Gold: " + ", ".join(md_escape(names.get(g, g)) for g in report.gold))
        if report.rerank.error:
            st.warning(f"The re-ranker failed ({md_escape(report.rerank.error)}); the evidence order was used.")
        st.subheader("Ranking before → after")
        st.caption("A **SIMULATED** answer is a stand-in written after a passing failure, not the tool's own: it "
                   "ranks with the successes, as GRETEL counts simulation evidence, and is flagged in every row.")
        st.dataframe(ranking_table(report, names), hide_index=True, width="stretch", key="trials_ranking")
        st.subheader("Trace per candidate")
        st.caption("In the order after re-ranking. Open one to read its trial left to right: the planned "
                   "arguments and where each came from, the call, the answer, the verdict.")
        for place, key in enumerate(report.after, 1):
            trial = report.trial(key)
            # lazy: a closed candidate's trace is neither built nor sent (20 of them on every rerun before)
            box = st.expander(f"{place}. {md_escape(trial.name, 120)} (was #{trial.rank}) — {outcome_label(trial)}",
                              expanded=False, key=f"trials_open_{key}", on_change="rerun")
            if not box.open:
                continue
            with box:
                show_trial(trial, key=f"trial_{key}")
                with st.container(horizontal=True, vertical_alignment="center"):
                    st.button("Re-run this candidate", key=f"trials_rerun_btn_{key}",
                              disabled=st.session_state.get("trials_rerun_job") is not None,
                              help="Call this tool again (say, after fixing its server) and re-rank; the "
                                   "earlier evidence is kept in the run.")
                    trace_json(trial, key=f"trial_{key}")

else:
    if not gold_queries:
        st.info("This catalog has no gold queries; import a queries JSONL on the Catalog page.")
    else:
        splits = sorted({q.split for q in gold_queries if q.split})
        c1, c2 = st.columns(2)
        split = c1.selectbox("Split", ["all", *splits], key="trials_split")
        limit = c2.number_input("Queries", 1, len(gold_queries), min(20, len(gold_queries)), key="trials_limit")
        queries = select_queries(gold_queries, split=None if split == "all" else split, limit=int(limit))
        start = None
        if st.button(f"Run trials on {len(queries)} queries", key="trials_run_set"):
            def start():
                return trial_job(queries)
        run = session_job(ws, state_key="trials_job", cancel_key="trials_cancel", what="The trial run was",
                          start=start)
        if run is not None:
            st.session_state["trials_set_last"] = run.run_id
        set_run = st.session_state.get("trials_set_last")
        if set_run:
            info_run, reports = load_trial_run(ws, set_run)
            metrics = info_run.metrics
            at = metrics.get("cutoffs") or [metrics.get("k", 5)] + [int(key[3:]) for key in metrics if key.startswith("at_")]
            st.caption(f"{metrics.get('pool', info_run.config.get('trial', {}).get('k', '?'))} candidates tried and "
                       "re-ranked per query; measured at " + " and ".join(f"@{a}" for a in at) + ".")
            c = st.columns(4)
            c[0].metric("Queries", metrics.get("queries", len(reports)))
            c[1].metric("Trials", metrics.get("trials", 0))
            c[2].metric("Simulated answers", metrics.get("simulated", 0))
            c[3].metric("LLM/rule calls failed", f"{metrics.get('llm_errors', 0)} of {metrics.get('llm_calls', 0)}")
            st.dataframe(metrics_table(metrics), hide_index=True, key="trials_metrics", column_config={
                "before": st.column_config.NumberColumn(format="%.3f"),
                "after": st.column_config.NumberColumn(format="%.3f"),
                "change": st.column_config.NumberColumn(format="%+.3f")})
            st.plotly_chart(taxonomy_chart(metrics.get("failures", {})), width="stretch", key="trials_taxonomy")
            st.dataframe(reports_table(reports, int(metrics.get("k", min(5, k)))), hide_index=True, width="stretch", key="trials_reports",
                         placeholder="—")  # a gold tool outside the candidates has no rank
