"""The server's secrets stay on the server, in a real browser against the real app.

The app runs with two server secrets: ``OPENAI_API_KEY`` in its environment and another in
``~/.streamlit/secrets.toml`` (HOME points at a temporary folder), and with the operator's own endpoint
(``TOOLATLAS_LLM_BASE_URL``) on a local recording server. A visitor points "Your own OpenAI-compatible
endpoint" at a second recording server they control, leaves the key empty, and runs strategies on the
Strategy playground: that server gets requests, and none carries either secret. The control: a visitor who
chooses the server's endpoint does get the server's key sent there (so the recording would catch a leak).
The Settings page's HTML never holds a secret, and the server's settings (store, GGUF file, embedding model,
reranker) are read-only for visitors and editable only with ``TOOLATLAS_OPERATOR=1``.
"""

from __future__ import annotations

import uuid

import pytest

from tests.core.llm.fake_openai import FakeOpenAI, role_answer
from tests.e2e.conftest import _need_browser, screenshot, settle, start_app, stop_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ENV_SECRET = f"sk-server-secret-env-{uuid.uuid4().hex}"
TOML_SECRET = f"sk-server-secret-toml-{uuid.uuid4().hex}"
SECRETS = (ENV_SECRET, TOML_SECRET)
DB_LABEL = "SQLAlchemy URL (SQLite file or PostgreSQL)"
SERVER_FIELDS = (DB_LABEL, "Model id or local folder", "Cross-encoder id or local folder (empty: none — none ships "
                 "offline)")


@pytest.fixture(scope="module")
def endpoints():
    own, attacker = FakeOpenAI().start(), FakeOpenAI().start()  # the operator's endpoint; one a visitor controls
    own.respond = attacker.respond = role_answer
    yield own, attacker
    own.close()
    attacker.close()


def _start(tmp_path_factory, endpoints, *, operator: bool, db=None):
    _need_browser()
    own, _ = endpoints
    home = tmp_path_factory.mktemp("home")
    (home / ".streamlit").mkdir()
    (home / ".streamlit" / "secrets.toml").write_text(f'OPENAI_API_KEY = "{TOML_SECRET}"\n')
    db = db or tmp_path_factory.mktemp("settings-security") / "atlas.db"
    env = {"HOME": str(home), "OPENAI_API_KEY": ENV_SECRET, "TOOLATLAS_LLM_BASE_URL": own.url,
           "TOOLATLAS_LLM_MODEL": "tiny-model", "TOOLATLAS_LLM_GGUF": str(home / "operators-model.gguf"),
           "TOOLATLAS_OPERATOR": "1" if operator else "", "OPENAI_BASE_URL": ""}
    try:
        proc, url = start_app(f"sqlite:///{db}", tmp_path_factory.mktemp("log") / "streamlit.log", env=env)
    except RuntimeError as err:
        pytest.fail(str(err))
    return proc, url, db


@pytest.fixture(scope="module")
def visitor_app(tmp_path_factory, endpoints):
    proc, url, db = _start(tmp_path_factory, endpoints, operator=False)
    yield url, db
    stop_app(proc)


@pytest.fixture(scope="module")
def operator_app(tmp_path_factory, endpoints, visitor_app):
    # the same store (already embedded by the visitor app's tests), so this server starts warm
    proc, url, _ = _start(tmp_path_factory, endpoints, operator=True, db=visitor_app[1])
    yield url
    stop_app(proc)


def _html_has_no_secret(page) -> str:
    html = page.content()
    for secret in SECRETS:
        assert secret not in html, "a server secret reached the browser"
        assert secret[len("sk-"):] not in html
    return html


def _open_settings(page, url: str) -> None:
    page.goto(f"{url}/settings", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Settings").first.wait_for(timeout=180_000)  # the first visit embeds the demo
    page.get_by_text("Choose the language model your strategies use").wait_for(timeout=60_000)
    settle(page)


def _backend(page, label: str) -> None:
    page.locator('[data-testid="stRadio"]').filter(has_text="Backend").get_by_text(label).first.click()
    settle(page)


def _fill(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    settle(page)


def _run_playground(page) -> None:
    """Through the sidebar (the same browser session keeps its Settings), then Run and wait for the outcome."""
    page.locator("[data-testid='stSidebarNav'] a").filter(has_text="Strategy playground").first.click()
    page.get_by_role("heading", name="Strategy playground", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    page.get_by_text("OpenAI-compatible endpoint tiny-model").first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("heading", name="Outcome").wait_for(timeout=300_000)
    settle(page, 300_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_visitor_endpoint_never_gets_a_server_secret(visitor_app, endpoints, page):
    url, _ = visitor_app
    own, attacker = endpoints
    _open_settings(page, url)
    _html_has_no_secret(page)

    _backend(page, "The server's endpoint")  # shown, with its key only as "set on the server"
    page.get_by_text("set on the server").first.wait_for(timeout=60_000)
    assert page.get_by_label("Base URL", exact=True).input_value() == own.url
    assert not page.get_by_label("Base URL", exact=True).is_editable()
    _html_has_no_secret(page)

    _backend(page, "Your own OpenAI-compatible endpoint")
    _fill(page, "Base URL", attacker.url)
    _fill(page, "Model", "tiny-model")
    assert page.get_by_label("API key (kept in this session only)").input_value() == ""  # nothing pre-filled
    page.get_by_role("button", name="Use this endpoint").click()
    page.get_by_text("Strategies now call tiny-model at the endpoint you gave").wait_for(timeout=60_000)
    settle(page)
    _html_has_no_secret(page)

    _run_playground(page)
    screenshot(page, "settings_security_visitor_run")
    posts = [s for s in attacker.seen if "body" in s]
    assert posts, "the strategies never called the visitor's endpoint: the test would prove nothing"
    for seen in attacker.seen:
        auth = seen.get("auth") or ""
        assert all(secret not in auth and secret[len("sk-"):] not in auth for secret in SECRETS), auth
    assert {s.get("auth") for s in attacker.seen} == {"Bearer not-needed"}
    assert own.seen == []  # the server's endpoint was shown, never called


def test_servers_endpoint_gets_the_servers_key_as_the_control(visitor_app, endpoints, page):
    url, _ = visitor_app
    own, attacker = endpoints
    before = len(attacker.seen)
    _open_settings(page, url)
    _backend(page, "The server's endpoint")
    page.get_by_role("button", name="Use the server's endpoint").click()
    page.get_by_text("at the server's endpoint").first.wait_for(timeout=60_000)
    settle(page)
    _html_has_no_secret(page)
    _run_playground(page)
    assert own.seen, "the server's endpoint was never called"
    assert {s.get("auth") for s in own.seen} <= {f"Bearer {secret}" for secret in SECRETS}
    assert len(attacker.seen) == before  # nothing went to the visitor's endpoint meanwhile


def _editable(page, label: str) -> bool:
    box = page.get_by_label(label, exact=True)
    box.wait_for(timeout=60_000)
    return box.is_editable()


def test_server_settings_are_read_only_for_visitors(visitor_app, page):
    url, _ = visitor_app
    _open_settings(page, url)
    for label in SERVER_FIELDS:
        assert not _editable(page, label), label
    assert page.get_by_role("button", name="Use this database").count() == 0
    assert page.get_by_role("button", name="Use this model").count() == 0
    _backend(page, "Local GGUF model")
    assert not _editable(page, "GGUF model file")
    assert page.get_by_label("GGUF model file", exact=True).input_value().endswith("operators-model.gguf")
    assert page.get_by_text("Set by the operator").count() >= 3
    _html_has_no_secret(page)


def test_server_settings_are_editable_in_operator_mode(operator_app, page):
    _open_settings(page, operator_app)
    page.get_by_text("Operator mode").first.wait_for(timeout=60_000)
    for label in SERVER_FIELDS:
        assert _editable(page, label), label
    assert page.get_by_role("button", name="Use this database").count() == 1
    _backend(page, "Local GGUF model")
    assert _editable(page, "GGUF model file")
    _html_has_no_secret(page)
