"""Shared by the page tests: the app's store, a fresh SQLite file per test, given to the app by environment."""

import pytest


@pytest.fixture
def db_url(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    return url
