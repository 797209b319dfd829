"""Settings page: the LLM backend, embedding backend and model, reranker and database — each with a live check.

Two kinds of settings. A visitor's (the LLM backend, an endpoint with their own key, the tool text) last
for this browser session only. The server's (store, local model file, embedding model, reranker, the
server's own LLM endpoint) are set by the operator in the environment and shown read-only, unless the
server runs in operator mode (``TOOLATLAS_OPERATOR=1``, for a single trusted user).

Secrets never reach the browser: the server's key is shown as "set on the server", and a key a visitor
types is cleared from the field once used. The server's key goes to the server's endpoint only
(``core.settings.api_key_for``); an endpoint a visitor types gets the visitor's key or none.
"""

import streamlit as st

from components.session import (
    current_settings,
    llm_config,
    server_endpoint,
    use_llm,
    workspace,
)
from components.text import md_escape
from core.context import LLMConfig
from core.embedding import EMBEDDER_KINDS, check_embedder
from core.first_look import DEFAULT_THRESHOLD, ENV_FIRST_LOOK
from core.settings import (
    DEFAULT_LLM_MODEL,
    ENV_DB_URL,
    ENV_EMBEDDER,
    ENV_EMBEDDING,
    ENV_EMBEDDING_API_KEY,
    ENV_EMBEDDING_BASE_URL,
    ENV_LLM_GGUF,
    ENV_OPERATOR,
    ENV_RERANKER,
    OPENAI_ENDPOINT,
    LLMChoice,
    ServerEndpoint,
    api_key_for,
    embedder_for,
    embedding_key_for,
    operator_mode,
)
from core.workspace import check_store


def verdict(ok: bool, message: str) -> None:
    (st.success if ok else st.error)(md_escape(message, 400))


def set_by_operator(*variables: str) -> None:
    st.caption(f"Set by the operator ({', '.join(f'`{v}`' for v in variables)}); read-only here. "
               f"Server-wide settings change only when the server runs with `{ENV_OPERATOR}=1`.")


def check_endpoint(base_url: str | None, model: str, key: str | None) -> None:
    from core.llm.openai_backend import OpenAIChatBackend

    with st.spinner("Asking the endpoint…"):
        ok, msg = OpenAIChatBackend(base_url, model, key, timeout=20, max_retries=1).check()
    verdict(ok, msg)


def use_visitor_endpoint() -> None:
    """'Use this endpoint' (a callback, so the typed key can be cleared from its field before the page
    is drawn again: it is never sent back to the browser)."""
    ss = st.session_state
    typed = (ss.get("set_api_key") or "").strip() or None
    kept = ss.get("llm_api_key") if ss.get("llm_backend") == "openai" and ss.get("llm_endpoint") == "visitor" else None
    model = (ss.get("set_model") or "").strip()
    use_llm(LLMConfig(kind="openai", base_url=(ss.get("set_base_url") or "").strip() or None, model=model,
                      replay=bool(ss.get("set_replay"))), api_key=typed or kept)
    ss["set_api_key"] = ""
    ss["llm_backend"] = "openai"
    ss["set_llm_notice"] = f"Strategies now call {model} at the endpoint you gave."


def forget_visitor_key() -> None:
    st.session_state["llm_api_key"] = None
    st.session_state["set_llm_notice"] = "Key forgotten; requests to your endpoint now carry no key."


st.title("Settings")
st.caption("Choose the language model your strategies use in this browser session: pick a backend under "
           "**LLM backend** and press its **Use** button. Your choices last for this session only.")
operator = operator_mode()
settings = current_settings()
ws = workspace()
server = server_endpoint()
overrides = st.session_state.setdefault("settings_overrides", {})
if operator:
    st.warning(f"Operator mode (`{ENV_OPERATOR}=1`): this page can change the server's store and models for "
               "this session. Never run a server open to untrusted visitors in this mode.")
else:
    st.caption("The store, the models and the server's own LLM endpoint are set by the operator and shown "
               "read-only.")

st.subheader("LLM backend")
current = llm_config()
endpoint = st.session_state.get("llm_endpoint")
kinds = {"offline": "Offline operators (deterministic heuristics — not a language model)"}
if server is not None:
    kinds["server"] = "The server's endpoint (set by the operator)"
kinds |= {"openai": "Your own OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama…)",
          "local": "Local GGUF model (served on 127.0.0.1 by xllamacpp)"}
chosen = st.session_state.get("llm_backend") or ("offline" if current.kind == "offline" else
                                                  "server" if endpoint == "server" else "openai")
kind = st.radio("Backend", list(kinds), format_func=kinds.get, key="set_llm_kind",
                index=list(kinds).index(chosen) if chosen in kinds else 0)
notice = st.session_state.pop("set_llm_notice", None)
if notice:
    st.success(md_escape(notice, 300))
if kind == "offline":
    st.caption("Every strategy runs with no network and no cost; results replay exactly for a given seed.")
    if st.button("Use offline operators", key="set_use_offline"):
        use_llm(LLMConfig())
        st.session_state["llm_backend"] = "offline"
        st.success("Using the offline operators.")
elif kind == "server":
    st.text_input("Base URL", server.base_url, disabled=True, key="set_server_base_url")
    st.text_input("Model", server.model, disabled=True, key="set_server_model")
    st.markdown("API key: **set on the server**" if server.has_key else "API key: none (the endpoint needs none)")
    set_by_operator("TOOLATLAS_LLM_BASE_URL", "TOOLATLAS_LLM_MODEL", "OPENAI_API_KEY")
    st.caption("The server's key is sent to this endpoint only, and never shown.")
    replay = st.toggle("Replay: answer repeated requests from the ledger",
                       current.replay if endpoint == "server" else False, key="set_server_replay")
    c1, c2 = st.columns(2)
    if c1.button("Check endpoint", key="set_check_server"):
        check_endpoint(server.base_url, server.model,
                       api_key_for(LLMChoice(server.llm_config(), server_endpoint=True), server))
    if c2.button("Use the server's endpoint", key="set_use_server", type="primary"):
        use_llm(server.llm_config(replay=replay), server=True)
        st.session_state["llm_backend"] = "server"
        st.success(f"Strategies now call {md_escape(server.model)} at the server's endpoint.")
elif kind == "openai":
    mine = st.session_state.get("llm_backend") == "openai" and endpoint == "visitor" and current.kind == "openai"
    base_url = st.text_input("Base URL", (current.base_url if mine else None) or OPENAI_ENDPOINT, key="set_base_url")
    model = st.text_input("Model", (current.model if mine else None) or DEFAULT_LLM_MODEL, key="set_model")
    has_key = mine and bool(st.session_state.get("llm_api_key"))
    # No default value: a key is never sent back to the browser, not even the one typed here.
    key = st.text_input("API key (kept in this session only)", type="password", key="set_api_key",
                        placeholder="empty: keep the key set for this session" if has_key
                        else "empty: no key (local servers need none)")
    st.caption(("Key set for this session. " if has_key else "")
               + "This endpoint gets only the key you type here, never the server's.")
    replay = st.toggle("Replay: answer repeated requests from the ledger", current.replay if mine else False,
                       key="set_replay")
    c1, c2, c3 = st.columns(3)
    if c1.button("Check endpoint", key="set_check_llm"):
        check_endpoint(base_url.strip() or None, model.strip(),
                       key.strip() or (st.session_state.get("llm_api_key") if mine else None) or None)
    c2.button("Use this endpoint", key="set_use_llm", type="primary", on_click=use_visitor_endpoint)
    if has_key:
        c3.button("Forget the key", key="set_forget_key", on_click=forget_visitor_key)
else:
    from core.llm.local_server import LocalModelServer, xllamacpp_available

    if not xllamacpp_available():
        st.warning("Install the optional extra first: `pip install -e '.[local]'` (a prebuilt wheel).")
    if operator:
        path = st.text_input("GGUF model file", settings.local_model or "", key="set_gguf").strip()
    else:
        st.text_input("GGUF model file", settings.local_model or "", disabled=True, key="set_gguf",
                      placeholder="none set on this server")
        set_by_operator(ENV_LLM_GGUF)
        path = settings.local_model or ""
    server_proc = st.session_state.get("local_server")
    c1, c2 = st.columns(2)
    if c1.button("Start and use", key="set_local_start", type="primary", disabled=not path):
        if server_proc is not None:
            server_proc.stop()
        try:
            with st.spinner("Loading the model…"):
                server_proc = LocalModelServer(path)
                url = server_proc.start()
        except ValueError as exc:
            verdict(False, str(exc))
        else:
            st.session_state["local_server"] = server_proc
            use_llm(LLMConfig(kind="openai", base_url=url, model="local"))
            st.session_state["llm_backend"] = "local"
            verdict(True, f"Serving {server_proc.gguf_path.name} at {url}")
    if c2.button("Stop", key="set_local_stop", disabled=server_proc is None):
        server_proc.stop()
        st.session_state.pop("local_server", None)
        use_llm(LLMConfig())
        st.session_state["llm_backend"] = "offline"
        st.info("Stopped; back to the offline operators.")

st.subheader("Embedding model")
emb_server = ServerEndpoint.embedding_from_env()  # the operator's embeddings endpoint; its key is never shown
emb_kinds = list(EMBEDDER_KINDS)
if operator:
    emb_kind = st.radio("Embedding backend", emb_kinds, format_func=lambda k: f"{k}: {EMBEDDER_KINDS[k]}",
                        index=emb_kinds.index(settings.embedder), key="set_embedder")
    emb = st.text_input("Model id or local folder", settings.embedding_model, key="set_embedding",
                        help="local: a model id or folder; openai: the model name at the endpoint; precomputed: "
                             "the id the vectors were imported under")
    emb_url = st.text_input("Embeddings endpoint (OpenAI-compatible)", settings.embedding_base_url or "",
                            key="set_embedding_url", disabled=emb_kind in ("local", "static"),
                            placeholder="empty: none (texts without imported vectors are an error)"
                            if emb_kind == "precomputed" else f"empty: the server's ({emb_server.base_url})")
else:
    emb_kind = st.radio("Embedding backend", emb_kinds, format_func=lambda k: f"{k}: {EMBEDDER_KINDS[k]}",
                        index=emb_kinds.index(settings.embedder), key="set_embedder", disabled=True)
    st.text_input("Model id or local folder", settings.embedding_model, disabled=True, key="set_embedding")
    st.text_input("Embeddings endpoint (OpenAI-compatible)", settings.embedding_base_url or "", disabled=True,
                  key="set_embedding_url", placeholder="none set on this server")
    set_by_operator(ENV_EMBEDDER, ENV_EMBEDDING, ENV_EMBEDDING_BASE_URL, ENV_EMBEDDING_API_KEY)
    emb, emb_url = settings.embedding_model, settings.embedding_base_url or ""
candidate = settings.with_overrides(embedder=emb_kind, embedding_model=emb.strip(), embedding_base_url=emb_url.strip())
if emb_kind not in ("local", "static"):
    sent_to = emb_url.strip() or (emb_server.base_url if emb_kind == "openai" else "")
    if sent_to and embedding_key_for(sent_to, emb_server):
        st.markdown("API key: **set on the server** (sent to the server's embeddings endpoint only, never shown)")
    elif sent_to:
        st.markdown("API key: none is sent to this endpoint (the server's key goes to the server's endpoint only)")
c1, c2 = st.columns(2)
if c1.button("Check model", key="check_embedder"):
    try:
        with st.spinner("Loading…" if emb_kind == "local" else "Asking…"):
            verdict(*check_embedder(embedder_for(candidate, ws.cache)))
    except ValueError as exc:
        verdict(False, str(exc))
if operator and c2.button("Use this model", key="set_use_embedding"):
    overrides.update(embedder=emb_kind, embedding_model=emb.strip(), embedding_base_url=emb_url.strip())
    st.success("Switched; catalogs are re-embedded on first use (and cached).")
look_help = ("With the local backend, a catalog version with more tools than this without cached vectors is first "
             "searched and mapped with static embeddings (a model2vec model distilled once from the local model, "
             "about a hundred times faster), while the full model's index builds in the background and then "
             "replaces them. TOOLATLAS_FIRST_LOOK sets it; 0 turns it off.")
look_on = st.toggle("First look for large catalogs", value=settings.first_look > 0, key="set_first_look",
                    disabled=not operator, help=look_help)
look_at = st.number_input("…above this many tools without cached vectors", 1, 10_000_000,
                          settings.first_look or DEFAULT_THRESHOLD, step=1000, key="set_first_look_at",
                          disabled=not operator or not look_on)
wanted_look = int(look_at) if look_on else 0
if not operator:
    set_by_operator(ENV_FIRST_LOOK)
elif st.button("Use this first look", key="set_use_first_look", disabled=wanted_look == settings.first_look):
    overrides["first_look"] = wanted_look
    st.success("Switched: " + (f"a first look above {wanted_look:,} tools." if wanted_look else "no first look."))

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
rr_label = "Cross-encoder id or local folder (empty: none — none ships offline)"
if operator:
    rr = st.text_input(rr_label, settings.reranker_model or "", key="set_reranker")
else:
    st.text_input(rr_label, settings.reranker_model or "", disabled=True, key="set_reranker", placeholder="none")
    set_by_operator(ENV_RERANKER)
    rr = settings.reranker_model or ""
c1, c2 = st.columns(2)
if c1.button("Check reranker", key="check_reranker", disabled=not rr):
    from core.search.rerank import CrossEncoderReranker

    try:
        with st.spinner("Loading…"):
            scores = CrossEncoderReranker(rr).score("weather in Oslo", ["current weather for a city"])
        verdict(True, f"Loaded; test score {float(scores[0]):.3f}.")
    except ValueError as exc:
        verdict(False, str(exc))
if operator and c2.button("Use this reranker", key="set_use_reranker"):
    # An empty string, not None: with_overrides skips None, which left TOOLATLAS_RERANKER in force.
    overrides["reranker_model"] = rr.strip()
    st.success("Saved for this session." if rr.strip() else "Reranker switched off for this session.")

st.subheader("Database")
current_db = ws.store_url  # the store this session's workspace opened (from the same settings), password hidden
if operator:
    st.code(current_db, language=None)
    url = st.text_input("SQLAlchemy URL (SQLite file or PostgreSQL)", "", key="set_db_url",
                        placeholder="postgresql+psycopg://user@localhost/toolatlas")
else:
    st.text_input("SQLAlchemy URL (SQLite file or PostgreSQL)", current_db, disabled=True, key="set_db_url")
    set_by_operator(ENV_DB_URL)
    url = ""
c1, c2 = st.columns(2)
if c1.button("Check database", key="check_db"):
    verdict(*check_store(url or settings.db_url))
if operator and c2.button("Use this database", key="set_use_db", disabled=not url):
    overrides["db_url"] = url
    st.success("Switched for this session; the demo catalog is loaded into it if missing.")
