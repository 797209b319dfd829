"""Database URL resolution and engine construction.

The store is a SQLite file in the per-user data directory unless ``TOOLATLAS_DB_URL``
names another SQLAlchemy URL (PostgreSQL included).
"""

from __future__ import annotations

import json
import math
import os
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
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


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_text(value: Any, *, strict: bool = False) -> str:
    """The text a JSON column stores for ``value`` (ours): ``json.dumps`` with ``default=str``, so a value
    JSON cannot hold (a date, a numpy scalar) is stored as its text, as the store always did, and with
    characters as they are (``ensure_ascii=False``). Key order is the caller's.

    ``strict`` writes NaN and ±Infinity as null: standard JSON cannot spell them and PostgreSQL's ``json``
    refuses them. SQLite's JSON column is plain text and keeps them (``json.loads`` reads them back)."""
    dump = partial(json.dumps, default=str, ensure_ascii=False)
    if not strict:
        return dump(value)
    try:
        return dump(value, allow_nan=False)
    except ValueError:
        return dump(_finite(value), allow_nan=False)


def make_engine(url: str | None = None, *, create: bool = True) -> Engine:
    """Build an engine for ``url`` (see :func:`resolve_db_url`) and create missing tables."""
    resolved = resolve_db_url(url)
    # Every JSON column is written by json_text; reading is the driver's json.loads.
    kwargs: dict = {"json_serializer": partial(json_text, strict=not resolved.startswith("sqlite"))}
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

    with store_lock(engine, "schema"):
        return ensure_schema(engine)


_LOCAL_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@contextmanager
def store_lock(engine: Engine, name: str) -> Iterator[None]:
    """Hold the store-wide lock ``name`` while the block runs: one holder at a time across every process and
    thread that opens this store (two shards of a grid, the app and the CLI opening a fresh store together).

    PostgreSQL: a session advisory lock keyed by ``name``; a SQLite file: a file lock on ``<file>.<name>.lock``;
    an in-memory SQLite store: a lock of this process (no other process can see that store).
    """
    url = engine.url
    if url.get_backend_name() == "postgresql":
        key = zlib.crc32(f"toolatlas:{name}".encode())
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                conn.commit()
        return
    database = url.database or ""
    if url.get_backend_name() == "sqlite" and database and database != ":memory:" and "mode=memory" not in str(url):
        from filelock import FileLock  # the same file lock as the static model's one distillation per machine

        path = Path(f"{database}.{name}.lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(path)):  # a new lock object per holder: it also orders threads of one process
            yield
        return
    with _LOCAL_LOCKS_GUARD:
        lock = _LOCAL_LOCKS.setdefault((str(url), name), threading.Lock())
    with lock:
        yield


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
