import sqlite3

from storage.db import json_text, make_engine, redact_url, resolve_db_url


def test_env_url_wins_over_default(monkeypatch, tmp_path):
    url = f"sqlite:///{tmp_path / 'x.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    assert resolve_db_url() == url
    assert resolve_db_url("sqlite:///other.db") == "sqlite:///other.db"


def test_default_is_a_file_in_the_user_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TOOLATLAS_DB_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert resolve_db_url() == f"sqlite:///{tmp_path / 'toolatlas' / 'toolatlas.db'}"


def test_sqlite_file_uses_wal(tmp_path):
    path = tmp_path / "w.db"
    engine = make_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        conn.exec_driver_sql("select 1")
    assert sqlite3.connect(path).execute("pragma journal_mode").fetchone()[0] == "wal"


def test_redact_hides_password():
    assert "secret" not in redact_url("postgresql://u:secret@localhost/db")


def test_json_text_keeps_characters_and_key_order_and_stringifies_what_json_cannot_hold():
    from datetime import date

    value = {"b": "é ✓", "a": date(2024, 1, 2), "t": (1, 2)}
    assert json_text(value) == '{"b": "é ✓", "a": "2024-01-02", "t": [1, 2]}'


def test_strict_json_text_writes_non_finite_numbers_as_null():
    value = {"x": [1.5, float("nan")], "y": (float("-inf"),), "z": "NaN"}
    assert json_text(value) == '{"x": [1.5, NaN], "y": [-Infinity], "z": "NaN"}'
    assert json_text(value, strict=True) == '{"x": [1.5, null], "y": [null], "z": "NaN"}'
    assert json_text({"x": 1.0}, strict=True) == '{"x": 1.0}'
