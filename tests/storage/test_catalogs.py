from dataclasses import replace

import pytest
from sqlmodel import Session, func, select

from core.models import Query
from storage import catalogs as store
from storage.tables import QueryRow, ToolRow

pytestmark = pytest.mark.pg


def test_import_round_trips_tools(db, tiny_tools):
    v = store.import_catalog(db, "tiny", tiny_tools, source="test")
    assert (v.number, v.n_tools, v.catalog_name) == (1, 6, "tiny")
    assert store.load_tools(db, v.id) == tiny_tools


def test_parameters_keep_their_order_and_extra_its_characters(db):
    from core.models import Tool

    tool = Tool("t/x", "x", "Find x", {"type": "object", "properties": {"query": {"type": "string"},
                                                                      "k": {"type": "integer"}},
                                       "required": ["query"]}, extra={"note": "métrique ✓", "nul": "a\x00b"})
    v = store.import_catalog(db, "order", [tool])
    (back,) = store.load_tools(db, v.id)
    assert back == tool
    assert back.parameter_names == ("query", "k")  # the order prompts show (jsonb would put k first)


def test_same_content_reuses_version_and_change_adds_one(db, tiny_tools):
    v1 = store.import_catalog(db, "tiny", tiny_tools)
    again = store.import_catalog(db, "tiny", tiny_tools)
    assert again.id == v1.id
    changed = (replace(tiny_tools[0], description="Rewritten weather doc"),) + tiny_tools[1:]
    v2 = store.import_catalog(db, "tiny", changed)
    assert v2.number == 2
    assert [v.number for v in store.get_catalog(db, "tiny").versions] == [1, 2]
    assert store.get_version(db, "tiny").id == v2.id
    assert store.get_version(db, "tiny", 1).id == v1.id


def test_duplicate_keys_write_nothing(db, tiny_tools):
    with pytest.raises(ValueError, match="duplicate tool key 'get_weather'"):
        store.import_catalog(db, "dup", tiny_tools + (tiny_tools[0],))
    with Session(db) as s:
        assert s.exec(select(func.count()).select_from(ToolRow)).one() == 0
    assert store.list_catalogs(db) == ()


def test_unknown_catalog_error_lists_known(db, tiny_tools):
    store.import_catalog(db, "tiny", tiny_tools)
    with pytest.raises(ValueError, match=r"no catalog named 'nope' \(known: tiny\)"):
        store.get_catalog(db, "nope")
    with pytest.raises(ValueError, match="has no version 7"):
        store.get_version(db, "tiny", 7)


def test_query_sets_reuse_and_replace(db, tiny_tools, tiny_queries):
    store.import_catalog(db, "tiny", tiny_tools)
    qs = store.import_queries(db, "tiny", "gold", tiny_queries)
    assert store.load_queries(db, qs.id) == tiny_queries
    assert store.load_queries(db, qs.id, split="dev") == (tiny_queries[2],)
    assert store.import_queries(db, "tiny", "gold", tiny_queries).id == qs.id
    fewer = store.import_queries(db, "tiny", "gold", tiny_queries[:1] + (Query("q9", "new one", ("send_email",)),))
    assert fewer.id == qs.id and fewer.n_queries == 2
    assert [q.id for q in store.load_queries(db, qs.id)] == ["q1", "q9"]
    with Session(db) as s:
        assert s.exec(select(func.count()).select_from(QueryRow)).one() == 2


def test_delete_catalog_removes_it_and_what_was_made_from_it_only(db, tiny_tools):
    from core.llm.base import CallRecord
    from core.models import McpServer
    from storage import runs
    from storage.ledger import list_calls, record_call
    from storage.merges import MergeDecisionRow

    v1 = store.import_catalog(db, "gone", tiny_tools)
    v2 = store.import_catalog(db, "gone", (replace(tiny_tools[0], description="Changed"),) + tiny_tools[1:])
    kept = store.import_catalog(db, "kept", tiny_tools)
    qs = store.import_queries(db, "gone", "q", [Query("q1", "weather in Paris", ("get_weather",))])
    store.register_mcp_server(db, "gone", McpServer(("python", "-m", "srv"), "/tmp"))
    gone_run = runs.open_run(db, "eval", {"a": 1}, version_id=v2.id, query_set_id=qs.id)
    runs.add_item(db, gone_run.id, "q1", {"ok": True})
    record_call(db, CallRecord("judge", "offline", "m", 0.0, "a" * 64, "p", "r", run_id=gone_run.id))
    with Session(db) as s:
        s.add(MergeDecisionRow(run_id=gone_run.id, cluster_id="c1", action="accept"))
        s.commit()
    kept_run = runs.open_run(db, "eval", {"a": 2}, version_id=kept.id)
    runs.add_item(db, kept_run.id, "q1", {"ok": True})

    deleted = store.delete_catalog(db, "gone")

    assert (deleted.versions, deleted.tools, deleted.query_sets, deleted.runs) == (2, 12, 1, 1)
    assert "2 version(s)" in deleted.summary()
    assert [c.name for c in store.list_catalogs(db)] == ["kept"]
    assert store.list_mcp_servers(db, "gone") == ()
    assert list_calls(db, run_id=gone_run.id) == ()
    with Session(db) as s:
        assert s.exec(select(func.count()).select_from(ToolRow)).one() == 6
        assert s.exec(select(func.count()).select_from(QueryRow)).one() == 0
        assert s.exec(select(func.count()).select_from(MergeDecisionRow)).one() == 0
    assert runs.load_items(db, kept_run.id) == {"q1": {"ok": True}}
    assert store.load_tools(db, kept.id) == tiny_tools
    assert v1.id != v2.id


def test_delete_unknown_catalog_names_the_known_ones(db, tiny_tools):
    store.import_catalog(db, "tiny", tiny_tools)
    with pytest.raises(ValueError, match=r"no catalog named 'nope' \(known: tiny\)"):
        store.delete_catalog(db, "nope")


def test_a_catalog_and_its_queries_are_stored_together_or_not_at_all(db, tiny_tools, tiny_queries):
    from sqlalchemy.exc import IntegrityError

    twice = [tiny_queries[0], tiny_queries[0]]  # the same query id twice: the query rows cannot be written
    with pytest.raises(IntegrityError):
        store.store_catalog(db, "tiny", tiny_tools, queries=twice)
    assert store.list_catalogs(db) == ()  # no version without its queries
    with Session(db) as s:
        assert s.exec(select(func.count()).select_from(ToolRow)).one() == 0

    first = store.store_catalog(db, "tiny", tiny_tools, queries=tiny_queries, query_set="gold")
    assert not first.reused and first.query_set.name == "gold"
    again = store.store_catalog(db, "tiny", tiny_tools, queries=tiny_queries[:1], query_set="gold")
    assert again.reused and again.version == first.version  # same tools: the version is reused, the set replaced
    assert [q.id for q in store.load_queries(db, again.query_set.id)] == [tiny_queries[0].id]
