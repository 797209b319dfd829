"""The server's API key is only ever sent to the server's own configured endpoint.

``core.settings.api_key_for`` decides which key a request carries: the server's only when the visitor chose
the server's endpoint and the run config's base URL is that endpoint's, character for character; otherwise
the key the visitor typed, or none. ``OpenAIChatBackend`` never falls back to ``OPENAI_API_KEY`` (nor to
``OPENAI_BASE_URL``): with no key given, a request carries the placeholder, whatever the environment holds.
"""

from __future__ import annotations

import pytest

from core.context import LLMConfig, build_context
from core.llm.openai_backend import OpenAIChatBackend
from core.settings import (
    ENV_API_KEY,
    ENV_LLM_BASE_URL,
    ENV_LLM_MODEL,
    OPENAI_ENDPOINT,
    LLMChoice,
    ServerEndpoint,
    Settings,
    allowed_overrides,
    api_key_for,
    operator_mode,
)

SERVER_KEY = "sk-server-secret-unit-0123456789"
VISITOR_KEY = "sk-visitor-own-key-9876543210"
MSG = [{"role": "user", "content": "hi"}]




def _server(base_url: str = "https://llm.example.org/v1") -> ServerEndpoint:
    return ServerEndpoint(base_url=base_url, model="m", api_key=SERVER_KEY)


def _openai(base_url: str | None) -> LLMConfig:
    return LLMConfig(kind="openai", base_url=base_url, model="m")


# -- the resolution function --------------------------------------------------------------------------------

def test_server_key_for_the_servers_own_endpoint_only():
    server = _server()
    assert api_key_for(LLMChoice(server.llm_config(), server_endpoint=True), server) == SERVER_KEY
    assert api_key_for(LLMChoice(_openai("https://llm.example.org/v1"), server_endpoint=True), server) == SERVER_KEY


@pytest.mark.parametrize("other", [
    "https://llm.example.org/v1/",  # a trailing slash
    "http://llm.example.org/v1",  # another scheme
    "HTTPS://llm.example.org/v1",
    "https://LLM.example.org/v1",
    "https://llm.example.org/v1?x=1",
    "https://llm.example.org/v1#",
    "https://llm.example.org:443/v1",
    "https://llm.example.org/v2",
    "https://llm.example.org.attacker.test/v1",
    "https://attacker.test/v1",
    "https://user@llm.example.org/v1",
    " https://llm.example.org/v1",
    "",
    None,
])
def test_server_key_never_for_another_base_url(other):
    server = _server()
    # chosen as the server's endpoint but with another URL (a tampered session): no key at all
    assert api_key_for(LLMChoice(_openai(other), server_endpoint=True), server) is None
    # typed by a visitor: the visitor's own key, or none
    assert api_key_for(LLMChoice(_openai(other)), server) is None
    assert api_key_for(LLMChoice(_openai(other), api_key=VISITOR_KEY), server) == VISITOR_KEY


def test_visitor_typing_the_servers_url_gets_no_server_key():
    """Only the explicit choice of the server's endpoint unlocks its key; typing its URL does not."""
    server = _server()
    assert api_key_for(LLMChoice(_openai(server.base_url)), server) is None
    assert api_key_for(LLMChoice(_openai(server.base_url), api_key=VISITOR_KEY), server) == VISITOR_KEY


def test_visitor_key_for_the_visitors_endpoint():
    assert api_key_for(LLMChoice(_openai("http://127.0.0.1:9/v1"), api_key=VISITOR_KEY), _server()) == VISITOR_KEY
    assert api_key_for(LLMChoice(_openai("http://127.0.0.1:9/v1"), api_key=VISITOR_KEY), None) == VISITOR_KEY
    assert api_key_for(LLMChoice(_openai("http://127.0.0.1:9/v1"), api_key=""), _server()) is None


def test_no_key_for_offline_or_without_a_server():
    assert api_key_for(LLMChoice(LLMConfig(), api_key=VISITOR_KEY), _server()) is None
    assert api_key_for(LLMChoice(LLMConfig(), server_endpoint=True), _server()) is None
    assert api_key_for(LLMChoice(_openai(OPENAI_ENDPOINT), server_endpoint=True), None) is None
    keyless = ServerEndpoint(base_url="http://127.0.0.1:8000/v1", model="m")
    assert api_key_for(LLMChoice(keyless.llm_config(), server_endpoint=True), keyless) is None


# -- the operator's endpoint, from the environment ------------------------------------------------------------

def test_server_endpoint_from_env_keeps_its_key_out_of_sight():
    env = {ENV_API_KEY: SERVER_KEY, ENV_LLM_BASE_URL: "http://10.0.0.5:8000/v1", ENV_LLM_MODEL: "qwen"}
    server = ServerEndpoint.from_env(env)
    assert (server.base_url, server.model, server.has_key) == ("http://10.0.0.5:8000/v1", "qwen", True)
    for text in (repr(server), str(server), repr(server.llm_config()), str(server.llm_config().identity()),
                 repr(LLMChoice(server.llm_config(), server_endpoint=True, api_key=VISITOR_KEY))):
        assert SERVER_KEY not in text and VISITOR_KEY not in text
    assert server == ServerEndpoint("http://10.0.0.5:8000/v1", "qwen")  # the key takes no part in equality


def test_server_endpoint_defaults_and_sources():
    assert ServerEndpoint.from_env({}) is None
    assert ServerEndpoint.from_env({ENV_LLM_MODEL: "x"}) is None  # a model alone configures nothing
    only_key = ServerEndpoint.from_env({ENV_API_KEY: SERVER_KEY})
    assert (only_key.base_url, only_key.model) == (OPENAI_ENDPOINT, "gpt-4.1-mini")
    from_secrets = ServerEndpoint.from_env({}, secret_key=SERVER_KEY)
    assert from_secrets.api_key == SERVER_KEY and from_secrets.base_url == OPENAI_ENDPOINT
    assert ServerEndpoint.from_env({ENV_API_KEY: "env-key"}, secret_key="toml-key").api_key == "env-key"
    openai_var = ServerEndpoint.from_env({"OPENAI_BASE_URL": "http://proxy.internal/v1", ENV_API_KEY: "k"})
    assert openai_var.base_url == "http://proxy.internal/v1"  # where the openai package would send the key
    keyless = ServerEndpoint.from_env({ENV_LLM_BASE_URL: "http://127.0.0.1:8000/v1"})
    assert keyless.base_url == "http://127.0.0.1:8000/v1" and not keyless.has_key


def test_operator_mode_and_visitor_overrides():
    assert not operator_mode({}) and not operator_mode({"TOOLATLAS_OPERATOR": "0"})
    assert operator_mode({"TOOLATLAS_OPERATOR": "1"}) and operator_mode({"TOOLATLAS_OPERATOR": " true "})
    asked = {"db_url": "sqlite:////etc/evil.db", "embedding_model": "/home/x", "reranker_model": "/tmp/r",
             "text_with_parameters": False, "local_model": "/x.gguf"}
    assert allowed_overrides(asked, operator=False) == {"text_with_parameters": False}
    assert allowed_overrides(asked, operator=True) == asked


def test_settings_read_the_local_model_from_the_environment(monkeypatch):
    monkeypatch.setenv("TOOLATLAS_LLM_GGUF", "/models/tiny.gguf")
    assert Settings.from_env().local_model == "/models/tiny.gguf"
    monkeypatch.delenv("TOOLATLAS_LLM_GGUF")
    assert Settings.from_env().local_model is None


# -- no environment fallback in the backend, on the wire -------------------------------------------------------

def test_backend_without_a_key_sends_no_server_key(role_fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    OpenAIChatBackend(role_fake.url, "tiny-model", max_retries=0).chat(MSG, temperature=0)
    OpenAIChatBackend(role_fake.url, "tiny-model", None, max_retries=0).check()
    OpenAIChatBackend(role_fake.url, "tiny-model", "", max_retries=0).list_models()
    assert len(role_fake.seen) >= 3
    assert all(SERVER_KEY not in (s.get("auth") or "") for s in role_fake.seen)
    assert {s.get("auth") for s in role_fake.seen} == {"Bearer not-needed"}


def test_backend_ignores_openai_base_url_in_the_environment(monkeypatch):
    """With no base URL the client would read OPENAI_BASE_URL; the backend names OpenAI's endpoint itself."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/elsewhere")
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    client = OpenAIChatBackend(None, "m")._get_client()
    assert str(client.base_url).rstrip("/") == OPENAI_ENDPOINT
    assert client.api_key != SERVER_KEY


def test_runs_through_build_context_carry_the_resolved_key_only(role_fake, monkeypatch, db, hashing_embedder):
    """What a page does: resolve the key for the session's choice, pass it to build_context, run a role."""
    from core.models import Tool
    from core.workspace import Workspace

    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("k", (Tool(key="get_weather", name="get_weather", description="Weather for a city",
                                        parameters={"type": "object", "properties": {}}),))
    engine = ws.search_engine(report.version.id)
    options = {"timeout": 5, "max_retries": 0}
    attacker = LLMConfig(kind="openai", base_url=role_fake.url, model="tiny-model", options=options)
    elsewhere = _server("https://llm.example.org/v1")  # the server's endpoint is another one
    for choice in (LLMChoice(attacker), LLMChoice(attacker, server_endpoint=True)):
        ctx = build_context(ws.db, engine, report.version.id, choice.config,
                            api_key=api_key_for(choice, elsewhere))
        ctx["operators"].pseudo_tools("weather in Oslo", max_tools=1)
    assert role_fake.seen and all(SERVER_KEY not in (s.get("auth") or "") for s in role_fake.seen)

    role_fake.seen.clear()  # the control: when the fake *is* the server's endpoint, the server's key reaches it
    own = ServerEndpoint(base_url=role_fake.url, model="tiny-model", api_key=SERVER_KEY)
    choice = LLMChoice(LLMConfig(kind="openai", base_url=own.base_url, model=own.model, options=options),
                       server_endpoint=True)
    ctx = build_context(ws.db, engine, report.version.id, choice.config, api_key=api_key_for(choice, own))
    ctx["operators"].pseudo_tools("weather in Oslo", max_tools=1)
    assert role_fake.seen and all(s.get("auth") == f"Bearer {SERVER_KEY}" for s in role_fake.seen)
