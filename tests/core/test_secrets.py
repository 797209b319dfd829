"""API keys never reach the database, the ledger, logs or error messages.

An eval (and a merge) runs with the openai backend against the local fake server, once with the key from
``OPENAI_API_KEY`` passed as ``api_key`` (as the CLI does; the backend never reads the environment itself)
and once with the key handed over the way the Settings page does it (session state ``llm_api_key`` passed as
``api_key``); then every column of every table, the raw SQLite file, every log
record and the messages of an authentication failure (a server that echoes the rejected key) are searched.
"""

from __future__ import annotations

import logging
import traceback
import uuid
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from core.context import LLMConfig
from core.models import Query, Tool
from core.workspace import Workspace
from storage.ledger import list_calls
from tests.core.llm.fake_openai import FakeOpenAI

ENV_KEY = f"sk-test-SECRET-env-{uuid.uuid4().hex}"
SESSION_KEY = f"sk-test-SECRET-session-{uuid.uuid4().hex}"
KEYS = (ENV_KEY, SESSION_KEY)


def _tool(key: str, desc: str, *params: str) -> Tool:
    props = {p: {"type": "string", "description": p} for p in params}
    return Tool(key=key, name=key, description=desc,
                parameters={"type": "object", "properties": props, "required": list(params[:1])})


TOOLS = (
    _tool("get_weather", "Current weather conditions for a city", "city"),
    _tool("city_weather_now", "Current weather conditions in a city right now", "city"),
    _tool("convert_currency", "Convert an amount of money from one currency to another", "amount", "to"),
    _tool("currency_converter", "Convert money amount between currencies", "amount", "target"),
    _tool("send_email", "Send an email message to a recipient", "to", "subject"),
    _tool("translate_text", "Translate text into another language", "text", "target"),
)
QUERIES = (
    Query("q1", "what is the weather in Paris right now", ("get_weather", "city_weather_now"), "test"),
    Query("q2", "convert 100 dollars to euros", ("convert_currency", "currency_converter"), "test"),
    Query("q3", "translate hello into German", ("translate_text",), "test"),
)




@pytest.fixture
def ws(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("secrets", TOOLS, queries=QUERIES, query_set="gold")
    return ws, report


@pytest.fixture
def all_logs(caplog):
    """Every record of every logger (openai, httpx, ours) at DEBUG."""
    caplog.set_level(logging.DEBUG)
    return caplog


def _llm(server: FakeOpenAI) -> LLMConfig:
    return LLMConfig(kind="openai", base_url=server.url, model="tiny-model",
                     options={"timeout": 5, "max_retries": 0, "backoff": 0.0, "concurrency": 2})


def _dump_database(db) -> str:
    """Every value of every column of every table, as text."""
    parts = []
    with db.connect() as conn:
        for table in inspect(conn).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):  # noqa: S608 - names from the schema
                for value in row:
                    if isinstance(value, bytes | bytearray | memoryview):
                        value = bytes(value).decode("latin-1")
                    parts.append(f"{table}: {value}")
    return "\n".join(parts)


def _raw_files(db) -> str:
    """The SQLite file and its journals, byte for byte (free pages included)."""
    if db.url.get_backend_name() != "sqlite" or not db.url.database:
        return ""
    base = Path(db.url.database)
    return "".join(p.read_bytes().decode("latin-1") for p in base.parent.glob(base.name + "*") if p.is_file())


def _assert_nowhere(ws: Workspace, logs, *extra: str) -> None:
    dump = _dump_database(ws.db)
    assert dump, "the database dump is empty"
    raw = _raw_files(ws.db)
    log_text = logs.text + "\n".join(str(r.__dict__) for r in logs.records)
    for key in KEYS:
        for where, blob in (("database", dump), ("database file", raw), ("logs", log_text),
                            *(("message", e) for e in extra)):
            assert key not in blob, f"API key found in the {where}"
            assert key[len("sk-test-"):] not in blob, f"API key (without prefix) found in the {where}"


def _used(server: FakeOpenAI, key: str) -> bool:
    return any(s.get("auth") == f"Bearer {key}" for s in server.seen)


def test_env_key_reaches_the_server_and_nothing_else(ws, role_fake, monkeypatch, all_logs):
    from core.evaluation import evaluate

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    ws, report = ws
    out = evaluate(ws, report.version.id, report.query_set.id, QUERIES, strategy="memetic",
                   params={"population": 3, "generations": 1}, k=3, llm=_llm(role_fake), seed=1, api_key=ENV_KEY)
    assert _used(role_fake, ENV_KEY), "the env key was not sent: the test would prove nothing"
    calls = list_calls(ws.db, run_id=out.run_id, limit=10_000)
    assert calls, "no ledger rows: the openai backend was not used"
    assert all(ENV_KEY not in (c.prompt + (c.response or "") + (c.error or "")) for c in calls)
    _assert_nowhere(ws, all_logs, str(out.to_json()))


def test_session_key_as_the_settings_page_passes_it(ws, role_fake, monkeypatch, all_logs):
    """The Settings page keeps the key in ``st.session_state['llm_api_key']`` and pages pass it as
    ``api_key``; LLMConfig (stored in run configs) never holds it."""
    from core.evaluation import evaluate
    from core.merging.pipeline import MergeConfig
    from core.merging.service import merge_version

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ws, report = ws
    llm = _llm(role_fake)
    assert SESSION_KEY not in repr(llm) and SESSION_KEY not in str(llm.identity())
    out = evaluate(ws, report.version.id, report.query_set.id, QUERIES, strategy="scattershot",
                   params={"fan_out": 2}, k=3, llm=llm, seed=2, api_key=SESSION_KEY)
    run = merge_version(ws, report.version.id, MergeConfig(threshold=0.5), llm, api_key=SESSION_KEY)
    assert _used(role_fake, SESSION_KEY)
    assert list_calls(ws.db, run_id=out.run_id, limit=10) and list_calls(ws.db, run_id=run.run_id, limit=10)
    _assert_nowhere(ws, all_logs, str(out.to_json()), repr(run.result))


def test_auth_failure_that_echoes_the_key_is_scrubbed(ws, role_fake, monkeypatch, all_logs):
    """A server answering 401 with the rejected key in its message (as real endpoints do, partly masked)."""
    from core.evaluation import evaluate
    from core.llm.base import LLMError
    from core.llm.openai_backend import OpenAIChatBackend

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    role_fake.respond = None
    role_fake.default = ("status", 401, {}, f"Incorrect API key provided: {ENV_KEY}.")

    backend = OpenAIChatBackend(role_fake.url, "tiny-model", ENV_KEY, timeout=5, max_retries=0)
    with pytest.raises(LLMError) as caught:
        backend.chat([{"role": "user", "content": "hi"}], temperature=0.0)
    messages = [str(caught.value), repr(caught.value), "".join(traceback.format_exception(caught.value)),
                repr(backend)]
    assert "401" in messages[0]
    assert ENV_KEY not in "".join(messages)

    role_fake.default = ("status", 401, {}, f"Incorrect API key provided: {SESSION_KEY}.")
    session_backend = OpenAIChatBackend(role_fake.url, "tiny-model", SESSION_KEY, timeout=5, max_retries=0)
    with pytest.raises(LLMError) as caught_session:
        session_backend.chat([{"role": "user", "content": "hi"}], temperature=0.0)
    messages += [str(caught_session.value), "".join(traceback.format_exception(caught_session.value))]
    assert SESSION_KEY not in "".join(messages[-2:])

    # the Settings page's "Check endpoint" verdict (GET /models answers 200 here, so force the chat path)
    ok, verdict = session_backend.check()
    messages.append(verdict)

    role_fake.default = ("status", 401, {}, f"Incorrect API key provided: {ENV_KEY}.")
    ws, report = ws
    out = evaluate(ws, report.version.id, report.query_set.id, QUERIES, strategy="memetic",
                   params={"population": 2, "generations": 1}, k=3, llm=_llm(role_fake), seed=3, api_key=ENV_KEY)
    calls = list_calls(ws.db, run_id=out.run_id, limit=10_000)
    assert calls and all(c.error for c in calls), "every call should have failed with 401"
    assert any("401" in c.error for c in calls)
    assert _used(role_fake, ENV_KEY)
    _assert_nowhere(ws, all_logs, *messages, str(out.to_json()))


def test_settings_page_keeps_the_key_in_the_session_only(role_fake, tmp_path, monkeypatch):
    """Drive the real Settings page: the key typed there lands in session state only, and the
    'Check endpoint' verdict of a server echoing the key does not show it."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("TOOLATLAS_DB_URL", f"sqlite:///{tmp_path / 'app.db'}")
    role_fake.respond = None
    role_fake.default = ("status", 401, {}, f"Incorrect API key provided: {SESSION_KEY}")
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "settings.py"), default_timeout=180)
    at.session_state["_via_router"] = True
    at.run()
    assert not at.exception, at.exception
    at.radio(key="set_llm_kind").set_value("openai").run()
    at.text_input(key="set_base_url").input(role_fake.url)
    at.text_input(key="set_model").input("unlisted-model")  # not offered: check() falls back to a chat
    at.text_input(key="set_api_key").input(SESSION_KEY).run()
    at.button(key="set_check_llm").click().run()
    assert not at.exception, at.exception
    shown = [e.value for e in (*at.error, *at.success, *at.markdown, *at.caption, *at.code)]
    assert any("401" in s or "rejected" in s for s in shown), shown
    assert all(SESSION_KEY not in str(s) for s in shown)
    at.button(key="set_use_llm").click().run()
    assert not at.exception, at.exception
    assert at.session_state["llm_api_key"] == SESSION_KEY
    config = at.session_state["llm_config"]
    assert SESSION_KEY not in repr(config) and SESSION_KEY not in str(config.identity())
    assert _used(role_fake, SESSION_KEY)
    # the store the page opened holds no trace of it
    from storage.db import make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    try:
        assert SESSION_KEY not in _dump_database(engine)
    finally:
        engine.dispose()
