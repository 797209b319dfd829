"""The Settings page splits the visitor's settings from the operator's.

A visitor sees the server's settings (store, local model file, embedding model, reranker, the server's LLM
endpoint) read-only and cannot change them, not even through session state; with ``TOOLATLAS_OPERATOR=1`` they
are editable. No secret is ever part of what the page sends to the browser: not the server's key (from the
environment or secrets.toml), and not a key the visitor typed once it is used. An endpoint the visitor types
gets the visitor's key or none; the server's key goes to the server's endpoint only.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.core.llm.fake_openai import FakeOpenAI, role_answer

SETTINGS = str(Path(__file__).resolve().parents[2] / "pages" / "settings.py")
ENV_SECRET = f"sk-server-secret-env-{uuid.uuid4().hex}"
TOML_SECRET = f"sk-server-secret-toml-{uuid.uuid4().hex}"
VISITOR_KEY = f"sk-visitor-typed-{uuid.uuid4().hex}"
SERVER_FIELDS = ("set_db_url", "set_embedding", "set_reranker")
SERVER_BUTTONS = ("set_use_db", "set_use_embedding", "set_use_reranker")


@pytest.fixture
def fakes():
    servers = [FakeOpenAI().start() for _ in range(2)]  # the operator's endpoint, and one a visitor controls
    for s in servers:
        s.respond = role_answer
    yield servers
    for s in servers:
        s.close()


def _page(tmp_path, monkeypatch, *, operator: bool, server_url: str | None = None) -> AppTest:
    monkeypatch.setenv("TOOLATLAS_DB_URL", f"sqlite:///{tmp_path / 'app.db'}")
    monkeypatch.setenv("OPENAI_API_KEY", ENV_SECRET)
    monkeypatch.setenv("TOOLATLAS_RERANKER", str(tmp_path / "operators-cross-encoder"))  # loaded only when used
    monkeypatch.setenv("TOOLATLAS_LLM_GGUF", str(tmp_path / "operators-model.gguf"))
    for var in ("OPENAI_BASE_URL", "TOOLATLAS_LLM_MODEL", "TOOLATLAS_OPERATOR", "TOOLATLAS_LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    if operator:
        monkeypatch.setenv("TOOLATLAS_OPERATOR", "1")
    if server_url:
        monkeypatch.setenv("TOOLATLAS_LLM_BASE_URL", server_url)
        monkeypatch.setenv("TOOLATLAS_LLM_MODEL", "tiny-model")
    at = AppTest.from_file(SETTINGS, default_timeout=180)
    at.secrets["OPENAI_API_KEY"] = TOML_SECRET
    at.session_state["_via_router"] = True
    at.run()
    assert not at.exception, at.exception
    return at


def _sent(node) -> str:
    """Every element the page sent, as its protobuf text (what reaches the browser)."""
    parts = []
    proto = getattr(node, "proto", None)
    if proto is not None:
        parts.append(str(proto))
    children = getattr(node, "children", None) or {}
    for child in children.values():
        parts.append(_sent(child))
    return "\n".join(parts)


def _no_secret(at: AppTest, *also: str) -> str:
    sent = _sent(at._tree)
    assert sent, "nothing rendered"
    for secret in (ENV_SECRET, TOML_SECRET, *also):
        assert secret not in sent
        assert secret[len("sk-"):] not in sent
    return sent


def _disabled(at: AppTest, key: str) -> bool:
    return bool(at.text_input(key=key).proto.disabled)


def test_visitor_sees_server_settings_read_only(tmp_path, monkeypatch):
    at = _page(tmp_path, monkeypatch, operator=False)
    for key in SERVER_FIELDS:
        assert _disabled(at, key), key
    assert at.text_input(key="set_reranker").value.endswith("operators-cross-encoder")
    assert "app.db" in at.text_input(key="set_db_url").value
    assert not ({b.key for b in at.button} & set(SERVER_BUTTONS))
    assert any("Set by the operator" in c.value and "TOOLATLAS_DB_URL" in c.value for c in at.caption)
    at.radio(key="set_llm_kind").set_value("local").run()
    assert _disabled(at, "set_gguf") and at.text_input(key="set_gguf").value.endswith("operators-model.gguf")
    # the tool text stays the visitor's own choice
    at.radio(key="set_tool_text").set_value(False).run()
    at.button(key="set_use_tool_text").click().run()
    assert not at.exception, at.exception
    assert at.session_state["settings_overrides"] == {"text_with_parameters": False}
    sent = _no_secret(at)
    assert "operators-model.gguf" in sent  # the dump holds widget values: a pre-filled key would be caught


def test_visitor_session_overrides_of_server_settings_are_ignored(tmp_path, monkeypatch):
    """Even a session holding overrides of the server's settings (a tampered or stale session) does not move
    the store or load a model from a path: only the visitor's own settings apply."""
    at = _page(tmp_path, monkeypatch, operator=False)
    evil = tmp_path / "elsewhere" / "evil.db"
    evil.parent.mkdir()
    at.session_state["settings_overrides"] = {"db_url": f"sqlite:///{evil}", "embedding_model": str(tmp_path),
                                              "reranker_model": ""}
    at.run()
    assert not at.exception, at.exception
    assert not evil.exists()
    assert "evil.db" not in at.text_input(key="set_db_url").value
    assert at.text_input(key="set_reranker").value.endswith("operators-cross-encoder")  # not switched off
    at.button(key="check_db").click().run()
    assert any("Reachable" in s.value for s in at.success) and not evil.exists()


def test_operator_mode_unlocks_server_settings(tmp_path, monkeypatch):
    at = _page(tmp_path, monkeypatch, operator=True)
    for key in SERVER_FIELDS:
        assert not _disabled(at, key), key
    assert set(SERVER_BUTTONS) <= {b.key for b in at.button}
    assert any("TOOLATLAS_OPERATOR=1" in w.value for w in at.warning)
    at.radio(key="set_llm_kind").set_value("local").run()
    assert not _disabled(at, "set_gguf")
    other = tmp_path / "other.db"
    at.text_input(key="set_db_url").input(f"sqlite:///{other}").run()
    at.button(key="set_use_db").click().run()
    assert not at.exception, at.exception
    assert at.session_state["settings_overrides"]["db_url"] == f"sqlite:///{other}"
    _no_secret(at)


def test_server_endpoint_gets_the_server_key_and_a_typed_endpoint_never(tmp_path, monkeypatch, fakes):
    own, attacker = fakes
    at = _page(tmp_path, monkeypatch, operator=False, server_url=own.url)
    at.radio(key="set_llm_kind").set_value("server").run()
    assert _disabled(at, "set_server_base_url") and at.text_input(key="set_server_base_url").value == own.url
    assert any("set on the server" in m.value for m in at.markdown)
    at.button(key="set_check_server").click().run()
    assert not at.exception, at.exception
    assert any("reachable" in s.value for s in at.success)
    assert own.seen and all(s["auth"] == f"Bearer {ENV_SECRET}" for s in own.seen)  # the control
    at.button(key="set_use_server").click().run()
    assert at.session_state["llm_endpoint"] == "server" and at.session_state["llm_api_key"] is None
    assert at.session_state["llm_config"].base_url == own.url
    _no_secret(at)

    # the visitor's own endpoint, pointed at a host they control, key left empty
    at.radio(key="set_llm_kind").set_value("openai").run()
    at.text_input(key="set_base_url").input(attacker.url)
    at.text_input(key="set_model").input("unlisted-model").run()  # not offered: the check sends a chat too
    at.button(key="set_check_llm").click().run()
    at.button(key="set_use_llm").click().run()
    assert not at.exception, at.exception
    assert at.session_state["llm_endpoint"] == "visitor" and at.session_state["llm_api_key"] is None
    assert at.session_state["llm_config"].base_url == attacker.url
    assert any(s.get("body") for s in attacker.seen), "the check never reached the visitor's endpoint"
    for s in attacker.seen:
        assert ENV_SECRET not in (s["auth"] or "") and TOML_SECRET not in (s["auth"] or "")
    _no_secret(at)


def test_typed_key_is_used_then_cleared_and_never_sent_back(tmp_path, monkeypatch, fakes):
    _, mine = fakes
    at = _page(tmp_path, monkeypatch, operator=False)
    at.radio(key="set_llm_kind").set_value("openai").run()
    assert at.text_input(key="set_api_key").value == ""  # no default: nothing pre-filled
    at.text_input(key="set_base_url").input(mine.url)
    at.text_input(key="set_model").input("tiny-model")
    at.text_input(key="set_api_key").input(VISITOR_KEY).run()
    at.button(key="set_use_llm").click().run()
    assert not at.exception, at.exception
    assert at.session_state["llm_api_key"] == VISITOR_KEY
    assert at.text_input(key="set_api_key").value == ""
    assert any("Key set for this session" in c.value for c in at.caption)
    _no_secret(at, VISITOR_KEY)
    at.button(key="set_check_llm").click().run()  # the field is empty: the session's key is used
    assert mine.seen and all(s["auth"] == f"Bearer {VISITOR_KEY}" for s in mine.seen)
    at.button(key="set_forget_key").click().run()
    assert at.session_state["llm_api_key"] is None
    assert not any("Key set for this session" in c.value for c in at.caption)


EMBED_SECRET = f"sk-embedding-secret-{uuid.uuid4().hex}"


def _embedding_env(monkeypatch, url: str | None) -> None:
    for var in ("TOOLATLAS_EMBEDDER", "TOOLATLAS_EMBEDDING_MODEL", "TOOLATLAS_EMBEDDING_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_API_KEY", EMBED_SECRET)
    if url:
        monkeypatch.setenv("TOOLATLAS_EMBEDDING_BASE_URL", url)


def test_operator_chooses_the_embedding_backend_and_its_key_never_leaves_the_server(tmp_path, monkeypatch, fakes):
    own, attacker = fakes
    _embedding_env(monkeypatch, own.url)
    at = _page(tmp_path, monkeypatch, operator=True)
    assert at.radio(key="set_embedder").value == "local" and not at.radio(key="set_embedder").proto.disabled
    at.radio(key="set_embedder").set_value("openai").run()
    at.text_input(key="set_embedding").input("tiny-embed").run()
    assert any("set on the server" in m.value for m in at.markdown)
    at.button(key="check_embedder").click().run()
    assert not at.exception, at.exception
    assert any("tiny-embed answers with 8-dimensional vectors" in s.value.replace("\\", "") for s in at.success)
    assert own.seen and {s["auth"] for s in own.seen} == {f"Bearer {EMBED_SECRET}"}
    at.button(key="set_use_embedding").click().run()
    assert not at.exception, at.exception
    chosen = at.session_state["settings_overrides"]
    assert (chosen["embedder"], chosen["embedding_model"], chosen["embedding_base_url"]) == \
        ("openai", "tiny-embed", own.url)
    _no_secret(at, EMBED_SECRET)

    # an endpoint typed on the page, even by the operator, is not the server's: it gets no key
    at.text_input(key="set_embedding_url").input(attacker.url).run()
    assert any("none is sent to this endpoint" in m.value for m in at.markdown)
    at.button(key="check_embedder").click().run()
    assert not at.exception, at.exception
    assert attacker.seen and all(EMBED_SECRET not in (s["auth"] or "") and ENV_SECRET not in (s["auth"] or "")
                                 for s in attacker.seen)
    _no_secret(at, EMBED_SECRET)
    raw = b"".join(f.read_bytes() for f in tmp_path.glob("app.db*"))
    assert raw and EMBED_SECRET.encode() not in raw and ENV_SECRET.encode() not in raw


def test_visitor_cannot_move_the_embeddings_to_their_endpoint(tmp_path, monkeypatch, fakes):
    _, attacker = fakes
    _embedding_env(monkeypatch, None)
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "precomputed")
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_MODEL", "imported-vectors")
    at = _page(tmp_path, monkeypatch, operator=False)
    assert at.radio(key="set_embedder").proto.disabled and _disabled(at, "set_embedding_url")
    assert at.radio(key="set_embedder").value == "precomputed"
    assert any("TOOLATLAS_EMBEDDER" in c.value and "Set by the operator" in c.value for c in at.caption)
    at.session_state["settings_overrides"] = {"embedder": "openai", "embedding_base_url": attacker.url}
    at.run()
    at.button(key="check_embedder").click().run()
    assert not at.exception, at.exception
    assert not attacker.seen  # the tampered session's endpoint is never called
    assert any("no vectors imported for model id 'imported-vectors'" in e.value.replace("\\", "") for e in at.error)
    _no_secret(at, EMBED_SECRET)
