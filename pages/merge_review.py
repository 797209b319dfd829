"""Merge review: run ToolScopeMerger on a catalog and review every cluster it proposes."""

import json
from dataclasses import replace

import pandas as pd
import streamlit as st

from components.jobs import job_result
from components.merge_view import (
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
from core.merging.review import apply_decisions, review_state
from core.merging.service import measure
from storage.catalogs import list_query_sets, load_queries
from storage.merges import list_decisions, list_merge_runs, record_decision

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
decisions = list_decisions(ws.db, run.run_id)
states = review_state(result, decisions)
reviewed, phi = apply_decisions(result, decisions, tools)

c = st.columns(5)
c[0].metric("Tools before", len(tools))
c[1].metric("After (reviewed)", len(reviewed), delta=len(reviewed) - len(tools), delta_color="off")
c[2].metric("Clusters", len(result.clusters))
c[3].metric("MERGE_OK / MERGE_BAD", f"{result.merge_ok} / {result.merge_bad}" if autocorrect else "off")
c[4].metric("Reviewed", sum(s.status != "pending" for s in states.values()))
stored = next((r.metrics for r in list_merge_runs(ws.db, version.id) if r.id == run.run_id), {})
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

# Silhouette and a search engine over the merged catalog take seconds on a large catalog: computed on demand,
# once per run, k, query set and review state.
if st.toggle("Measures before / after (silhouette, Recall@k, CSR@k, TCCR/UCC)", key="merge_measures"):
    sets = list_query_sets(ws.db, info.name)
    m1, m2 = st.columns([1, 3])
    measures_k = int(m1.number_input("k", 1, 50, 5, key="merge_measures_k", help="cut-off for Recall@k and CSR@k"))
    query_set = preferred_query_set(sets, info.name)
    if query_set is None and sets:
        query_set = m2.selectbox("Query set", sets, key="merge_measures_qs", format_func=lambda s: s.name)
    last = decisions[-1].id if decisions else 0
    measures_key = f"merge_measures_{run.run_id}_{measures_k}_{query_set.id if query_set else 0}_{last}"
    if measures_key not in st.session_state:
        with st.spinner("Silhouette before/after, and retrieval over a search engine of the merged catalog…"):
            queries = load_queries(ws.db, query_set.id) if query_set else ()
            st.session_state[measures_key] = measure(engine, reviewed, replace(result, phi=phi), queries, k=measures_k)
    n_reviewed = sum(s.status != "pending" for s in states.values())
    render_measures(st.session_state[measures_key], query_set=query_set.name if query_set else None,
                    key="merge_measures",
                    subject=f"the catalog as reviewed ({len(reviewed)} tools; {n_reviewed} of {len(states)} clusters "
                            "reviewed, the others merged as proposed) — the catalog the export below writes")

rows = pd.DataFrame([{
    "cluster": cl.id, "size": len(cl.members), "confidence": cl.confidence,
    "verdict": cl.audit.verdict if cl.audit else "—", "status": states[cl.id].status,
    "representative": by_key[cl.representative].name,
    "members": ", ".join(by_key[k].name for k in cl.members)} for cl in result.clusters])
st.dataframe(rows, hide_index=True, width="stretch", key="merge_clusters",
             column_config={"confidence": st.column_config.NumberColumn(
                 format="%.3f", help="mean cosine of the pairs the judge linked inside the cluster")})

ids = [cl.id for cl in result.clusters]
cid = st.selectbox("Open a cluster", ids, key="merge_open",
                   format_func=lambda i: f"{i} · {rows.loc[ids.index(i), 'members'][:90]}")
cluster = next(cl for cl in result.clusters if cl.id == cid)
state = states[cid]
members = [by_key[k] for k in cluster.members]

st.subheader(f"Cluster {cid} — {state.status}")
props = {t.key: set(t.parameter_names) for t in members}
shared = set.intersection(*props.values()) if props else set()
cols = st.columns(len(members))
for col, t in zip(cols, members, strict=True):
    with col:
        st.markdown(f"**{md_escape(t.name)}**" + (" · representative" if t.key == cluster.representative else ""))
        st.caption(md_escape(t.description, 400))
        spec = t.parameters.get("properties", {}) if isinstance(t.parameters, dict) else {}
        st.dataframe(pd.DataFrame([{
            "parameter": p, "type": (spec.get(p) or {}).get("type", "") if isinstance(spec.get(p), dict) else "",
            "required": p in t.required, "only here": "✱" if p not in shared else ""} for p in t.parameter_names]),
            hide_index=True, width="stretch", key=f"params_{cid}_{t.key}")

pair_rows = [p for p in result.pairs if p.a in cluster.members and p.b in cluster.members]
st.markdown("**Pair verdicts**")
pair_frame = pd.DataFrame([{"a": by_key[p.a].name, "b": by_key[p.b].name, "cosine": p.cosine, "same": p.same,
                            "reason": p.reason, "error": p.error or ""} for p in pair_rows])
if not pair_frame.empty and not pair_frame["error"].any():
    pair_frame = pair_frame.drop(columns="error")
st.dataframe(pair_frame, hide_index=True, width="stretch", key=f"pairs_{cid}",
             column_config={"cosine": st.column_config.NumberColumn(format="%.3f")})

if cluster.audit is not None:
    a = cluster.audit
    st.markdown(f"**Auto-Correction: {a.verdict}** — {md_escape(a.reason or a.error or '')}")
for note in cluster.kept_apart:
    st.markdown(f"**Kept apart so no tool loses a parameter:** {md_escape(note)}")
st.markdown("**Groups after review** (each group of two or more becomes one tool)")
for gi, grp in enumerate(state.groups):
    names = ", ".join(by_key[k].name for k in grp)
    with st.container(border=True):
        st.markdown(f"Group {gi}: {md_escape(names)}")
        if len(grp) > 1:
            rep_key = min(grp, key=lambda k: (len(by_key[k].name), by_key[k].name, k))
            auto = result.merged_tools.get(rep_key)
            current = state.docs.get(gi) or (auto.description if auto else by_key[rep_key].description)
            text = st.text_area("Merged description", current, key=f"doc_{cid}_{gi}")
            if st.button("Save description", key=f"save_doc_{cid}_{gi}") and text.strip() != current:
                record_decision(ws.db, run.run_id, cid, "edit_doc", {"group": gi, "description": text.strip()})
                st.rerun()

accept, reject, _ = st.columns([1, 1, 5])
if accept.button("Accept", type="primary", key=f"accept_{cid}", width="stretch",
                 help="merge the groups above as shown (the export and the measures follow your decisions)"):
    record_decision(ws.db, run.run_id, cid, "accept")
    st.rerun()
if reject.button("Reject", key=f"reject_{cid}", width="stretch", help="keep every member as a tool of its own"):
    record_decision(ws.db, run.run_id, cid, "reject")
    st.rerun()
with st.expander("Change the split: move a member to another group"):
    m1, m2, m3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    mover = m1.selectbox("Member", cluster.members, key=f"move_key_{cid}", format_func=lambda k: by_key[k].name)
    target = m2.number_input("to group", 0, len(state.groups), 0, key=f"move_to_{cid}",
                             help=f"{len(state.groups)} = a new group of its own")
    if m3.button("Move", key=f"move_{cid}", width="stretch"):
        record_decision(ws.db, run.run_id, cid, "move", {"key": mover, "to_group": int(target)})
        st.rerun()

history = [d for d in decisions if d.cluster_id == cid]
if history:
    st.markdown("**History**")
    st.dataframe(pd.DataFrame([{"time": d.created_at, "action": d.action, "details": json.dumps(d.payload)}
                               for d in history]), hide_index=True, width="stretch", key=f"history_{cid}")

st.divider()
e1, e2 = st.columns(2)
e1.download_button("Export reviewed catalog (OpenAI tools JSON)", export_openai_tools(reviewed),
                   file_name=f"{info.name}-v{version.number}-merged.json", mime="application/json")
e2.download_button("Export φ (tool → kept tool)", json.dumps(phi, indent=2),
                   file_name=f"{info.name}-v{version.number}-phi.json", mime="application/json")
