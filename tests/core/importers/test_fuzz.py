"""Random input never crashes an importer (only CatalogImportError) and never leaves rows behind."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.importers.detect import load_catalog_bytes
from core.importers.errors import CatalogImportError
from core.importers.queries import parse_queries_jsonl
from core.models import Tool

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "function", "name", "description", "parameters", "properties", "required", "key",
                         "tools", "inputSchema", "openapi", "paths", "category", "id", "query", "gold"])
        | st.text(max_size=8), inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_random_json_is_parsed_or_rejected_cleanly(value):
    try:
        out = load_catalog_bytes(json.dumps(value).encode(), "fuzz.json")
    except CatalogImportError:
        return
    assert out and all(isinstance(t, Tool) for t in out)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes(data):
    for parse in (lambda d: load_catalog_bytes(d, "f"), lambda d: parse_queries_jsonl(d, "f")):
        try:
            parse(data)
        except CatalogImportError:
            pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(json_values)
def test_failed_import_writes_nothing(db, value):
    from sqlmodel import Session, func, select

    from core.workspace import Workspace
    from storage.tables import Catalog, ToolRow

    class NoEmbedder:
        model_id = "none"

    ws = Workspace(db, NoEmbedder())
    with Session(db) as s:
        before = s.exec(select(func.count()).select_from(ToolRow)).one()
    try:
        tools = load_catalog_bytes(json.dumps(value).encode(), "fuzz.json")
        ws.import_tools("fuzz", tools)
    except (CatalogImportError, ValueError):
        with Session(db) as s:
            assert s.exec(select(func.count()).select_from(ToolRow)).one() == before
            assert s.exec(select(func.count()).select_from(Catalog).where(Catalog.name == "fuzz")).one() in (0, 1)
