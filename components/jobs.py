"""Follow a background job (``core.jobs``) from a page: a progress bar polled until the job is over.

The work runs on its own thread, so a click that reruns or leaves the page stops only this polling: the
job goes on, and the page finds it again by key on its next run and shows the bar where it now stands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from components.cancel import cancel_button
from components.text import md_escape
from core.jobs import Job, JobCancelled

POLL_SECONDS = 0.25


def follow(job: Job) -> Any:
    """Show the job's progress until it is over, then its result (its exception is raised here)."""
    if not job.over:
        state = job.state()
        # Labels carry catalog text (query ids, tool names) and st.progress renders markdown: escape them.
        bar = st.progress(state.share, text=md_escape(state.label, 300))
        while not job.wait(POLL_SECONDS):
            # Updated on every poll, changed or not: an element update is where Streamlit acts on a click
            # (rerun or stop), so a long silent phase of the work never delays the page's response.
            state = job.state()
            label = "Stopping…" if state.cancelling else state.label
            bar.progress(state.share, text=f"{md_escape(label, 300)} · {state.seconds:.0f} s")
        bar.empty()
    return job.result()


def job_result(ws, key: Any, work: Callable[[Job], Any], *, label: str) -> Any:
    """What the work under ``key`` returns: a finished job's kept result when there is one (shared by sessions,
    no recomputation on reruns), else that work as a job (started, or joined if under way) followed to its end."""
    return follow(ws.jobs.done(key) or ws.jobs.start(key, work, label=label))


def session_job(ws, *, state_key: str, cancel_key: str, start: Callable[[], Job] | None = None) -> Any:
    """A run this session started as a background job (Timeline, Trials): start it when ``start`` is given,
    else follow the one it started before if still under way, else hand over its result if it finished while
    this session was away (once). ``None`` when there is nothing to show or the job was cancelled.

    The job's key is kept in ``session_state[state_key]``; a click on ``cancel_key`` cancels it."""
    key = st.session_state.get(state_key)
    if key is not None and st.session_state.get(cancel_key):
        ws.jobs.cancel(key)
    if start is not None:
        job = start()
        st.session_state[state_key] = job.key
    else:
        job = ws.jobs.get(key) if key is not None else None
        if job is None or job.cancelling:
            return None
        if job.over:
            st.session_state[state_key] = None
            try:
                return job.result()  # its error, if it failed, is the page's to show
            except JobCancelled:
                return None
    cancel = cancel_button(cancel_key)
    try:
        result = follow(job)
    except JobCancelled:
        cancelled_elsewhere()
        return None
    finally:
        cancel.empty()
    st.session_state[state_key] = None
    return result


def cancelled_elsewhere() -> None:
    """The job this page followed was cancelled by someone else (the Runs page, another session)."""
    st.info("This work was cancelled from the Runs page or by another session following it. What had finished "
            "is stored; run it again with the same settings to resume.")


KINDS = {"engine": "Embedding a catalog", "projection": "Catalog map", "sweep": "Merge threshold sweep",
         "merge": "Merge run", "timeline": "Timeline run", "trials": "Trial run",
         "eval": "Evaluation run"}


def _describe(ws, key: Any) -> tuple[str, str]:
    from storage.catalogs import version_by_id

    kind, version_id = (key[0], key[1]) if isinstance(key, tuple) and len(key) > 1 else (str(key), None)
    try:
        version = version_by_id(ws.db, version_id) if isinstance(version_id, int) else None
    except ValueError:  # a version deleted since (a test store, a reset)
        version = None
    where = f"{version.catalog_name} v{version.number}" if version is not None else ""
    return KINDS.get(kind, str(kind)), where


def jobs_panel(ws) -> None:
    """Background work of this app (every session's): what, on which catalog, how far, for how long. Polls
    itself every 2 s while something runs, so it can be left open beside a long embedding."""
    if not ws.jobs.states():
        return
    running = any(not s.over for s in ws.jobs.states())

    @st.fragment(run_every=2.0 if running else None)
    def panel() -> None:
        states = ws.jobs.states()[::-1]
        under_way = sum(not s.over for s in states)
        with st.expander(f"Background work in this app: {under_way} under way, {len(states) - under_way} finished",
                         expanded=under_way > 0):
            # one store read per job and refresh, shared by the table and the picker below
            described = {repr(s.key): _describe(ws, s.key) for s in states}
            rows = []
            for s in states:
                what, where = described[repr(s.key)]
                rows.append({"work": what, "catalog": where,
                             "status": "stopping" if s.cancelling and not s.over else s.status,
                             "progress": s.share, "now": s.label, "seconds": round(s.seconds, 1),
                             "error": s.error or ""})
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="jobs_table",
                         column_config={"progress": st.column_config.ProgressColumn("progress", min_value=0.0,
                                                                                     max_value=1.0)})
            st.caption("Shared by every session: a map or an embedding started on one page goes on when you leave "
                       "it, and the page shows it again when you come back.")
            live = {repr(s.key): s for s in states if not s.over and not s.cancelling}
            if live:
                c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
                pick = c1.selectbox("Work under way", list(live), key="jobs_pick",
                                    format_func=lambda k: " · ".join(filter(None, (*described[k], live[k].label))))
                if c2.button("Cancel it", key="jobs_cancel", icon=":material/stop_circle:",
                             help="Stops it at its next progress report, for every session following it. Runs "
                                  "keep what finished and resume when started again."):
                    ws.jobs.cancel(live[pick].key)
                    st.rerun()

    panel()
