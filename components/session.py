"""Process-wide resources for the app: the workspace built from settings, the demo catalog."""

from __future__ import annotations

import streamlit as st

from core.settings import Settings, build_workspace
from core.workspace import Workspace


def ensure_router() -> None:
    """Route a deep link (``/runs``) through app.py on a freshly started server.

    Until app.py has run once, Streamlit treats a ``pages/`` folder as the legacy
    multipage layout and would run the page alone, without our navigation; flipping
    that switch and rerunning sends the request through ``st.navigation``.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not st.session_state.get("_via_router"):  # this session never went through app.py
            st.rerun()


def current_settings() -> Settings:
    """Settings from the environment, with this browser session's overrides from the Settings page."""
    overrides = st.session_state.get("settings_overrides", {})
    return Settings.from_env().with_overrides(**overrides)


@st.cache_resource(show_spinner="Opening the store…")
def _workspace(settings: Settings) -> Workspace:
    ws = build_workspace(settings)
    ws.ensure_demo()
    return ws


def workspace() -> Workspace:
    ensure_router()
    return _workspace(current_settings())


def llm_config():
    """The operator backend chosen on the Settings page (offline unless an endpoint is set)."""
    from core.context import LLMConfig

    chosen = st.session_state.get("llm_config")
    return chosen if chosen is not None else LLMConfig()
