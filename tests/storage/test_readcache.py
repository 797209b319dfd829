"""The store's read cache: a cached read does not reach the database; any write is seen by the next read."""

from contextlib import contextmanager

import pytest
from sqlalchemy import event, text

from core.models import Query, Tool
from storage import catalogs, readcache, runs
from storage.db import make_engine
from storage.readcache import ReadCache, read_cache, written_table


@pytest.fixture
def engine(tmp_path):
    eng = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    yield eng
    eng.dispose()


@contextmanager
def statements(engine):
    """The SQL statements the engine sends while the block runs."""
    sent: list[str] = []

    def record(_conn, _cursor, statement, *_):
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


TOOLS = [Tool("a", "a", "Tool a."), Tool("b", "b", "Tool b.")]


def test_a_cached_read_sends_no_statement(engine):
    catalogs.import_catalog(engine, "cat", TOOLS)
    first = catalogs.list_catalogs(engine)
    with statements(engine) as sent:
        again = catalogs.list_catalogs(engine)
        catalogs.get_version(engine, "cat")
        catalogs.load_tools(engine, first[0].latest.id)  # read once by nobody yet: one miss
        catalogs.load_tools(engine, first[0].latest.id)
    assert again is first
    assert len(sent) == 1 and "FROM tool" in sent[0]


def test_every_write_is_seen_by_the_next_read(engine):
    v1 = catalogs.import_catalog(engine, "cat", TOOLS)
    assert [v.number for v in catalogs.get_catalog(engine, "cat").versions] == [1]
    catalogs.import_catalog(engine, "cat", [*TOOLS, Tool("c", "c", "Tool c.")])
    assert [v.number for v in catalogs.get_catalog(engine, "cat").versions] == [1, 2]

    qs = catalogs.import_queries(engine, "cat", "gold", [Query("q1", "do a", ("a",))])
    assert [q.id for q in catalogs.load_queries(engine, qs.id)] == ["q1"]
    catalogs.import_queries(engine, "cat", "gold", [Query("q2", "do b", ("b",))])  # same set id, new content
    assert [q.id for q in catalogs.load_queries(engine, qs.id)] == ["q2"]

    run = runs.open_run(engine, "eval", {"x": 1}, version_id=v1.id)
    assert [r.id for r in runs.list_runs(engine)] == [run.id]
    assert runs.find_done(engine, "eval", {"x": 1}) is None
    runs.finish_run(engine, run.id, {"m": 1.0})
    assert runs.get_run(engine, run.id).status == "done"
    assert runs.find_done(engine, "eval", {"x": 1}).id == run.id

    assert catalogs.load_tools(engine, v1.id)
    catalogs.delete_catalog(engine, "cat")
    assert catalogs.list_catalogs(engine) == ()
    assert catalogs.load_tools(engine, v1.id) == ()  # cached without an age limit, still emptied by the delete
    assert runs.get_run(engine, run.id) is None


def test_a_write_by_any_path_counts_even_raw_sql(engine):
    catalogs.import_catalog(engine, "cat", TOOLS)
    assert catalogs.list_catalogs(engine)[0].description == ""
    with engine.begin() as conn:  # no storage function involved
        conn.execute(text("UPDATE catalog SET description = 'edited'"))
    assert catalogs.list_catalogs(engine)[0].description == "edited"


def test_a_read_that_raced_a_write_is_not_served(engine):
    catalogs.import_catalog(engine, "cat", TOOLS)
    cache = read_cache(engine)

    def read_then_someone_writes():
        answer = catalogs._list_catalogs(engine)  # the rows as they were
        with engine.begin() as conn:  # committed before the read's answer is kept
            conn.execute(text("UPDATE catalog SET description = 'new'"))
        return answer

    stale = cache.get("race", ("catalog", "catalog_version"), read_then_someone_writes)
    assert stale[0].description == ""
    fresh = cache.get("race", ("catalog", "catalog_version"), lambda: catalogs._list_catalogs(engine))
    assert fresh[0].description == "new"


def test_engines_on_one_store_share_its_cache(engine):
    assert len(catalogs.list_catalogs(engine)) == 0
    other = make_engine(str(engine.url))  # the app's engine and a command's in one process
    assert read_cache(other) is read_cache(engine)
    catalogs.import_catalog(other, "dog", TOOLS)
    assert [c.name for c in catalogs.list_catalogs(engine)] == ["dog"]
    other.dispose()
    memory_a, memory_b = make_engine("sqlite://"), make_engine("sqlite://")  # two private databases
    assert read_cache(memory_a) is not read_cache(memory_b)


def test_another_processs_write_to_a_sqlite_file_is_seen_by_the_next_read(engine, tmp_path):
    import sqlite3

    catalogs.import_catalog(engine, "cat", TOOLS)
    assert len(catalogs.list_catalogs(engine)) == 1
    other = sqlite3.connect(engine.url.database)  # behind every event of ours, as another process writes
    with other:
        other.execute("UPDATE catalog SET name = 'dog'")
    other.close()
    assert [c.name for c in catalogs.list_catalogs(engine)] == ["dog"]
    with statements(engine) as sent:
        catalogs.list_catalogs(engine)
    assert sent == []  # asking SQLite whether anything changed reads no table and sends nothing through the engine


def test_without_a_change_counter_another_processs_write_shows_after_max_age(monkeypatch):
    cache = ReadCache(max_age=2.0)  # PostgreSQL's case: our events are all it has
    answers = iter(["old", "new"])
    assert cache.get("k", ("catalog",), lambda: next(answers)) == "old"
    assert cache.get("k", ("catalog",), lambda: next(answers)) == "old"  # within max_age: the kept answer
    now = readcache.time.monotonic()
    monkeypatch.setattr(readcache.time, "monotonic", lambda: now + 3.0)
    assert cache.get("k", ("catalog",), lambda: next(answers)) == "new"


def test_bounded_least_recently_used_first():
    cache = ReadCache(max_entries=2)
    loads = []

    def load(k):
        loads.append(k)
        return k

    for k in ("a", "b", "a", "c", "a", "b"):
        cache.get(k, ("t",), lambda k=k: load(k))
    assert loads == ["a", "b", "c", "b"]  # "b" went when "c" came ("a" had been used since)
    assert len(cache) == 2
    cache.written(["t"])
    cache.get("a", ("t",), lambda: load("a"))
    assert loads[-1] == "a"
    with pytest.raises(ValueError, match="max_entries"):
        ReadCache(max_entries=0)


@pytest.mark.parametrize(("statement", "table"), [
    ("INSERT INTO run_item (run_id) VALUES (?)", "run_item"),
    ('INSERT OR IGNORE INTO "query" (qid) VALUES (?)', "query"),
    ("UPDATE run SET status=? WHERE run.id = ?", "run"),
    ("DELETE FROM tool WHERE tool.version_id IN (?)", "tool"),
    ("SELECT catalog.id FROM catalog", None),
    ("PRAGMA table_info(run)", None),
    ("ALTER TABLE run ADD COLUMN x TEXT", "*"),
])
def test_written_table(statement, table):
    assert written_table(statement) == table


def test_the_operators_switch_sets_the_age_and_zero_turns_the_cache_off():
    from storage.readcache import ENV_MAX_AGE, max_age_from_env

    assert max_age_from_env({}) == readcache.MAX_AGE_S
    assert max_age_from_env({ENV_MAX_AGE: "0.5"}) == 0.5
    for bad in ("-1", "soon", "nan"):
        with pytest.raises(ValueError, match=ENV_MAX_AGE):
            max_age_from_env({ENV_MAX_AGE: bad})
    off = ReadCache(max_age=0)
    loads = []
    for _ in range(2):
        off.get("k", ("t",), lambda: loads.append(1), immutable=True)
    assert len(loads) == 2 and len(off) == 0
