"""Open a self-contained HTML report the way a stakeholder would: from disk, in headless Chromium, with every
request that is not a local file aborted. Shared by the check report's and the run reports' tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.app_server import CHROMIUM, CHROMIUM_ARGS


@contextmanager
def offline_page() -> Iterator[tuple[object, list[str], list[str]]]:
    """A page that may load only ``file://`` URLs, with the requests it blocked and the console or page errors
    it saw (both lists fill as it is used). Skips without Chromium (fails when TOOLATLAS_REQUIRE_BROWSER)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("TOOLATLAS_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed")
        pytest.skip("Debian chromium not installed (apt-get install -y chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()

            def route(r):
                if r.request.url.startswith("file://"):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort()

            page.route("**/*", route)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, blocked, errors
        finally:
            browser.close()


def figures_drawn(page) -> int:
    """How many plotly figures the page holds, once each has drawn its svg."""
    figures = page.locator("div.plotly-graph-div")
    for i in range(figures.count()):
        figures.nth(i).locator("svg.main-svg").first.wait_for(state="attached", timeout=60_000)
    return figures.count()
