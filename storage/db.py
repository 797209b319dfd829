"""Database URL resolution and engine construction.

The store is a SQLite file in the per-user data directory unless ``TOOLATLAS_DB_URL``
names another SQLAlchemy URL (PostgreSQL included).
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import create_engine

ENV_DB_URL = "TOOLATLAS_DB_URL"


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("toolatlas", appauthor=False)) / "toolatlas.db"


def resolve_db_url(url: str | None = None) -> str:
    """Explicit argument, then ``TOOLATLAS_DB_URL``, then the per-user SQLite file."""
    if url:
        return url
    env = os.environ.get(ENV_DB_URL, "").strip()
    if env:
        return env
    path = default_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    # WAL lets the app read while a CLI run writes; busy_timeout turns short lock
    # contention into a wait instead of "database is locked".
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def make_engine(url: str | None = None, *, create: bool = True) -> Engine:
    """Build an engine for ``url`` (see :func:`resolve_db_url`) and create missing tables."""
    resolved = resolve_db_url(url)
    kwargs: dict = {}
    if resolved.startswith("sqlite"):
        if resolved.startswith("sqlite:///") and ":memory:" not in resolved:
            Path(resolved.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_engine(resolved, **kwargs)
    if resolved.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    if create:
        init_db(engine)
    return engine


def init_db(engine: Engine) -> int:
    """Create missing tables and upgrade existing ones in place (see :mod:`storage.schema`).

    Returns the store's schema version."""
    from storage.schema import ensure_schema

    return ensure_schema(engine)


def redact_url(url: str) -> str:
    """The URL with any password masked, safe to show in the UI or logs."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is shown as a placeholder
        return "<unparsable database URL>"


def insert_ignoring_duplicates(conn, table, rows) -> int:
    """INSERT that skips rows whose unique key already exists (two writers racing on the same item
    both succeed; the first write wins). Returns how many rows were inserted."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    elif dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        return conn.execute(table.insert().values(rows)).rowcount
    stmt = insert(table).values(rows).on_conflict_do_nothing()
    if dialect == "postgresql":
        # psycopg reports rowcount -1 for this multi-VALUES statement; count the RETURNING rows.
        return len(conn.execute(stmt.returning(*table.primary_key.columns)).all())
    return conn.execute(stmt).rowcount
