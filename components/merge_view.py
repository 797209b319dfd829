"""Shared pieces of the merge pages: the θ control with the recommendation for the embedding model, run (or
rebuild) a merge as a background job with its progress, the sweep chart, and the before/after measures of a
merge."""

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
from core.merging.calibration import PAPER_THRESHOLD, ThresholdAdvice, recommended_threshold
from core.merging.candidates import SweepRow
from core.merging.measures import mean_silhouette
from core.merging.pipeline import MergeConfig
from core.merging.service import MergeMeasures, MergeRun, judge_id, merge_job_key, start_merge
from storage.catalogs import QuerySetInfo
from storage.merges import list_merge_runs


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
