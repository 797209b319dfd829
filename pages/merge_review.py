"""Merge review: run ToolScopeMerger on a catalog and review every cluster it proposes."""

import json
from dataclasses import replace

import streamlit as st

from components.jobs import job_result
from components.merge_view import (
    cluster_review,
    clusters_frame,
    merge_for_page,
    preferred_query_set,
    render_measures,
    sweep_chart,
    threshold_control,
    threshold_line,
)
from components.pickers import catalog_picker, ensure_engine
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.importers.export import export_openai_tools
from core.merging.calibration import CALIBRATION_SWEEP
from core.merging.candidates import threshold_sweep
from core.merging.pipeline import MergeConfig
from core.merging.review import load_review
from core.merging.service import measure

st.title("Merge review")
st.caption("ToolScopeMerger (ToolScope §3.2): candidate pairs above a cosine threshold, a judge per pair, "
           "clusters from the graph, Auto-Correction per cluster, merged documentation — then your review.")
ws = workspace()
info, version = catalog_picker(ws)
engine = ensure_engine(ws, version)
tools = engine.tools
by_key = {t.key: t for t in tools}
llm = llm_config()
with st.sidebar:
    st.divider()
    threshold, advice = threshold_control(ws, key="merge_threshold")
    autocorrect = st.toggle("Auto-Correction", value=True, key="merge_autocorrect")
    st.caption(f"Judge: **{'offline rules (not an LLM)' if llm.kind == 'offline' else md_escape(llm.model or '')}**")
config = MergeConfig(threshold=threshold, autocorrect=autocorrect)

st.markdown(threshold_line(threshold, advice))

sweep = job_result(ws, ("sweep", version.id, ws.vector_space, CALIBRATION_SWEEP),
                   lambda job: threshold_sweep(engine.vectors, CALIBRATION_SWEEP),
                   label=f"Counting candidate pairs and clusters at each threshold over {len(engine.tools):,} tools…")
with st.expander("Threshold sweep", expanded=False):
    st.plotly_chart(sweep_chart(sweep, threshold, advice.threshold), width="stretch", key="merge_sweep")

run = merge_for_page(ws, version.id, config, llm, cancel_key="merge_cancel", run_key="merge_run",
                     api_key=llm_api_key())
if run is None:
    st.stop()
result = run.result
review = load_review(ws, run.run_id, result, tools)
states, reviewed, phi = review.states, review.reviewed, review.phi

c = st.columns(5)
c[0].metric("Tools before", len(tools))
c[1].metric("After (reviewed)", len(reviewed), delta=len(reviewed) - len(tools), delta_color="off")
c[2].metric("Clusters", len(result.clusters))
c[3].metric("MERGE_OK / MERGE_BAD", f"{result.merge_ok} / {result.merge_bad}" if autocorrect else "off")
c[4].metric("Reviewed", sum(s.status != "pending" for s in states.values()))
stored = run.metrics
if stored.get("llm_errors"):
    st.caption(f"Judge calls failed: {stored['llm_errors']} of {stored['llm_calls']} (a pair whose verdict "
               f"failed is kept apart: {stored.get('pair_errors', 0)} pairs).")
elif "llm_calls" in stored:
    st.caption(f"{stored['llm_calls']} judge calls, none failed.")
failed_audits = [cl.id for cl in result.clusters if cl.audit is not None and cl.audit.error]
if failed_audits:
    st.warning(f"{len(failed_audits)} Auto-Correction audit(s) failed ({md_escape(', '.join(failed_audits[:10]))}"
               f"{', …' if len(failed_audits) > 10 else ''}): those clusters stay as the pair verdicts linked "
               "them, verdict ERROR in the table. Check them before accepting.")

if not result.clusters:
    st.success("No two tools were judged duplicates at this threshold. Lower θ to see more candidates.")
    st.stop()

# Silhouette and a search engine over the merged catalog take seconds on a large catalog: computed on demand as
# a job, once per run, k, query set and review state (the rest of the page is drawn meanwhile).
if st.toggle("Measures before / after (silhouette, Recall@k, CSR@k, TCCR/UCC)", key="merge_measures"):
    sets = ws.query_sets(info.name)
    m1, m2 = st.columns([1, 3])
    measures_k = int(m1.number_input("k", 1, 50, 5, key="merge_measures_k", help="cut-off for Recall@k and CSR@k"))
    query_set = preferred_query_set(sets, info.name)
    if query_set is None and sets:
        query_set = m2.selectbox("Query set", sets, key="merge_measures_qs", format_func=lambda s: s.name)
    last = review.decisions[-1].id if review.decisions else 0
    measures = job_result(
        ws, ("merge_measures", version.id, ws.vector_space, run.run_id, measures_k, query_set.id if query_set else 0,
             last),
        lambda job: measure(engine, reviewed, replace(result, phi=phi),
                            ws.queries(query_set.id) if query_set else (), k=measures_k),
        label="Silhouette before/after, and retrieval over a search engine of the merged catalog…", stop=False)
    n_reviewed = sum(s.status != "pending" for s in states.values())
    if measures is not None:
        render_measures(measures, query_set=query_set.name if query_set else None, key="merge_measures",
                        subject=f"the catalog as reviewed ({len(reviewed)} tools; {n_reviewed} of {len(states)} "
                                "clusters reviewed, the others merged as proposed) — the catalog the export below "
                                "writes")

rows = clusters_frame(result, review, by_key)
st.dataframe(rows, hide_index=True, width="stretch", key="merge_clusters",
             column_config={"confidence": st.column_config.NumberColumn(
                 format="%.3f", help="mean cosine of the pairs the judge linked inside the cluster")})
cluster_review(ws, run.run_id, result, review, by_key)

st.divider()
e1, e2 = st.columns(2)
e1.download_button("Export reviewed catalog (OpenAI tools JSON)", export_openai_tools(reviewed),
                   file_name=f"{info.name}-v{version.number}-merged.json", mime="application/json")
e2.download_button("Export φ (tool → kept tool)", json.dumps(phi, indent=2),
                   file_name=f"{info.name}-v{version.number}-phi.json", mime="application/json")
