"""A Cancel button for long work, and the notice shown after it was clicked.

Clicking it reruns the page like any widget. Work that runs as a background job (merges, timelines, trial sets;
``components.jobs``) is cancelled by the page on that rerun and stops at its next progress report; work that
runs inside the script itself (the Playground) is stopped by Streamlit at its next element update. Either way
the services store each finished item as they go and mark an interrupted run "stopped", so cancelling loses
nothing: running again with the same settings resumes.
"""

from __future__ import annotations

import streamlit as st


def cancel_button(key: str):
    """Show before starting the work (it must be on screen while the work runs). Returns its slot: call
    ``.empty()`` on it when the work is over, so no Cancel lingers beside finished results."""
    slot = st.empty()
    slot.button("Cancel", key=key, icon=":material/stop_circle:",
                help="Stop now. Finished items are kept; run again with the same settings to resume.")
    return slot


RESUMES = "What had finished is stored; run it again with the same settings to resume from there."


def cancelled_notice(key: str, what: str, after: str = RESUMES) -> None:
    """On the rerun the click started: say what happened (the button's value is True for that run only)."""
    if st.session_state.get(key):
        st.info(f"{what} cancelled: it stops at its next progress step. {after}")
