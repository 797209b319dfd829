"""Schema creation and in-place upgrades, the same on SQLite and PostgreSQL.

``ensure_schema`` creates missing tables, then adds the columns a model has but the database's
table lacks (``ALTER TABLE ... ADD COLUMN``), then records :data:`SCHEMA_VERSION` in the one-row
``schema_info`` table so the app can tell which schema a store has.

An added column gets the column's server-side default; failing that its scalar Python default
(``Field(default=...)``) as a server-side default, so existing rows read back as the model
expects; failing both it is added as nullable and existing rows hold NULL. Columns that cannot
be added in place (primary keys) are reported in the log and left alone. Indexes declared on an
added column are created too; foreign keys and unique constraints on it are not.

Bump :data:`SCHEMA_VERSION` whenever a table or column is added. Adding columns needs nothing
else; anything the generic step cannot do (renames, type changes, backfills) goes into
:data:`MIGRATIONS` keyed by the version it upgrades to.

Schema 3 turns the ``*_json`` text columns into SQLAlchemy ``JSON`` columns (:func:`json_columns`). On
PostgreSQL they become ``json``, not ``jsonb``: ``json`` keeps the exact text, so a tool's parameters keep
their order (the order prompts and exports show) and a ``\u0000`` in a string is accepted, where ``jsonb``
reorders keys and refuses it; the store never queries inside these documents nor compares them, which is
what ``jsonb`` would be for. The column names stay, so no rename and nothing that names them changes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import JSON, Column, Table, Text, bindparam, inspect, literal, select, sql, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Field, SQLModel

log = logging.getLogger(__name__)

#: The schema this code writes. History: 1 = the first versioned schema (catalogs, runs, ledger,
#: merges, caches, projections); 2 = ``mcp_server``, the MCP launch commands registered by ``import-mcp``;
#: 3 = the ``*_json`` columns are JSON columns (:func:`json_columns`); 4 = ``query.gold_calls_json``, gold calls
#: with their arguments (:func:`query_gold_calls`); 5 = ``grid_run``, the runs of each grid (``toolatlas grid``).
SCHEMA_VERSION = 5


class SchemaInfo(SQLModel, table=True):
    """A single row (id 1): the schema version of this store and when it was last upgraded."""

    __tablename__ = "schema_info"
    id: int = Field(default=1, primary_key=True)
    version: int
    updated_at: datetime


def _register_tables() -> None:
    from storage import ledger, merges, tables  # noqa: F401  (registers the tables on SQLModel.metadata)


def schema_version(engine: Engine) -> int | None:
    """The version recorded in the store; None for a store written before versioning (or empty)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table(SchemaInfo.__tablename__):
            return None
        table = SchemaInfo.__table__
        return conn.execute(table.select().with_only_columns(table.c.version).where(table.c.id == 1)).scalar()


def _default_sql(column: Column, conn: Connection) -> str | None:
    """SQL for the DEFAULT clause of an added column, or None."""
    dialect = conn.dialect
    if column.server_default is not None:
        return dialect.ddl_compiler(dialect, None).get_column_default_string(column)
    default = column.default
    if default is not None and getattr(default, "is_scalar", False) and default.arg is not None:
        return str(literal(default.arg, type_=column.type).compile(
            dialect=dialect, compile_kwargs={"literal_binds": True}))
    return None


def _add_column_sql(table: Table, column: Column, conn: Connection) -> str:
    dialect = conn.dialect
    quote = dialect.identifier_preparer.quote
    parts = [f"ALTER TABLE {dialect.identifier_preparer.format_table(table)} ADD COLUMN",
             quote(column.name), column.type.compile(dialect=dialect)]
    default = _default_sql(column, conn)
    if default is not None:
        parts += ["DEFAULT", default]
        if not column.nullable:
            parts.append("NOT NULL")
    return " ".join(parts)


def add_missing_columns(engine: Engine, metadata=None) -> list[str]:
    """Add every model column missing from an existing table; returns ``table.column`` names added."""
    metadata = metadata if metadata is not None else SQLModel.metadata
    with engine.connect() as conn:
        inspector = inspect(conn)
        present = set(inspector.get_table_names())
        existing = {t.name: {c["name"] for c in inspector.get_columns(t.name)}
                    for t in metadata.sorted_tables if t.name in present}
    added: list[str] = []
    for table in metadata.sorted_tables:
        if table.name not in existing:
            continue
        missing = [c for c in table.columns if c.name not in existing[table.name]]
        for column in missing:
            name = f"{table.name}.{column.name}"
            if column.primary_key:
                log.warning("schema upgrade: cannot add primary-key column %s in place; left alone", name)
                continue
            try:
                with engine.begin() as conn:
                    conn.exec_driver_sql(_add_column_sql(table, column, conn))
            except DBAPIError:
                # Another process may have added it between our look and our ALTER.
                with engine.connect() as conn:
                    if column.name not in {c["name"] for c in inspect(conn).get_columns(table.name)}:
                        raise
                continue
            added.append(name)
            log.info("schema upgrade: added column %s", name)
        if missing:
            names = {c.name for c in missing}
            with engine.begin() as conn:
                for index in table.indexes:
                    if names & {c.name for c in index.columns}:
                        index.create(conn, checkfirst=True)
    return added


def _rewrite_non_finite(conn: Connection, table_name: str, name: str) -> int:
    """Rewrite the old text values of ``table_name.name`` that hold NaN or ±Infinity (Python's ``json`` wrote
    them; JSON has no spelling for them) the way :func:`storage.db.json_text` writes them now: as null.
    Returns how many rows changed."""
    from storage.db import json_text

    raw = sql.table(table_name, sql.column("id"), sql.column(name, Text))
    changed = []
    for row_id, text in conn.execute(select(raw.c.id, raw.c[name]).where(raw.c[name].regexp_match("NaN|Infinity"))):
        value = json.loads(text)  # old text as the old code wrote it; NaN and Infinity parse
        strict = json_text(value, strict=True)
        if strict != json_text(value):
            changed.append({"row_id": row_id, "value": strict})
    if changed:
        conn.execute(update(raw).where(raw.c.id == bindparam("row_id")).values({name: bindparam("value")}), changed)
    return len(changed)


def json_columns(conn: Connection) -> None:
    """Schema 3: the ``*_json`` text columns become the ``JSON`` columns the models declare.

    PostgreSQL: ``ALTER COLUMN ... TYPE json USING col::json`` for each column still of another type (old
    values holding NaN or ±Infinity, which ``json`` refuses, are first rewritten with null in their place).
    SQLite needs nothing: SQLAlchemy's JSON is text there and is decoded by the model's column type, whatever
    type the table declares, so the old ``TEXT`` columns already hold exactly what it reads and writes; a
    new declared type would need the whole table copied (SQLite has no ``ALTER COLUMN``) to change a name.
    Safe to run twice, and on a store whose columns are already JSON."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        return
    if dialect != "postgresql":
        log.warning("schema upgrade: JSON columns on %s are left as they are (SQLite and PostgreSQL only)", dialect)
        return
    inspector = inspect(conn)
    quote = conn.dialect.identifier_preparer.quote
    for tbl in SQLModel.metadata.sorted_tables:
        wanted = [c.name for c in tbl.columns if isinstance(c.type, JSON)]
        if not wanted or not inspector.has_table(tbl.name):
            continue
        present = {c["name"]: c["type"] for c in inspector.get_columns(tbl.name)}
        for name in wanted:
            if name not in present or isinstance(present[name], JSON):
                continue
            alter = f"ALTER TABLE {quote(tbl.name)} ALTER COLUMN {quote(name)} TYPE JSON USING {quote(name)}::json"
            try:
                with conn.begin_nested():
                    conn.exec_driver_sql(alter)
            except DBAPIError:
                fixed = _rewrite_non_finite(conn, tbl.name, name)
                log.info("schema upgrade: %s.%s: %d value(s) with NaN or Infinity stored with null", tbl.name, name,
                         fixed)
                conn.exec_driver_sql(alter)
            log.info("schema upgrade: %s.%s is now a JSON column", tbl.name, name)


def query_gold_calls(conn: Connection) -> None:
    """Schema 4: ``query.gold_calls_json`` (gold calls with arguments, :class:`core.models.GoldCall`). The generic
    step adds the column, nullable (a JSON list has no scalar default), so the queries stored before hold NULL;
    this step writes the empty list there, which is what they have: a query set from before carries no gold
    calls (import it again to get them, e.g. ``toolatlas import-benchmark bfcl``). Safe to run twice."""
    if not inspect(conn).has_table("query"):
        return
    raw = sql.table("query", sql.column("gold_calls_json", JSON))
    conn.execute(update(raw).where(raw.c.gold_calls_json.is_(None)).values(gold_calls_json=[]))


#: Version-specific steps run (in order, each in its own transaction) after columns are added,
#: when the stored version is below the key.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {3: json_columns, 4: query_gold_calls}


def _write_version(conn: Connection, version: int) -> None:
    from storage.db import insert_ignoring_duplicates
    from storage.tables import utcnow

    table = SchemaInfo.__table__
    now = utcnow()
    # Insert-or-ignore, then update: two processes opening a fresh store at once both succeed.
    insert_ignoring_duplicates(conn, table, [{"id": 1, "version": version, "updated_at": now}])
    conn.execute(table.update().where(table.c.id == 1).values(version=version, updated_at=now))


def ensure_schema(engine: Engine) -> int:
    """Create missing tables, add missing columns, run pending migrations, record the version.

    Returns the version the store has afterwards. A store written by newer code keeps its
    (higher) version; this code only adds what it knows about and logs a warning.
    """
    _register_tables()
    SQLModel.metadata.create_all(engine)
    add_missing_columns(engine)
    stored = schema_version(engine) or 0
    if stored > SCHEMA_VERSION:
        log.warning("store schema version %s is newer than this code's %s", stored, SCHEMA_VERSION)
        return stored
    for target in sorted(v for v in MIGRATIONS if stored < v <= SCHEMA_VERSION):
        with engine.begin() as conn:
            MIGRATIONS[target](conn)
            _write_version(conn, target)
    if stored < SCHEMA_VERSION:
        with engine.begin() as conn:
            _write_version(conn, SCHEMA_VERSION)
    return SCHEMA_VERSION
