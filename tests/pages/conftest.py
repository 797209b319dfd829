"""Shared by the page tests: the app's store, a fresh SQLite file per test, given to the app by environment."""

import time

import pytest


@pytest.fixture
def db_url(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    return url


def settle(at, timeout: float = 300):
    """Rerun the page until it follows no background job. A job's progress bar lives in a fragment that a
    browser reruns on a timer (``components.jobs.job_progress``); AppTest has no timer, so the test reruns the
    page itself, as the fragment would once the job is over. Returns ``at``."""
    deadline = time.monotonic() + timeout
    while at.get("progress"):
        assert not at.exception, at.exception
        assert time.monotonic() < deadline, "a background job the page follows never ended"
        time.sleep(0.2)
        at.run()
    return at
