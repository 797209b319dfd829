"""Start the real app on 127.0.0.1 and drive it with Debian's headless Chromium."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.app_server import (  # noqa: F401 - re-exported
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    RUNNING,
    app_report,
    free_port,
    start_app,
    stop_app,
)

ARTIFACTS = REPO / "tests" / "artifacts"


def _need_browser():
    if not Path(CHROMIUM).exists():
        msg = "Debian chromium not installed (apt-get install -y chromium): browser test skipped"
        if os.environ.get("TOOLATLAS_REQUIRE_BROWSER"):
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    _need_browser()
    db = tmp_path_factory.mktemp("e2e") / "atlas.db"
    try:
        proc, url = start_app(f"sqlite:///{db}", tmp_path_factory.mktemp("e2e-log") / "streamlit.log")
    except RuntimeError as err:
        pytest.fail(str(err))
    yield url
    stop_app(proc)


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    # CI ran the whole suite 1.7x slower than a quiet machine here (920 s against 543 s): Playwright's 30 s
    # default per action leaves too little room on a busy machine for a slow step that is not a stuck one.
    ctx.set_default_timeout(60_000)
    pg = ctx.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    yield pg
    ctx.close()


def settle(page, timeout=180_000):
    """Wait until Streamlit has finished the script run the last action started: no running-status widget
    and no progress bar for a second and a half in a row (a single check can fall between two reruns)."""
    busy = page.locator('[data-testid="stStatusWidget"], [data-testid="stProgress"]')
    quiet_since = None
    deadline = time.monotonic() + timeout / 1000
    while time.monotonic() < deadline:
        if busy.count() == 0:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= 1.5:
                return
        else:
            quiet_since = None
        page.wait_for_timeout(250)
    raise AssertionError("the page kept running")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test's report carries what the page showed and each running app server's log,
    with every server thread's stack: enough to tell a stuck app from a slow one in a CI log."""
    rep = yield
    if rep.failed and call.when == "call":
        pg = item.funcargs.get("page")
        if pg is not None:
            try:
                rep.sections.append(("page text", pg.evaluate("() => document.body.innerText")[:6000]))
            except Exception as err:  # noqa: BLE001 - a closed page must not hide the real failure
                rep.sections.append(("page text", f"(unavailable: {err})"))
        for pid, (proc, log_path) in list(RUNNING.items()):
            rep.sections.append((f"app server {pid} log", app_report(proc, log_path)))
    return rep
