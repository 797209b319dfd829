"""One cache of store reads per store: bounded, thread-safe, and emptied of what a write changes (our design).

Pages read the same few things on every script run (the catalog list, a version's query sets and queries, the
runs), for every session. :func:`cached` keeps each read's answer under a key together with the *generation*
of every table it read; a write to a table, by any code path of this process, moves that table's generation
on, so the next read of anything that read it goes to the store again. Writes are seen through SQLAlchemy's
engine events, not by the writers calling in: a new write path cannot forget to invalidate.

- A table's generation moves when a connection that wrote to it commits and again when it goes back to the
  pool, after the commit. A read records the generations it started under, so a read that raced a write (and
  may have seen the old rows) is never served once that write is committed.
- Every engine of this process on one store (not a private in-memory one) shares that store's cache and
  reports its writes to it. Another process (a ``toolatlas`` command beside the app) writes where no event
  of ours can see. On a SQLite file every read first asks SQLite's ``PRAGMA data_version`` on a connection
  of the cache's own (no table is read; it moves whenever another connection commits, in any process), so
  such a write is seen by the next read too. On another database (PostgreSQL) an entry is served for at most
  ``max_age`` seconds (:data:`MAX_AGE_S`); content that never changes once written (a version's tools) is
  kept until evicted.
- At most :data:`MAX_ENTRIES` answers, least recently used dropped first. Answers are shared by every caller:
  they must be immutable (frozen dataclasses, tuples), never a dict a caller may change.
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine

T = TypeVar("T")
MAX_ENTRIES = 2048
MAX_AGE_S = 2.0
# The operator's switch: how long an answer may be served (seconds; 0 turns the cache off, every read goes to
# the store, as before the cache existed). Several app processes on one store may want it shorter.
ENV_MAX_AGE = "TOOLATLAS_READ_CACHE_MAX_AGE"


def max_age_from_env(environ=None) -> float:
    """``TOOLATLAS_READ_CACHE_MAX_AGE`` in seconds, else :data:`MAX_AGE_S`; ValueError for a negative or
    unreadable value."""
    raw = (os.environ if environ is None else environ).get(ENV_MAX_AGE, "").strip()
    if not raw:
        return MAX_AGE_S
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{ENV_MAX_AGE} must be a number of seconds, got {raw!r}") from None
    if not value >= 0:
        raise ValueError(f"{ENV_MAX_AGE} must be 0 (no cache) or more seconds, got {raw!r}")
    return value
_ALL = "*"  # a write whose table we cannot name (DDL, a schema upgrade): every entry goes
_WRITE = re.compile(r"^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM|REPLACE\s+INTO)\s+"
                    r"[\"`\[]?(\w+)", re.IGNORECASE)
_READ = re.compile(r"^\s*(?:SELECT|PRAGMA\s+\w+\s*(?:\(|$)|WITH|SHOW|EXPLAIN|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|"
                   r"RELEASE)", re.IGNORECASE)
_PENDING = "toolatlas_tables_written"  # in a pooled connection's info: tables written since its last commit


def written_table(statement: str) -> str | None:
    """The table a SQL statement writes to, ``"*"`` for a write we cannot name (DDL), None for a read."""
    found = _WRITE.match(statement)
    if found:
        return found.group(1).lower()
    return None if _READ.match(statement) else _ALL


class ReadCache:
    """Answers of store reads by key, each valid while the tables it read are unwritten (see the module)."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES, max_age: float | None = MAX_AGE_S,
                 probe: Callable[[], Hashable] | None = None) -> None:
        """``probe``: the store's change counter, asked at every read (a new value: every answer is stale);
        with one, ``max_age`` bounds nothing but whether the cache is on (0: off)."""
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max_entries = int(max_entries)
        self.max_age = max_age
        self.probe = probe
        self._entries: OrderedDict[Hashable, tuple[Any, tuple, float]] = OrderedDict()
        self._generations: dict[str, int] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _stamp(self, tables: tuple[str, ...], probed: Hashable) -> tuple:
        return (probed, self._generations.get(_ALL, 0), *(self._generations.get(t, 0) for t in tables))

    def get(self, key: Hashable, tables: Iterable[str], load: Callable[[], T], *, immutable: bool = False) -> T:
        """The answer kept under ``key`` if no table in ``tables`` was written since it was read (and, unless
        ``immutable``, it is at most ``max_age`` seconds old); else ``load()``, kept. ``max_age`` 0: no cache."""
        if self.max_age == 0:
            return load()
        tables = tuple(sorted(tables))
        key = (key, tables)
        probed = self.probe() if self.probe is not None else None
        with self._lock:
            stamp = self._stamp(tables, probed)
            kept = self._entries.get(key)
            if kept is not None and kept[1] == stamp and (immutable or self.probe is not None or self.max_age is None
                                                          or time.monotonic() - kept[2] <= self.max_age):
                self._entries.move_to_end(key)
                self.hits += 1
                return kept[0]
            self.misses += 1
        value = load()  # outside the lock: a slow read holds up no other
        with self._lock:
            # Kept under the generations it started with: a write that committed meanwhile makes it stale at once.
            self._entries[key] = (value, stamp, time.monotonic())
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def written(self, tables: Iterable[str]) -> None:
        """Tables written (committed, or about to be): every answer that read one of them is stale."""
        with self._lock:
            for t in tables:
                self._generations[t] = self._generations.get(t, 0) + 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._generations[_ALL] = self._generations.get(_ALL, 0) + 1

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


# Engines on one store share its cache (the app's and a command's in one process, tests): each engine's writes
# reach it. A cache lives as long as an engine that uses it.
_BY_ENGINE: weakref.WeakKeyDictionary[Engine, ReadCache] = weakref.WeakKeyDictionary()
_BY_STORE: weakref.WeakValueDictionary[str, ReadCache] = weakref.WeakValueDictionary()
_CACHES_LOCK = threading.Lock()


def _store_key(engine: Engine) -> str | None:
    """The store an engine opens, or None for a private in-memory SQLite database (one per engine)."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and (not url.database or ":memory:" in url.database
                                                or url.query.get("mode") == "memory"):
        return None
    return url.render_as_string(hide_password=False)


class SqliteDataVersion:
    """SQLite's ``PRAGMA data_version`` on a connection of our own to the file: a number that changes whenever
    another connection, of this process or another, commits (sqlite.org/pragma.html#pragma_data_version)."""

    def __init__(self, path: str) -> None:
        import sqlite3

        self._conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        self._conn.close()


def _probe_for(engine: Engine) -> SqliteDataVersion | None:
    url = engine.url
    if url.get_backend_name() == "sqlite" and _store_key(engine) is not None and "?" not in str(url.database):
        return SqliteDataVersion(url.database)
    return None


def read_cache(engine: Engine) -> ReadCache:
    """The read cache of the engine's store, listening to this engine's writes from the first call on."""
    with _CACHES_LOCK:
        cache = _BY_ENGINE.get(engine)
        if cache is None:
            store = _store_key(engine)
            cache = _BY_STORE.get(store) if store is not None else None
            if cache is None:
                max_age = max_age_from_env()
                cache = ReadCache(max_age=max_age, probe=_probe_for(engine) if max_age else None)
                if store is not None:
                    _BY_STORE[store] = cache
            _BY_ENGINE[engine] = cache
            _listen(engine, cache)
        return cache


def _listen(engine: Engine, cache: ReadCache) -> None:
    # The listeners hold the cache, never the engine: the cache goes with its engine.
    def after_execute(conn, _cursor, statement, _params, _context, _many) -> None:
        table = written_table(statement)
        if table is not None:
            conn.info.setdefault(_PENDING, set()).add(table)
            cache.written((table,))

    def committing(conn) -> None:  # called just before the commit: the tables move on again at check-in
        pending = conn.info.get(_PENDING)
        if pending:
            cache.written(pending)

    def checked_in(_dbapi, record) -> None:  # after the commit (or rollback): the writes are visible to all
        pending = record.info.pop(_PENDING, None) if record is not None else None
        if pending:
            cache.written(pending)

    event.listen(engine, "after_cursor_execute", after_execute)
    event.listen(engine, "commit", committing)
    event.listen(engine, "checkin", checked_in)


def cached(engine: Engine, key: Hashable, tables: Iterable[str], load: Callable[[], T], *,
           immutable: bool = False) -> T:
    """``load()`` through the engine's :class:`ReadCache` (see :meth:`ReadCache.get`)."""
    return read_cache(engine).get(key, tables, load, immutable=immutable)
