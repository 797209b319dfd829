"""Process-wide resources for the app: the workspace built from settings, the demo catalog; and this
browser session's choices (LLM backend, key, tool text), which never leave the session."""

from __future__ import annotations

import streamlit as st

from core.jobs import Jobs
from core.settings import (
    LLMChoice,
    ServerEndpoint,
    Settings,
    allowed_overrides,
    api_key_for,
    build_workspace,
    operator_mode,
)
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
    """Settings from the environment, with this browser session's overrides from the Settings page
    (only the visitor's own ones, such as the tool text, unless the server runs in operator mode)."""
    overrides = allowed_overrides(st.session_state.get("settings_overrides", {}), operator=operator_mode())
    return Settings.from_env().with_overrides(**overrides)


# Workspaces this process keeps, one per distinct Settings (a visitor's tool text, an operator's store or model
# makes another): each holds its engines, so an unbounded cache would grow with every choice ever made.
# Sessions holding an evicted one keep using it; the next session asking for it opens it afresh.
MAX_WORKSPACES = 4


@st.cache_resource(show_spinner=False)
def _jobs(store: str) -> Jobs:
    """The one job registry of every session on one store (its resolved URL): a job started by any workspace
    on that store is seen, joined and cancelled by all. One per store, as job keys name versions by id."""
    return Jobs()


@st.cache_resource(show_spinner="Opening the store…", max_entries=MAX_WORKSPACES)
def _workspace(settings: Settings) -> Workspace:
    ws = build_workspace(settings, jobs=_jobs(settings.db_url or ""), secret_key=_secret_key())
    ws.warm_up()  # the embedding model loads beside the demo's import, not in the first visitor's search
    ws.ensure_demo()
    return ws


@st.cache_resource(show_spinner=False)
def _router(plan_id: str, _plan):
    from core.execution.setup import build_router

    return build_router(_plan)


def executor_router(plan):
    """The executors carrying out an approved plan (``components.executors.approve_plan``): one set per plan
    for the whole app, shared by the Trials and Timeline pages; MCP servers start on first use."""
    from components.executors import plan_key

    return _router(plan_key(plan), plan)


def workspace() -> Workspace:
    ensure_router()
    return _workspace(current_settings())


def llm_config():
    """The operator backend chosen on the Settings page (offline unless an endpoint is set)."""
    from core.context import LLMConfig

    chosen = st.session_state.get("llm_config")
    return chosen if chosen is not None else LLMConfig()


def _secret_key() -> str | None:
    try:
        return str(st.secrets.get("OPENAI_API_KEY", "")) or None
    except Exception:  # noqa: BLE001 - no secrets file is the normal case
        return None


def server_endpoint() -> ServerEndpoint | None:
    """The operator's default LLM endpoint (environment, key from OPENAI_API_KEY or secrets.toml), or None.
    Its key must never be shown: pages show ``has_key`` only."""
    return ServerEndpoint.from_env(secret_key=_secret_key())


def use_llm(config, *, server: bool = False, api_key: str | None = None) -> None:
    """Make ``config`` this session's LLM backend: the server's endpoint (``server``; its key stays on the
    server) or the visitor's own, with the key they typed (None: no key)."""
    st.session_state["llm_config"] = config
    st.session_state["llm_endpoint"] = "server" if server else "visitor"
    st.session_state["llm_api_key"] = None if server else (api_key or None)


def llm_api_key() -> str | None:
    """The key for this session's LLM requests: the server's only for the server's own endpoint, else the
    one the visitor typed, else None. Pass it as ``api_key``; never show it."""
    choice = LLMChoice(llm_config(), server_endpoint=st.session_state.get("llm_endpoint") == "server",
                       api_key=st.session_state.get("llm_api_key"))
    return api_key_for(choice, server_endpoint())
