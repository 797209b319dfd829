"""Schema creation and in-place upgrades (SQLite, and PostgreSQL through TOOLATLAS_TEST_DB_URL)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from storage.db import make_engine
from storage.schema import SCHEMA_VERSION, add_missing_columns, json_columns, query_gold_calls, schema_version

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
        with engine.begin() as conn:  # result_json was made TEXT above: the schema-3 step makes it JSON again
            json_columns(conn)
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


# The tables that hold JSON, as the schema-2 code created them (``git show`` of storage/tables.py, ledger.py and
# merges.py before schema 3, compiled for each dialect), with rows as that code wrote them: json.dumps text.
OLD_DDL = """
CREATE TABLE catalog (id {serial} PRIMARY KEY, name VARCHAR(200) NOT NULL UNIQUE, source VARCHAR(500) NOT NULL,
  description TEXT NOT NULL, created_at {ts} NOT NULL);
CREATE TABLE catalog_version (id {serial} PRIMARY KEY, catalog_id INTEGER NOT NULL REFERENCES catalog (id),
  number INTEGER NOT NULL, label VARCHAR(200) NOT NULL, content_hash VARCHAR(64) NOT NULL, n_tools INTEGER NOT NULL,
  created_at {ts} NOT NULL, UNIQUE (catalog_id, number));
CREATE TABLE tool (id {serial} PRIMARY KEY, version_id INTEGER NOT NULL REFERENCES catalog_version (id),
  position INTEGER NOT NULL, key VARCHAR(500) NOT NULL, name VARCHAR(500) NOT NULL, description TEXT NOT NULL,
  parameters_json TEXT NOT NULL, category VARCHAR(500) NOT NULL, source VARCHAR(500) NOT NULL,
  extra_json TEXT NOT NULL, content_hash VARCHAR(64) NOT NULL, UNIQUE (version_id, key));
CREATE TABLE mcp_server (id {serial} PRIMARY KEY, catalog_id INTEGER NOT NULL REFERENCES catalog (id),
  command_json TEXT NOT NULL, cwd TEXT, launch_hash VARCHAR(64) NOT NULL, created_at {ts} NOT NULL,
  UNIQUE (catalog_id, launch_hash));
CREATE TABLE query_set (id {serial} PRIMARY KEY, catalog_id INTEGER NOT NULL REFERENCES catalog (id),
  name VARCHAR(200) NOT NULL, content_hash VARCHAR(64) NOT NULL, n_queries INTEGER NOT NULL,
  created_at {ts} NOT NULL, UNIQUE (catalog_id, name));
CREATE TABLE query (id {serial} PRIMARY KEY, query_set_id INTEGER NOT NULL REFERENCES query_set (id),
  position INTEGER NOT NULL, qid VARCHAR(500) NOT NULL, text TEXT NOT NULL, gold_json TEXT NOT NULL,
  split VARCHAR(200) NOT NULL, UNIQUE (query_set_id, qid));
CREATE TABLE run (id {serial} PRIMARY KEY, kind VARCHAR(40) NOT NULL,
  version_id INTEGER REFERENCES catalog_version (id), query_set_id INTEGER REFERENCES query_set (id),
  strategy VARCHAR(100) NOT NULL, config_hash VARCHAR(64) NOT NULL, config_json TEXT NOT NULL,
  status VARCHAR(20) NOT NULL, n_items INTEGER NOT NULL, metrics_json TEXT NOT NULL, created_at {ts} NOT NULL,
  finished_at {ts});
CREATE TABLE run_item (id {serial} PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES run (id),
  item_key VARCHAR(500) NOT NULL, result_json TEXT NOT NULL, seconds FLOAT NOT NULL, created_at {ts} NOT NULL,
  UNIQUE (run_id, item_key));
CREATE TABLE merge_decision (id {serial} PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES run (id),
  cluster_id VARCHAR(40) NOT NULL, action VARCHAR(20) NOT NULL, payload_json TEXT NOT NULL,
  created_at {ts} NOT NULL);
CREATE TABLE llm_call (id {serial} PRIMARY KEY, run_id INTEGER, role VARCHAR(60) NOT NULL,
  backend VARCHAR(60) NOT NULL, model VARCHAR(300) NOT NULL, temperature FLOAT NOT NULL,
  request_hash VARCHAR(64) NOT NULL, prompt TEXT NOT NULL, response TEXT NOT NULL, tokens_in INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL, latency_s FLOAT NOT NULL, error TEXT, created_at {ts} NOT NULL);
CREATE TABLE schema_info (id INTEGER PRIMARY KEY, version INTEGER NOT NULL, updated_at {ts} NOT NULL);
"""

T = "'2024-01-02 03:04:05'"
# Ids are left to the database (1, 2, ... in a fresh table) so PostgreSQL's sequences stay in step.
OLD_ROWS = [
    f"INSERT INTO catalog (name, source, description, created_at) VALUES ('old', 'file.json', '', {T})",
    f"INSERT INTO catalog_version (catalog_id, number, label, content_hash, n_tools, created_at)"
    f" VALUES (1, 1, 'v1', 'h', 2, {T})",
    # parameters in the file's order (query before k); extra as ensure_ascii=False wrote it; an escaped NUL
    "INSERT INTO tool (version_id, position, key, name, description, parameters_json, category, source, extra_json,"
    " content_hash) VALUES (1, 0, 'old/b', 'b', 'Find b', '{\"type\": \"object\", \"properties\":"
    " {\"query\": {\"type\": \"string\"}, \"k\": {\"type\": \"integer\"}}, \"required\": [\"query\"]}',"
    " 'util', 'file.json', '{\"note\": \"métrique ✓\", \"nul\": \"a\\u0000b\"}', 'hb')",
    "INSERT INTO tool (version_id, position, key, name, description, parameters_json, category, source, extra_json,"
    " content_hash) VALUES (1, 1, 'old/a', 'a', 'Find a', '{}', '', '', '{}', 'ha')",
    f"INSERT INTO mcp_server (catalog_id, command_json, cwd, launch_hash, created_at)"
    f" VALUES (1, '[\"uvx\", \"mcp-server-time\"]', NULL, 'h', {T})",
    f"INSERT INTO query_set (catalog_id, name, content_hash, n_queries, created_at) VALUES (1, 'qs', 'h', 2, {T})",
    "INSERT INTO query (query_set_id, position, qid, text, gold_json, split)"
    " VALUES (1, 0, 'q1', 'find a', '[\"old/a\"]', '')",
    "INSERT INTO query (query_set_id, position, qid, text, gold_json, split)"
    " VALUES (1, 1, 'q2', 'find a and b', '[\"old/a\", \"old/b\"]', 'test')",
    # config: sort_keys, ensure_ascii, a date by default=str; metrics holds a NaN, as json.dumps wrote it
    "INSERT INTO run (kind, version_id, query_set_id, strategy, config_hash, config_json, status, n_items,"
    " metrics_json, created_at) VALUES ('eval', 1, 1, 'query', 'c1', '{\"k\": 5, \"label\": \"caf\\u00e9\","
    f" \"params\": {{\"alpha\": 0.5}}, \"when\": \"2024-01-02\"}}', 'done', 2,"
    f" '{{\"p\": NaN, \"recall@5\": 0.5}}', {T})",
    f"INSERT INTO run (kind, version_id, strategy, config_hash, config_json, status, n_items, metrics_json,"
    f" created_at) VALUES ('merge', 1, 'offline', 'c2', '{{}}', 'running', 0, '{{}}', {T})",
    "INSERT INTO run_item (run_id, item_key, result_json, seconds, created_at) VALUES (1, 'q1',"
    f" '{{\"keys\": [\"old/a\"], \"gold\": [\"old/a\"], \"best\": -Infinity}}', 0.5, {T})",
    "INSERT INTO run_item (run_id, item_key, result_json, seconds, created_at) VALUES (1, 'q2',"
    f" '{{\"keys\": [], \"gold\": [\"old/a\", \"old/b\"], \"query\": \"NaN and Infinity, as words\"}}',"
    f" 0.25, {T})",
    "INSERT INTO merge_decision (run_id, cluster_id, action, payload_json, created_at) VALUES (2, 'c001',"
    f" 'edit_doc', '{{\"group\": 1, \"description\": \"Convertit — «métrique»\"}}', {T})",
    "INSERT INTO llm_call (run_id, role, backend, model, temperature, request_hash, prompt, response, tokens_in,"
    f" tokens_out, latency_s, error, created_at) VALUES (1, 'judge', 'offline', '', 0.0, '{'a' * 64}',"
    f" '[{{\"role\": \"user\", \"content\": \"same?\"}}]', 'yes', 3, 1, 0.1, NULL, {T})",
    f"INSERT INTO schema_info (id, version, updated_at) VALUES (1, 2, {T})",
]


def _old_store(url: str) -> None:
    raw = create_engine(url)
    pg = raw.dialect.name == "postgresql"
    ddl = OLD_DDL.format(serial="SERIAL" if pg else "INTEGER", ts="TIMESTAMP WITH TIME ZONE" if pg else "DATETIME")
    with raw.begin() as conn:
        for statement in [s for s in ddl.split(";") if s.strip()] + OLD_ROWS:
            conn.exec_driver_sql(statement.replace("%", "%%") if pg else statement)
    raw.dispose()


def test_schema_2_store_with_json_text_reads_back_unchanged_after_the_upgrade(test_db_url):
    import math

    from sqlalchemy import JSON

    from storage import catalogs, ledger, merges, runs

    _old_store(test_db_url)
    engine = make_engine(test_db_url)
    try:
        pg = engine.dialect.name == "postgresql"
        assert schema_version(engine) == SCHEMA_VERSION == 5
        json_names = ["parameters_json", "extra_json", "command_json", "gold_json", "config_json", "metrics_json",
                      "result_json", "payload_json"]
        types = {c["name"]: c["type"] for t in ("tool", "mcp_server", "query", "run", "run_item", "merge_decision")
                 for c in inspect(engine).get_columns(t)}
        # PostgreSQL converts the columns; SQLite keeps its TEXT columns, which its JSON type reads as they are.
        assert [isinstance(types[n], JSON) for n in json_names] == [pg] * len(json_names)

        b, a = catalogs.load_tools(engine, 1)
        assert (b.key, b.parameter_names, b.required, a.key, a.parameters) == (
            "old/b", ("query", "k"), ("query",), "old/a", {})
        assert b.extra == {"note": "métrique ✓", "nul": "a\x00b"}
        assert catalogs.list_mcp_servers(engine, "old")[0].command == ("uvx", "mcp-server-time")
        assert [(q.id, q.gold, q.split) for q in catalogs.load_queries(engine, 1)] == [
            ("q1", ("old/a",), ""), ("q2", ("old/a", "old/b"), "test")]

        run = runs.get_run(engine, 1)
        assert dict(run.config) == {"k": 5, "label": "café", "params": {"alpha": 0.5}, "when": "2024-01-02"}
        # NaN: SQLite's text keeps it; PostgreSQL's json cannot hold it, so the upgrade stored null.
        p = run.metrics["p"]
        assert (p is None) if pg else math.isnan(p)
        assert run.metrics["recall@5"] == 0.5
        items = runs.load_items(engine, 1)
        best = items["q1"]["best"]
        assert (best is None) if pg else best == -math.inf
        assert items["q2"] == {"keys": [], "gold": ["old/a", "old/b"], "query": "NaN and Infinity, as words"}
        assert runs.item_seconds(engine, 1) == {"q1": 0.5, "q2": 0.25}
        assert [(d.cluster_id, d.action, dict(d.payload)) for d in merges.list_decisions(engine, 2)] == [
            ("c001", "edit_doc", {"group": 1, "description": "Convertit — «métrique»"})]
        (call,) = ledger.list_calls(engine, run_id=1)
        assert (call.prompt, call.response) == ('[{"role": "user", "content": "same?"}]', "yes")

        # New writes go in beside the old rows, and opening the store again changes nothing.
        assert runs.add_item(engine, 2, "pair:1", {"verdict": "same", "keys": ("old/a", "old/b")})
        merges.record_decision(engine, 2, "c001", "accept")
        make_engine(test_db_url).dispose()
        assert runs.load_items(engine, 2) == {"pair:1": {"verdict": "same", "keys": ["old/a", "old/b"]}}
        assert [d.action for d in merges.list_decisions(engine, 2)] == ["edit_doc", "accept"]
        assert runs.load_items(engine, 1)["q2"]["query"] == "NaN and Infinity, as words"
        assert schema_version(engine) == 5
    finally:
        engine.dispose()


def test_json_step_leaves_a_store_that_has_json_columns_alone(test_db_url):
    from storage import runs

    engine = make_engine(test_db_url)
    try:
        run = runs.open_run(engine, "eval", {"k": 5})
        runs.add_item(engine, run.id, "q1", {"keys": ["a"]})
        with engine.begin() as conn:
            json_columns(conn)
        assert runs.load_items(engine, run.id) == {"q1": {"keys": ["a"]}}
    finally:
        engine.dispose()


def test_schema_3_store_gets_gold_calls_and_keeps_its_queries(test_db_url):
    """Step 4: ``query.gold_calls_json`` is added to a schema-3 store; the queries stored before read back as
    they were, with no gold calls (the step writes [] where the added column holds NULL); a set imported
    afterwards keeps its gold calls with every accepted value; running the step again changes nothing."""
    from core.models import GoldCall, Query
    from storage import catalogs

    # back to schema 3 as that code left it: no gold_calls_json column
    _upgraded_store_as_of(test_db_url, 3, "ALTER TABLE query DROP COLUMN gold_calls_json")
    engine = make_engine(test_db_url)
    try:
        assert schema_version(engine) == SCHEMA_VERSION == 5
        assert "gold_calls_json" in {c["name"] for c in inspect(engine).get_columns("query")}
        with engine.connect() as conn:
            raw_values = conn.execute(text("SELECT gold_calls_json FROM query ORDER BY position")).scalars().all()
        assert [v if isinstance(v, list) else json.loads(v) for v in raw_values] == [[], []]  # not NULL
        old = catalogs.load_queries(engine, 1)
        assert [(q.id, q.gold, q.split, q.gold_calls) for q in old] == [
            ("q1", ("old/a",), "", ()), ("q2", ("old/a", "old/b"), "test", ())]

        call = GoldCall("old/b", {"query": ("café ✓", "cafe"), "k": (3,), "filter": ({"lang": "fr"},)}, ("k",))
        qs = catalogs.import_queries(engine, "old", "calls", [Query("c1", "find b", ("old/b",), "", (call,))])
        (back,) = catalogs.load_queries(engine, qs.id)
        assert back.gold_calls == (call,) and back.gold_calls[0].arguments["filter"] == ({"lang": "fr"},)
        with engine.begin() as conn:
            query_gold_calls(conn)
        assert catalogs.load_queries(engine, qs.id)[0].gold_calls == (call,)
        assert catalogs.load_queries(engine, 1) == old
    finally:
        engine.dispose()


def _upgraded_store_as_of(url: str, version: int, undo: str) -> None:
    """The old store, upgraded by this code, then taken back to schema ``version`` by the SQL ``undo`` (what the
    later steps added) with that version recorded, as the code of ``version`` would have left it."""
    _old_store(url)
    make_engine(url).dispose()  # upgrades it all the way
    raw = create_engine(url)
    with raw.begin() as conn:
        conn.exec_driver_sql(undo)
        conn.exec_driver_sql(f"UPDATE schema_info SET version = {version} WHERE id = 1")
    raw.dispose()


def test_schema_4_store_gets_the_grid_table_and_keeps_its_runs(test_db_url):
    """Step 5: ``grid_run`` (the runs of each ``toolatlas grid``) is created in a schema-4 store; the runs stored
    before read back as they were and belong to no grid; a run recorded in a grid twice is one row, and deleting
    its catalog deletes the membership too."""
    from storage import catalogs, runs

    _upgraded_store_as_of(test_db_url, 4, "DROP TABLE grid_run")  # schema 4 as that code left it: no grid_run
    engine = make_engine(test_db_url)
    try:
        assert schema_version(engine) == SCHEMA_VERSION == 5
        assert "grid_run" in inspect(engine).get_table_names()
        before = runs.list_runs(engine)
        assert before and runs.grid_names(engine) == ()
        run_id = before[0].id
        assert runs.add_to_grid(engine, "sweep", run_id) and not runs.add_to_grid(engine, "sweep", run_id)
        assert runs.grid_names(engine) == ("sweep",) and runs.grid_run_ids(engine, "sweep") == (run_id,)
        assert runs.list_runs(engine) == before
        catalogs.delete_catalog(engine, "old")
        assert runs.grid_run_ids(engine, "sweep") == () and runs.list_runs(engine) == ()
    finally:
        engine.dispose()
