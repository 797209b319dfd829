import sqlite3

from storage.db import make_engine, redact_url, resolve_db_url


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
