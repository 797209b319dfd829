"""Follow a background job (``core.jobs``) from a page: one self-refreshing fragment per job.

The work runs off the page's script run, so a click that reruns or leaves the page costs it nothing: the job
goes on and the page finds it again by key on its next run. While it runs, only a small fragment
(``st.fragment(run_every=…)``) reruns, every :data:`POLL_SECONDS`, to move its progress bar; when the job is
over that fragment reruns the whole page once, which then takes the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from components.text import md_escape
from core.jobs import Job, JobCancelled

POLL_SECONDS = 1.0
# What a cancelled run keeps: the services store each finished item as they go and mark the run "stopped".
RESUMES = "What had finished is stored; run it again with the same settings to resume from there."
# A job this quick is waited for in the script run itself: the page then draws at once, without a progress
# bar that shows for a blink and a second run of the page.
GRACE_SECONDS = 0.5


def job_progress(job: Job, *, cancel_key: str | None = None, what: str = "This work was") -> None:
    """The job's progress bar in a fragment that reruns alone every :data:`POLL_SECONDS` and reruns the whole
    page once the job is over. With ``cancel_key``, a Cancel button beside it (``what`` names the work in the
    notice that follows a click: "The timeline run was")."""

    @st.fragment(run_every=POLL_SECONDS)
    def progress() -> None:
        if cancel_key is not None and st.session_state.get(cancel_key):  # the click that started this rerun
            job.cancel()
        state = job.state()
        if state.over:
            st.rerun(scope="app")
        # Labels carry catalog text (query ids, tool names) and st.progress renders markdown: escape them.
        label = "Stopping…" if state.cancelling else state.label
        text = f"{md_escape(label, 300)} · {state.seconds:.0f} s"
        if cancel_key is None:
            st.progress(state.share, text=text)
            return
        bar, button = st.columns([5, 1], vertical_alignment="bottom")
        bar.progress(state.share, text=text)
        button.button("Cancel", key=cancel_key, icon=":material/stop_circle:", disabled=state.cancelling,
                      help="Stop at the next step. Finished items are kept; run again with the same settings "
                           "to resume.")
        if state.cancelling:
            st.info(f"{what} cancelled: it stops at its next progress step. {RESUMES}")

    progress()


def await_job(job: Job, *, cancel_key: str | None = None, what: str = "This work was", stop: bool = True) -> Any:
    """The job's result once it is over (its exception is raised here, :class:`JobCancelled` included). Until
    then the page shows :func:`job_progress` and stops there (``stop``; else this returns None and the page goes
    on); the fragment reruns the page when the job is over."""
    if not job.over:
        job.wait(GRACE_SECONDS)
    if job.over:
        return job.result()
    job_progress(job, cancel_key=cancel_key, what=what)
    if stop:
        st.stop()
    return None


def job_result(ws, key: Any, work: Callable[[Job], Any], *, label: str, stop: bool = True) -> Any:
    """What the work under ``key`` returns: a finished job's kept result when there is one (shared by sessions,
    no recomputation on reruns), else that work as a job (started, or joined if under way), awaited
    (:func:`await_job`)."""
    return await_job(ws.jobs.done(key) or ws.jobs.start(key, work, label=label), stop=stop)


def session_job(ws, *, state_key: str, cancel_key: str, what: str, start: Callable[[], Job] | None = None) -> Any:
    """A run this session started as a background job (Timeline, Trials): started when ``start`` is given, then
    followed by :func:`job_progress` (with Cancel) while the rest of the page is drawn; once it is over, its
    result is handed over here (once), whether this session watched it end or was away. ``None`` while it runs,
    when there is nothing to hand over, or when it was cancelled (said so on the page).

    The job's key is kept in ``session_state[state_key]`` while it runs (None otherwise), so a page can tell."""
    if start is not None:
        job = start()
        st.session_state[state_key] = job.key
    else:
        key = st.session_state.get(state_key)
        job = ws.jobs.get(key) if key is not None else None
        if job is None:  # none started, or one the registry no longer keeps
            st.session_state[state_key] = None
            return None
    if not job.over:
        job.wait(GRACE_SECONDS)
    if not job.over:
        job_progress(job, cancel_key=cancel_key, what=what)
        return None
    st.session_state[state_key] = None
    try:
        return job.result()  # its error, if it failed, is the page's to show
    except JobCancelled:
        st.info(f"{what} cancelled. {RESUMES}")
        return None


KINDS = {"engine": "Embedding a catalog", "projection": "Catalog map", "sweep": "Merge threshold sweep",
         "merge": "Merge run", "merge_measures": "Merge measures", "overlap_links": "Look-alike links",
         "silhouette": "Silhouette before / after", "timeline": "Timeline run", "trials": "Trial run",
         "eval": "Evaluation run", "playground": "Playground run", "check": "Version check"}


def _describe(ws, key: Any) -> tuple[str, str]:
    kind, version_id = (key[0], key[1]) if isinstance(key, tuple) and len(key) > 1 else (str(key), None)
    try:
        version = ws.version(version_id) if isinstance(version_id, int) else None
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
