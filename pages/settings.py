"""Settings page: the LLM backend, embedding model, reranker and database — each with a live check.

Choices last for this browser session. API keys stay in the session (or come from
``.streamlit/secrets.toml``); they are never written to the database, the ledger or logs.
"""

import streamlit as st

from components.session import current_settings, llm_config, workspace
from components.text import md_escape
from core.context import LLMConfig
from storage.db import redact_url, resolve_db_url


def verdict(ok: bool, message: str) -> None:
    (st.success if ok else st.error)(md_escape(message, 400))


def secret_key() -> str:
    try:
        return str(st.secrets.get("OPENAI_API_KEY", ""))
    except Exception:  # noqa: BLE001 - no secrets file is the normal case
        return ""


st.title("Settings")
settings = current_settings()
ws = workspace()
overrides = st.session_state.setdefault("settings_overrides", {})

st.subheader("LLM backend")
current = llm_config()
kinds = {"offline": "Offline operators (deterministic heuristics — not a language model)",
         "openai": "OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama…)",
         "local": "Local GGUF model (served on 127.0.0.1 by xllamacpp)"}
kind = st.radio("Backend", list(kinds), format_func=kinds.get, key="set_llm_kind",
                index=0 if current.kind == "offline" else 1)
if kind == "offline":
    st.caption("Every strategy runs with no network and no cost; results replay exactly for a given seed.")
    if st.button("Use offline operators", key="set_use_offline"):
        st.session_state["llm_config"] = LLMConfig()
        st.success("Using the offline operators.")
elif kind == "openai":
    base_url = st.text_input("Base URL", current.base_url or "https://api.openai.com/v1", key="set_base_url")
    model = st.text_input("Model", current.model or "gpt-4.1-mini", key="set_model")
    key = st.text_input("API key (kept in this session only)", st.session_state.get("llm_api_key") or secret_key(),
                        type="password", key="set_api_key")
    replay = st.toggle("Replay: answer repeated requests from the ledger", current.replay, key="set_replay")
    c1, c2 = st.columns(2)
    if c1.button("Check endpoint", key="set_check_llm"):
        from core.llm.openai_backend import OpenAIChatBackend

        with st.spinner("Asking the endpoint…"):
            ok, msg = OpenAIChatBackend(base_url, model, key or None, timeout=20, max_retries=1).check()
        verdict(ok, msg)
    if c2.button("Use this endpoint", key="set_use_llm", type="primary"):
        st.session_state["llm_config"] = LLMConfig(kind="openai", base_url=base_url, model=model, replay=replay)
        st.session_state["llm_api_key"] = key or None
        st.success(f"Strategies now call {md_escape(model)}.")
else:
    from core.llm.local_server import LocalModelServer, xllamacpp_available

    if not xllamacpp_available():
        st.warning("Install the optional extra first: `pip install -e '.[local]'` (a prebuilt wheel).")
    path = st.text_input("GGUF model file", key="set_gguf")
    server = st.session_state.get("local_server")
    c1, c2 = st.columns(2)
    if c1.button("Start and use", key="set_local_start", type="primary", disabled=not path):
        if server is not None:
            server.stop()
        try:
            with st.spinner("Loading the model…"):
                server = LocalModelServer(path)
                url = server.start()
        except ValueError as exc:
            verdict(False, str(exc))
        else:
            st.session_state["local_server"] = server
            st.session_state["llm_config"] = LLMConfig(kind="openai", base_url=url, model="local")
            verdict(True, f"Serving {server.gguf_path.name} at {url}")
    if c2.button("Stop", key="set_local_stop", disabled=server is None):
        server.stop()
        st.session_state.pop("local_server", None)
        st.session_state["llm_config"] = LLMConfig()
        st.info("Stopped; back to the offline operators.")

st.subheader("Embedding model")
emb = st.text_input("Model id or local folder", settings.embedding_model, key="set_embedding")
c1, c2 = st.columns(2)
if c1.button("Check model", key="check_embedder"):
    from core.embedding import SentenceTransformerEmbedder

    try:
        with st.spinner("Loading…"):
            vec = SentenceTransformerEmbedder(emb).encode(["reachability check"])
        verdict(True, f"Loaded: {vec.shape[1]}-dimensional vectors.")
    except ValueError as exc:
        verdict(False, str(exc))
if c2.button("Use this model", key="set_use_embedding"):
    overrides["embedding_model"] = emb
    st.success("Switched; catalogs are re-embedded on first use (and cached).")

texts = {True: "name: description, then the parameter names (default)", False: "name: description only"}
text_choice = st.radio("Tool text that is embedded and indexed", list(texts), format_func=texts.get,
                       index=0 if settings.text_with_parameters else 1, key="set_tool_text", horizontal=True,
                       help="Parameter names carry signal when descriptions are terse (unit_from, currency). "
                            "Each choice has its own vectors, maps and runs. TOOLATLAS_TOOL_TEXT sets the default "
                            "(name-description-parameters or name-description).")
if st.button("Use this tool text", key="set_use_tool_text", disabled=text_choice == settings.text_with_parameters):
    overrides["text_with_parameters"] = text_choice
    st.success("Switched; catalogs are embedded with this text on first use (and cached).")

st.subheader("Reranker")
rr = st.text_input("Cross-encoder id or local folder (empty: none — none ships offline)",
                   settings.reranker_model or "", key="set_reranker")
c1, c2 = st.columns(2)
if c1.button("Check reranker", key="check_reranker", disabled=not rr):
    from core.search.rerank import CrossEncoderReranker

    try:
        with st.spinner("Loading…"):
            scores = CrossEncoderReranker(rr).score("weather in Oslo", ["current weather for a city"])
        verdict(True, f"Loaded; test score {float(scores[0]):.3f}.")
    except ValueError as exc:
        verdict(False, str(exc))
if c2.button("Use this reranker", key="set_use_reranker"):
    # An empty string, not None: with_overrides skips None, which left TOOLATLAS_RERANKER in force.
    overrides["reranker_model"] = rr.strip()
    st.success("Saved for this session." if rr.strip() else "Reranker switched off for this session.")

st.subheader("Database")
st.code(redact_url(resolve_db_url(settings.db_url)), language=None)
url = st.text_input("SQLAlchemy URL (SQLite file or PostgreSQL)", "", key="set_db_url",
                    placeholder="postgresql+psycopg://user@localhost/toolatlas")
c1, c2 = st.columns(2)
if c1.button("Check database", key="check_db"):
    from sqlalchemy import create_engine

    try:
        engine = create_engine(resolve_db_url(url or settings.db_url))
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        verdict(True, "Reachable.")
    except Exception as exc:  # noqa: BLE001 - shown to the user as the verdict
        verdict(False, f"Not reachable: {type(exc).__name__}: {str(exc).splitlines()[0]}")
if c2.button("Use this database", key="set_use_db", disabled=not url):
    overrides["db_url"] = url
    st.success("Switched for this session; the demo catalog is loaded into it if missing.")
