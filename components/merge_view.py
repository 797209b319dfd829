"""Shared pieces of the merge pages: the θ control with the recommendation for the embedding model, run (or
rebuild) a merge as a background job with its progress, the sweep chart, and the before/after measures of a
merge."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.jobs import RESUMES, await_job
from components.text import md_escape
from core.jobs import CANCELLED, DONE, FAILED, RUNNING, JobCancelled
from core.merging.calibration import PAPER_THRESHOLD, ThresholdAdvice, recommended_threshold
from core.merging.candidates import SweepRow
from core.merging.docs import parameter_conflicts
from core.merging.graph import representative
from core.merging.measures import mean_silhouette
from core.merging.pipeline import MergeConfig, MergeResult
from core.merging.review import Review, decide
from core.merging.service import MergeMeasures, MergeRun, finished_merge_run, merge_job_key, start_merge
from core.models import Tool
from core.overlap_charts import silhouette_chart
from core.workspace import QuerySetInfo


def threshold_control(ws, *, key: str, label: str = "Cosine threshold θ") -> tuple[float, ThresholdAdvice]:
    """The θ slider, starting at the θ recommended for the workspace's embedding model (the paper's 0.82
    when the model has no calibration), with a button to switch between that and the paper's value."""
    advice = recommended_threshold(ws.vector_space)

    def set_to(value: float) -> None:
        st.session_state[key] = value

    st.session_state.setdefault(key, advice.threshold)  # the default, set once (the buttons below change it)
    value = st.slider(label, 0.50, 0.98, step=0.01, key=key,
                      help="Pairs of tools at least this similar (cosine of their embeddings) go to the judge. "
                           f"ToolScope uses {PAPER_THRESHOLD:.2f}, tuned for gte-large embeddings; similarities "
                           "depend on the model, so the default is the θ calibrated for this one.")
    if advice.calibrated and round(value, 2) != round(PAPER_THRESHOLD, 2):
        st.button(f"Use the paper's θ {PAPER_THRESHOLD:.2f}", key=f"{key}_paper", on_click=set_to,
                  args=(PAPER_THRESHOLD,), help="ToolScope §4.1 fixed θ = 0.82 after a sweep on Seal-Tools with "
                                                 "gte-large embeddings.")
    if round(value, 2) != round(advice.threshold, 2):
        st.button(f"Back to the recommended θ {advice.threshold:.2f}", key=f"{key}_recommended", on_click=set_to,
                  args=(advice.threshold,))
    return float(value), advice


def threshold_line(value: float, advice: ThresholdAdvice) -> str:
    """One line on which θ is in use and where the default comes from, as markdown (the model id a note may
    name comes from the settings; it is escaped)."""
    paper = f"The ToolScope paper's θ {PAPER_THRESHOLD:.2f} was tuned for another embedder (gte-large)."
    cal = advice.calibration
    if cal is None:
        return f"**θ = {value:.2f}.** {md_escape(advice.note[:1].upper() + advice.note[1:])}."
    s = cal.score
    why = (f"(recovers {s.recovered}/{s.duplicate_groups} planted duplicate groups on the demo, {s.complete} of "
           f"them completely; no look-alike merged)")
    if round(value, 2) == round(advice.threshold, 2):
        return f"**Recommended θ for this model: {advice.threshold:.2f}** {why}, in use. {paper}"
    whose = "the ToolScope paper's" if round(value, 2) == round(PAPER_THRESHOLD, 2) else "set by you"
    return f"**θ = {value:.2f}** ({whose}). Recommended θ for this model: {advice.threshold:.2f} {why}."


def finished_merge(ws, version_id: int, config: MergeConfig, llm) -> MergeRun | None:
    """The finished merge run these settings name, else ``None``. Rebuilt from the store once per process (a
    job; its result is reused while the job is kept), not on every rerun of the page that shows it."""
    job = ws.jobs.done(merge_job_key(ws, version_id, config, llm))
    if job is not None:
        return job.result()
    if finished_merge_run(ws, version_id, config, llm) is None:
        return None
    return await_job(start_merge(ws, version_id, config, llm))


def merge_for_page(ws, version_id: int, config: MergeConfig, llm, *, cancel_key: str, run_key: str,
                   api_key: str | None = None) -> MergeRun | None:
    """The merge these settings name, as a background job this page awaits (:func:`components.jobs.await_job`,
    with Cancel), or ``None`` (the page then stops) when there is no finished run and Run merge was not pressed.

    A finished job's result is reused across reruns (reviewing clicks rerun the page; rebuilding a finished
    run recomputes its candidate pairs); a finished run not in memory is rebuilt from the store as a job."""
    job = ws.jobs.get(merge_job_key(ws, version_id, config, llm))
    status = job.state().status if job is not None else None
    if job is None or job.cancelling or status not in (RUNNING, DONE):
        if finished_merge_run(ws, version_id, config, llm) is None:
            if status == FAILED:
                st.error(f"The last merge run with these settings failed: {md_escape(job.state().error or '', 1500)}")
            elif status == CANCELLED:
                st.info(f"The last merge run with these settings was cancelled. {RESUMES}")
            if not st.button("Run merge", type="primary", key=run_key):
                st.info("No finished merge run for these settings yet. **Run merge** starts one; it is stored as it "
                        "goes, keeps running if you leave the page, and resumes if interrupted.")
                return None
        job = start_merge(ws, version_id, config, llm, api_key=api_key)
    try:
        return await_job(job, cancel_key=cancel_key, what="The merge run was")
    except JobCancelled:
        st.info(f"The merge run was cancelled. {RESUMES}")
        return None


def sweep_chart(rows: list[SweepRow], chosen: float, recommended: float | None = None) -> go.Figure:
    fig = go.Figure()
    x = [r.threshold for r in rows]
    fig.add_trace(go.Scatter(x=x, y=[r.pairs for r in rows], mode="lines+markers", name="candidate pairs"))
    fig.add_trace(go.Scatter(x=x, y=[r.tools_in_clusters for r in rows], mode="lines+markers",
                             name="tools in clusters"))
    fig.add_trace(go.Scatter(x=x, y=[r.clusters for r in rows], mode="lines+markers", name="clusters"))
    same = recommended is not None and round(recommended, 2) == round(chosen, 2)
    fig.add_vline(x=chosen, line_dash="dot", annotation_text=f"θ = {chosen:.2f}" + (" (recommended)" if same else ""),
                  annotation_position="top right")
    if recommended is not None and not same:
        fig.add_vline(x=recommended, line_dash="dash", line_color="seagreen",
                      annotation_text=f"recommended {recommended:.2f}", annotation_position="top left")
    if round(PAPER_THRESHOLD, 2) not in {round(chosen, 2), round(recommended or -1, 2)}:
        fig.add_vline(x=PAPER_THRESHOLD, line_dash="dash", line_color="grey",
                      annotation_text=f"paper {PAPER_THRESHOLD:.2f}", annotation_position="bottom right")
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="cosine threshold θ",
                      yaxis=dict(title="count (log scale)", type="log", tickvals=[m * 10**e for e in range(7)
                                                                                  for m in (1, 2, 5)]),
                      legend_title_text="at each θ",
                      title="Threshold sweep: what each θ would put up for review (before any judging)")
    return fig


def preferred_query_set(sets: Sequence[QuerySetInfo], catalog: str) -> QuerySetInfo | None:
    """The query set to measure a merge on without asking: the one named after the catalog, else the only one;
    ``None`` when there are several others (the page then asks) or none."""
    named = [s for s in sets if s.name == catalog]
    if named:
        return named[0]
    return sets[0] if len(sets) == 1 else None


NOT_MEASURED = "not measured"


def coverage_note(m: MergeMeasures) -> str:
    """Why TCCR/UCC have the values they have (or none), in one line of plain text."""
    c = m.coverage
    if c is None:
        return f"{NOT_MEASURED}: the query set has no gold calls with arguments"
    if not c.measured:
        return f"{NOT_MEASURED}: none of the {c.unserved_before} gold calls fits its own tool before merging"
    left_out = f"; {c.unserved_before} that do not fit their own tool even before merging are left out" \
        if c.unserved_before else ""
    return f"over {c.calls} gold calls ({c.capabilities} capabilities), argument {c.check} checked{left_out}"


def measures_frame(m: MergeMeasures) -> pd.DataFrame:
    """One row per measure with its value before and after merging, and a note. TCCR and UCC exist only after
    (they ask whether the merged catalog still serves the gold calls), so their "before" is empty; without gold
    calls their note says "not measured" and they hold no value."""
    rows = []
    if m.retrieval is not None:
        r = m.retrieval
        rows += [{"measure": f"Recall@{r.k}", "before": r.recall_before, "after": r.recall_after},
                 {"measure": f"CSR@{r.k}", "before": r.csr_before, "after": r.csr_after}]
    if m.retrieval is not None or m.coverage is not None:
        c, note = m.coverage, coverage_note(m)
        rows += [{"measure": "TCCR", "before": None, "after": c.tccr if c else None, "note": note},
                 {"measure": "UCC", "before": None, "after": c.ucc if c else None, "note": note}]
    ks = [k for k, _ in m.silhouette_before]
    span = f" (k = {ks[0]}…{ks[-1]})" if ks else ""
    rows.append({"measure": f"mean silhouette{span}", "before": mean_silhouette(m.silhouette_before),
                 "after": mean_silhouette(m.silhouette_after)})
    frame = pd.DataFrame(rows, columns=["measure", "before", "after", "note"])
    frame[["before", "after"]] = frame[["before", "after"]].astype(float)
    frame["change"] = frame["after"] - frame["before"]
    frame["note"] = frame["note"].fillna("")
    return frame[["measure", "before", "after", "change", "note"]]


def render_measures(m: MergeMeasures, *, subject: str, query_set: str | None, key: str) -> None:
    """The measures table, what it was measured on, and the silhouette curves before/after."""
    st.caption(f"Measured on {subject}.")
    st.dataframe(measures_frame(m), hide_index=True, width="stretch", key=f"{key}_table",
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in ("before", "after", "change")})
    if m.retrieval is None:
        st.caption("No query set for this catalog: silhouette only (import one with `toolatlas import --queries`).")
    else:
        r = m.retrieval
        st.caption(f"{r.n_queries} queries of query set **{md_escape(query_set or '')}**; after merging, their gold "
                   f"tools are relabelled through φ (ToolScope Eq. 3). CSR@{r.k} counts a query solved when the "
                   f"offline select_tools rule, shown the top {r.k} of each catalog, picks exactly its gold tools (as "
                   "eval runs and the CLI measure it). "
                   "TCCR/UCC: share of the gold calls, and of distinct capabilities (a tool with its argument "
                   "names), whose arguments and values the tool they map to still accepts, checked against its "
                   f"JSON Schema (App. K.1; values checked: ours). TCCR/UCC {md_escape(coverage_note(m))}.")
        if m.coverage is not None and m.coverage.failures:
            with st.expander(f"Gold calls the merged catalog no longer serves (first {len(m.coverage.failures)})"):
                st.markdown("\n".join(f"- {md_escape(f, 300)}" for f in m.coverage.failures))
    if m.silhouette_before:
        st.plotly_chart(silhouette_chart(m.silhouette_before, m.silhouette_after), width="stretch",
                        key=f"{key}_silhouette")
    else:
        st.caption("Too few tools for a silhouette curve (k-means needs more tools than clusters).")


def clusters_frame(result: MergeResult, review: Review, by_key: Mapping[str, Tool]) -> pd.DataFrame:
    """One row per proposed cluster: size, confidence, Auto-Correction verdict, review status, members."""
    return pd.DataFrame([{
        "cluster": cl.id, "size": len(cl.members), "confidence": cl.confidence,
        "verdict": cl.audit.verdict if cl.audit else "—", "status": review.states[cl.id].status,
        "representative": by_key[cl.representative].name,
        "members": ", ".join(by_key[k].name for k in cl.members)} for cl in result.clusters])


@st.fragment
def cluster_review(ws, run_id: int, result: MergeResult, review: Review, by_key: Mapping[str, Tool]) -> None:
    """One cluster at a time: its members side by side, pair verdicts, groups after review, and the reviewer's
    decisions. A fragment: opening another cluster or typing reruns only this part; a decision, which changes
    the counts, the table and the export above, reruns the page."""
    members_of = {cl.id: ", ".join(by_key[k].name for k in cl.members) for cl in result.clusters}
    cid = st.selectbox("Open a cluster", list(members_of), key="merge_open",
                       format_func=lambda i: f"{i} · {members_of[i][:90]}")
    cluster = next(cl for cl in result.clusters if cl.id == cid)
    state = review.states[cid]
    members = [by_key[k] for k in cluster.members]

    def record(action: str, payload: Mapping | None = None) -> None:
        decide(ws, run_id, cid, action, payload)
        st.rerun(scope="app")

    st.subheader(f"Cluster {cid} — {state.status}")
    props = {t.key: set(t.parameter_names) for t in members}
    shared = set.intersection(*props.values()) if props else set()
    for col, t in zip(st.columns(len(members)), members, strict=True):
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
                rep = representative([by_key[k] for k in grp])
                rep_key = rep.key
                conflicts = parameter_conflicts(rep, [by_key[k] for k in grp if k != rep_key])
                if conflicts:
                    st.markdown(f"**Parameter conflicts** (the merged tool keeps {md_escape(rep.name)}'s; calls of "
                                "the others that pass such values may no longer fit it):")
                    st.dataframe(pd.DataFrame([{"parameter": c["parameter"], "kept": c["kept"],
                                                "member": by_key[c["from"]].name, "member's": c["theirs"]}
                                               for c in conflicts]),
                                 hide_index=True, width="stretch", key=f"conflicts_{cid}_{gi}")
                auto = result.merged_tools.get(rep_key)
                current = state.docs.get(gi) or (auto.description if auto else by_key[rep_key].description)
                text = st.text_area("Merged description", current, key=f"doc_{cid}_{gi}")
                if st.button("Save description", key=f"save_doc_{cid}_{gi}") and text.strip() != current:
                    record("edit_doc", {"group": gi, "description": text.strip()})

    accept, reject, _ = st.columns([1, 1, 5])
    if accept.button("Accept", type="primary", key=f"accept_{cid}", width="stretch",
                     help="merge the groups above as shown (the export and the measures follow your decisions)"):
        record("accept")
    if reject.button("Reject", key=f"reject_{cid}", width="stretch", help="keep every member as a tool of its own"):
        record("reject")
    with st.expander("Change the split: move a member to another group"):
        m1, m2, m3 = st.columns([3, 1, 1], vertical_alignment="bottom")
        mover = m1.selectbox("Member", cluster.members, key=f"move_key_{cid}", format_func=lambda k: by_key[k].name)
        target = m2.number_input("to group", 0, len(state.groups), 0, key=f"move_to_{cid}",
                                 help=f"{len(state.groups)} = a new group of its own")
        if m3.button("Move", key=f"move_{cid}", width="stretch"):
            record("move", {"key": mover, "to_group": int(target)})

    history = review.history(cid)
    if history:
        st.markdown("**History**")
        st.dataframe(pd.DataFrame([{"time": d.created_at, "action": d.action, "details": json.dumps(d.payload)}
                                   for d in history]), hide_index=True, width="stretch", key=f"history_{cid}")
