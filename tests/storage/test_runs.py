import pytest

from storage import runs

pytestmark = pytest.mark.pg


def test_same_config_resumes_until_finished(db):
    r1 = runs.open_run(db, "eval", {"k": 5, "strategy": "query"})
    assert runs.add_item(db, r1.id, "q1", {"keys": ["a"]}) is True
    assert runs.add_item(db, r1.id, "q1", {"keys": ["b"]}) is False  # never duplicated
    r2 = runs.open_run(db, "eval", {"strategy": "query", "k": 5})
    assert r2.id == r1.id
    assert runs.done_item_keys(db, r1.id) == {"q1"}
    assert runs.load_items(db, r1.id) == {"q1": {"keys": ["a"]}}
    done = runs.finish_run(db, r1.id, {"recall@5": 1.0})
    assert (done.status, done.n_items, done.metrics["recall@5"]) == ("done", 1, 1.0)
    r3 = runs.open_run(db, "eval", {"k": 5, "strategy": "query"})
    assert r3.id != r1.id
    assert runs.open_run(db, "eval", {"k": 10, "strategy": "query"}).id not in {r1.id, r3.id}
    assert [r.id for r in runs.list_runs(db, kind="eval")][:1] == [max(r1.id, r3.id) + 1]


def test_synthetic_query_store_persists_per_generator(db, tiny_tools):
    from storage.catalogs import import_catalog
    from storage.synthetic import SqlQueryStore

    v = import_catalog(db, "tiny", tiny_tools)
    assert v.id == 1
    a = SqlQueryStore(db, version_id=1, generator="offline", m=2, temperature=0.7)
    a.save("t1", ["q1", "q2"])
    again = SqlQueryStore(db, version_id=1, generator="offline", m=2, temperature=0.7)
    assert again.load() == {"t1": ["q1", "q2"]}
    other = SqlQueryStore(db, version_id=1, generator="openai:gpt", m=2, temperature=0.7)
    assert other.load() == {}


def test_synthetic_query_store_opens_its_run_only_when_used(db, tiny_tools):
    from storage.catalogs import import_catalog
    from storage.synthetic import SqlQueryStore

    import_catalog(db, "tiny", tiny_tools)
    store = SqlQueryStore(db, version_id=1, generator="offline", m=2, temperature=0.7)
    assert runs.list_runs(db, kind="reinvoke_index") == ()
    assert store.load() == {}
    assert len(runs.list_runs(db, kind="reinvoke_index")) == 1


def test_put_item_replaces_in_place_and_adds_when_missing(db):
    run = runs.open_run(db, "merge", {"t": 1})
    runs.put_item(db, run.id, "pair:1", {"ok": False})
    runs.put_item(db, run.id, "pair:1", {"ok": True})
    runs.put_item(db, run.id, "pair:2", {"ok": True})
    assert runs.load_items(db, run.id) == {"pair:1": {"ok": True}, "pair:2": {"ok": True}}
    assert runs.finish_run(db, run.id, {}).n_items == 2


def test_find_done_answers_only_a_finished_run_with_the_same_config(db):
    config = {"k": 5, "queries": ["q1"]}
    assert runs.find_done(db, "trials", config) is None
    first = runs.open_run(db, "trials", config, version_id=None)
    assert runs.find_done(db, "trials", config) is None  # still running: open_run resumes it instead
    runs.finish_run(db, first.id, {"ok": 1})
    assert runs.find_done(db, "trials", config).id == first.id
    assert runs.find_done(db, "trials", {**config, "k": 3}) is None and runs.find_done(db, "eval", config) is None
    second = runs.open_run(db, "trials", config, resume=False)
    runs.finish_run(db, second.id, {})
    assert runs.find_done(db, "trials", config).id == second.id  # the newest


def test_config_reads_back_sorted_and_as_json_whatever_the_callers_order_and_types(db):
    from datetime import date

    run = runs.open_run(db, "eval", {"z": 1, "a": {"y": (1, 2), "b": date(2024, 1, 2)}})
    for info in (run, runs.get_run(db, run.id)):
        assert list(info.config) == ["a", "z"] and list(info.config["a"]) == ["b", "y"]
        assert info.config == {"a": {"b": "2024-01-02", "y": [1, 2]}, "z": 1}  # default=str, tuples as lists
    assert runs.open_run(db, "eval", {"a": {"b": date(2024, 1, 2), "y": (1, 2)}, "z": 1}).id == run.id


def test_items_and_metrics_keep_their_order_unicode_and_stringified_values(db):
    import math
    from datetime import date

    run = runs.open_run(db, "eval", {"k": 1})
    runs.add_item(db, run.id, "q1", {"keys": ["b", "a"], "query": "café ✓ \x00", "when": date(2024, 1, 2)})
    item = runs.load_items(db, run.id)["q1"]
    assert list(item) == ["keys", "query", "when"]
    assert item == {"keys": ["b", "a"], "query": "café ✓ \x00", "when": "2024-01-02"}
    done = runs.finish_run(db, run.id, {"recall": 0.5, "p": float("nan")})
    # JSON has no NaN: PostgreSQL's json column gets null, SQLite's text keeps what json.dumps always wrote.
    p = done.metrics["p"]
    assert (p is None) if db.dialect.name == "postgresql" else math.isnan(p)
    assert done.metrics["recall"] == 0.5
