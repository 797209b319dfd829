"""Cancel a long run from the page: the run stops, is stored as "stopped" with what finished, and the next
Run resumes it (same run, nothing done twice). Its own app and store, so other browser tests are unaffected."""

import re
import time

import pytest
from sqlalchemy import create_engine, text

from tests.e2e.conftest import _need_browser, screenshot, start_app, stop_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _runs(db_file):
    engine = create_engine(f"sqlite:///{db_file}")
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(
                "select r.id, r.status, count(i.id) from run r left join run_item i on i.run_id = r.id "
                "where r.kind = 'evolution' group by r.id order by r.id")).all()]
    finally:
        engine.dispose()


def test_cancel_stops_a_timeline_run_and_run_resumes_it(tmp_path, browser):
    _need_browser()
    db_file = tmp_path / "atlas.db"
    proc, url = start_app(f"sqlite:///{db_file}", tmp_path / "streamlit.log")
    try:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = ctx.new_page()
        page.goto(f"{url}/timeline", wait_until="domcontentloaded")
        run = page.get_by_role("button", name="Run timeline")
        run.wait_for(timeout=180_000)
        run.click()
        page.get_by_text(re.compile(r"seed 0: step 2,")).first.wait_for(timeout=180_000)  # two steps are stored
        page.get_by_role("button", name="Cancel").click()
        page.get_by_text("The timeline run was cancelled").wait_for(timeout=60_000)
        # Streamlit starts the new script run at once; the old one stops at its next progress update
        deadline = time.monotonic() + 90
        while (stopped := _runs(db_file)) and stopped[0][1] == "running" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert len(stopped) == 1 and stopped[0][1] == "stopped" and stopped[0][2] > 0, stopped
        screenshot(page, "timeline_cancelled")

        page.get_by_role("button", name="Run timeline").click()
        deadline = time.monotonic() + 400
        while (finished := _runs(db_file))[0][1] != "done" and time.monotonic() < deadline:
            time.sleep(1)
        page.get_by_text("Catalog map by step").wait_for(timeout=120_000)
        assert [(r[0], r[1]) for r in finished] == [(stopped[0][0], "done")]  # the same run, resumed
        assert finished[0][2] > stopped[0][2]
        assert page.get_by_text("Traceback").count() == 0
        ctx.close()
    finally:
        stop_app(proc)
