"""Shared pieces of the merge pages: run (or rebuild) a merge as a background job with its progress, the sweep chart, and the
before/after measures of a merge."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.cancel import cancel_button, cancelled_notice
from components.jobs import cancelled_elsewhere, follow
from components.overlap_charts import silhouette_chart
from components.text import md_escape
from core.jobs import DONE, FAILED, RUNNING, JobCancelled
from core.merging.candidates import SweepRow
from core.merging.measures import mean_silhouette
from core.merging.pipeline import MergeConfig
from core.merging.service import MergeMeasures, MergeRun, judge_id, merge_job_key, start_merge
from storage.catalogs import QuerySetInfo
from storage.merges import list_merge_runs


def finished_run(ws, version_id: int, config: MergeConfig, llm) -> bool:
    wanted = {"version_id": version_id, **config.as_dict(), "judge": judge_id(llm)}
    return any(r.status == "done" and dict(r.config) == wanted for r in list_merge_runs(ws.db, version_id))


def finished_merge(ws, version_id: int, config: MergeConfig, llm) -> MergeRun | None:
    """The finished merge run these settings name, else ``None``. Rebuilt from the store once per process (a
    job; its result is reused while the job is kept), not on every rerun of the page that shows it."""
    job = ws.jobs.done(merge_job_key(ws, version_id, config, llm))
    if job is not None:
        return job.result()
    if not finished_run(ws, version_id, config, llm):
        return None
    return follow(start_merge(ws, version_id, config, llm))


def merge_for_page(ws, version_id: int, config: MergeConfig, llm, *, cancel_key: str, run_key: str,
                   api_key: str | None = None) -> MergeRun | None:
    """The merge these settings name, as a background job this page follows, or ``None`` (the page then stops)
    when there is no finished run and Run merge was not pressed.

    A finished job's result is reused across reruns (reviewing clicks rerun the page; rebuilding a finished
    run recomputes its candidate pairs); a finished run not in memory is rebuilt from the store as a job."""
    key = merge_job_key(ws, version_id, config, llm)
    if st.session_state.get(cancel_key):
        ws.jobs.cancel(key)
    cancelled_notice(cancel_key, "The merge run was")
    job = ws.jobs.get(key)
    status = job.state().status if job is not None else None
    if job is None or job.cancelling or status not in (RUNNING, DONE):
        if not finished_run(ws, version_id, config, llm):
            if status == FAILED:
                st.error(f"The last merge run with these settings failed: {md_escape(job.state().error or '', 1500)}")
            if not st.button("Run merge", type="primary", key=run_key):
                st.info("No finished merge run for these settings yet. **Run merge** starts one; it is stored as it "
                        "goes, keeps running if you leave the page, and resumes if interrupted.")
                return None
        job = start_merge(ws, version_id, config, llm, api_key=api_key)
    if job.over:
        return job.result()
    cancel = cancel_button(cancel_key)
    try:
        return follow(job)
    except JobCancelled:
        cancelled_elsewhere()
        return None
    finally:
        cancel.empty()


def sweep_chart(rows: list[SweepRow], chosen: float) -> go.Figure:
    fig = go.Figure()
    x = [r.threshold for r in rows]
    fig.add_trace(go.Scatter(x=x, y=[r.pairs for r in rows], mode="lines+markers", name="candidate pairs"))
    fig.add_trace(go.Scatter(x=x, y=[r.tools_in_clusters for r in rows], mode="lines+markers",
                             name="tools in clusters"))
    fig.add_trace(go.Scatter(x=x, y=[r.clusters for r in rows], mode="lines+markers", name="clusters"))
    fig.add_vline(x=chosen, line_dash="dot", annotation_text=f"θ = {chosen:.2f}")
    fig.update_layout(height=280, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="cosine threshold θ",
                      title="Threshold sweep (candidate graph before any judging)")
    return fig


def preferred_query_set(sets: Sequence[QuerySetInfo], catalog: str) -> QuerySetInfo | None:
    """The query set to measure a merge on without asking: the one named after the catalog, else the only one;
    ``None`` when there are several others (the page then asks) or none."""
    named = [s for s in sets if s.name == catalog]
    if named:
        return named[0]
    return sets[0] if len(sets) == 1 else None


def measures_frame(m: MergeMeasures) -> pd.DataFrame:
    """One row per measure with its value before and after merging. TCCR and UCC exist only after (they ask
    whether the merged catalog still serves the gold calls), so their "before" is empty."""
    rows = []
    if m.retrieval is not None:
        r = m.retrieval
        rows += [{"measure": f"Recall@{r.k}", "before": r.recall_before, "after": r.recall_after},
                 {"measure": f"CSR@{r.k}", "before": r.csr_before, "after": r.csr_after}]
    if m.coverage is not None:
        rows += [{"measure": "TCCR", "before": None, "after": m.coverage.tccr},
                 {"measure": "UCC", "before": None, "after": m.coverage.ucc}]
    ks = [k for k, _ in m.silhouette_before]
    span = f" (k = {ks[0]}…{ks[-1]})" if ks else ""
    rows.append({"measure": f"mean silhouette{span}", "before": mean_silhouette(m.silhouette_before),
                 "after": mean_silhouette(m.silhouette_after)})
    frame = pd.DataFrame(rows, columns=["measure", "before", "after"])
    frame["change"] = frame["after"] - frame["before"]
    return frame


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
                   "TCCR/UCC: share of gold calls (each gold tool with its required arguments), and of distinct "
                   "ones, that the tool they map to still accepts (App. K.1).")
    if m.silhouette_before:
        st.plotly_chart(silhouette_chart(m.silhouette_before, m.silhouette_after), width="stretch",
                        key=f"{key}_silhouette")
    else:
        st.caption("Too few tools for a silhouette curve (k-means needs more tools than clusters).")
