"""Settings page: what the app is connected to, and whether each part is reachable."""

import streamlit as st

from components.session import current_settings, workspace
from components.text import md_escape
from storage.db import redact_url, resolve_db_url

st.title("Settings")
settings = current_settings()
ws = workspace()

st.subheader("Database")
st.code(redact_url(resolve_db_url(settings.db_url)), language=None)
st.caption("Set `TOOLATLAS_DB_URL` (any SQLAlchemy URL, PostgreSQL included) before starting the app to change it.")
try:
    with ws.db.connect() as conn:
        conn.exec_driver_sql("SELECT 1")
    st.success("Reachable.")
except Exception as exc:  # noqa: BLE001 - shown to the user as the reachability verdict
    st.error(f"Not reachable: {md_escape(str(exc), 300)}")

st.subheader("Embedding model")
st.code(settings.embedding_model, language=None)
if st.button("Check the embedding model", key="check_embedder"):
    try:
        vec = ws.embedder.encode(["reachability check"])
        st.success(f"Loaded: {vec.shape[1]}-dimensional vectors.")
    except Exception as exc:  # noqa: BLE001
        st.error(f"Cannot load: {md_escape(str(exc), 300)}")
st.caption("Set `TOOLATLAS_EMBEDDING_MODEL` to a local folder (or a model name when you have network).")

st.subheader("Reranker")
if settings.reranker_model:
    st.code(settings.reranker_model, language=None)
else:
    st.write("None configured. No cross-encoder ships offline; set `TOOLATLAS_RERANKER` to a local cross-encoder folder.")

st.subheader("LLM backend")
st.write("Offline operators (deterministic heuristics, no network) arrive with the strategies issue, "
         "together with OpenAI-compatible endpoints and local models.")
