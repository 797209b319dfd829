"""Schema creation and in-place upgrades (SQLite, and PostgreSQL through TOOLATLAS_TEST_DB_URL)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from storage.db import make_engine
from storage.schema import SCHEMA_VERSION, add_missing_columns, schema_version

pytestmark = pytest.mark.pg


def test_fresh_store_gets_every_table_and_the_current_version(test_db_url):
    engine = make_engine(test_db_url)
    try:
        names = set(inspect(engine).get_table_names())
        assert set(SQLModel.metadata.tables) <= names
        assert {"catalog", "tool", "run", "run_item", "llm_call", "merge_decision", "schema_info"} <= names
        assert schema_version(engine) == SCHEMA_VERSION
        # Opening again is a no-op that keeps the version.
        make_engine(test_db_url).dispose()
        assert schema_version(engine) == SCHEMA_VERSION
    finally:
        engine.dispose()


def test_old_store_gets_missing_columns_and_keeps_its_rows(test_db_url):
    # An "old" store: catalog without `description` and run_item without `seconds`, no schema_info.
    raw = create_engine(test_db_url)
    with raw.begin() as conn:
        conn.execute(text(
            "CREATE TABLE catalog (id INTEGER PRIMARY KEY, name VARCHAR(200) NOT NULL UNIQUE,"
            " source VARCHAR(500) NOT NULL, created_at TIMESTAMP NOT NULL)"))
        conn.execute(text(
            "INSERT INTO catalog (id, name, source, created_at)"
            " VALUES (1, 'old', 'file.json', '2024-01-02 03:04:05')"))
    raw.dispose()

    engine = make_engine(test_db_url)
    try:
        columns = {c["name"]: c for c in inspect(engine).get_columns("catalog")}
        assert "description" in columns
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, name, source, description FROM catalog")).all()
        # The model's default ("") fills old rows, so reading them through the model works.
        assert [tuple(r) for r in rows] == [(1, "old", "file.json", "")]
        assert schema_version(engine) == SCHEMA_VERSION

        from sqlmodel import Session

        from storage.tables import Catalog

        with Session(engine) as session:
            catalog = session.get(Catalog, 1)
            assert (catalog.name, catalog.description) == ("old", "")
    finally:
        engine.dispose()


def test_column_without_a_default_is_added_nullable(test_db_url):
    engine = make_engine(test_db_url)
    try:
        serial = "SERIAL" if engine.dialect.name == "postgresql" else "INTEGER"
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE run_item"))
            conn.execute(text(
                f"CREATE TABLE run_item (id {serial} PRIMARY KEY, run_id INTEGER NOT NULL,"
                " item_key VARCHAR(500) NOT NULL, result_json TEXT NOT NULL, seconds FLOAT NOT NULL,"
                " UNIQUE (run_id, item_key))"))
            conn.execute(text("INSERT INTO run (id, kind, strategy, config_hash, config_json, status, n_items,"
                              " metrics_json, created_at) VALUES (7, 'eval', '', 'h', '{}', 'done', 1, '{}',"
                              " '2024-01-02 03:04:05')"))
            conn.execute(text("INSERT INTO run_item (run_id, item_key, result_json, seconds)"
                              " VALUES (7, 'q1', '{\"ok\": true}', 0.5)"))
        added = add_missing_columns(engine)
        assert added == ["run_item.created_at"]
        column = {c["name"]: c for c in inspect(engine).get_columns("run_item")}["created_at"]
        assert column["nullable"] is True
        with engine.connect() as conn:
            assert tuple(conn.execute(text("SELECT item_key, created_at FROM run_item")).one()) == ("q1", None)
        from storage.runs import add_item, load_items

        assert load_items(engine, 7) == {"q1": {"ok": True}}
        assert add_item(engine, 7, "q2", {"ok": False})
        assert not add_item(engine, 7, "q2", {"ok": True})
        assert add_missing_columns(engine) == []
    finally:
        engine.dispose()


def test_store_from_newer_code_keeps_its_version(test_db_url):
    engine = make_engine(test_db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE schema_info SET version = :v WHERE id = 1"), {"v": SCHEMA_VERSION + 5})
        make_engine(test_db_url).dispose()
        assert schema_version(engine) == SCHEMA_VERSION + 5
    finally:
        engine.dispose()


def test_added_columns_take_server_or_scalar_defaults_and_their_indexes(test_db_url):
    from sqlalchemy import Boolean, Column, Integer, MetaData, String, Table

    engine = create_engine(test_db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE upgrade_probe (id INTEGER PRIMARY KEY)"))
            conn.execute(text("INSERT INTO upgrade_probe (id) VALUES (1)"))
        metadata = MetaData()
        Table("upgrade_probe", metadata, Column("id", Integer, primary_key=True),
              Column("label", String(10), nullable=False, server_default="it's"),
              Column("count", Integer, nullable=False, default=3, index=True),
              Column("flag", Boolean, nullable=False, default=False),
              Column("note", String(5), nullable=False))
        assert add_missing_columns(engine, metadata) == [
            "upgrade_probe.label", "upgrade_probe.count", "upgrade_probe.flag", "upgrade_probe.note"]
        with engine.connect() as conn:
            row = conn.execute(text("SELECT id, label, count, flag, note FROM upgrade_probe")).one()
        assert (row.id, row.label, row.count, bool(row.flag), row.note) == (1, "it's", 3, False, None)
        assert "ix_upgrade_probe_count" in {i["name"] for i in inspect(engine).get_indexes("upgrade_probe")}
    finally:
        engine.dispose()
