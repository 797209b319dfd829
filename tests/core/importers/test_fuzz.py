"""Random input: every parser returns a complete tuple or raises CatalogImportError, nothing else."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.importers.detect import load_catalog_bytes
from core.importers.errors import CatalogImportError
from core.importers.mcp_saved import parse_mcp_tools_list
from core.importers.openai_tools import parse_openai_tools
from core.importers.openapi import parse_openapi
from core.importers.queries import parse_queries_jsonl
from core.models import Query, Tool

CATALOG_PARSERS = {
    "openai": parse_openai_tools,
    "mcp": parse_mcp_tools_list,
    "openapi": parse_openapi,
    "detect": load_catalog_bytes,
}
# Keys the parsers look at, so random objects often get past the first checks.
KEYS = ["type", "function", "name", "description", "parameters", "properties", "required", "key", "category",
        "tools", "inputSchema", "annotations", "jsonrpc", "result", "error", "openapi", "swagger", "paths",
        "get", "post", "operationId", "summary", "tags", "in", "schema", "requestBody", "content",
        "application/json", "$ref", "/a", "/a/{id}", "servers", "url", "id", "query", "gold", "split"]
scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
           | st.sampled_from(["function", "object", "3.0.0", "3.1.0", "2.0", "path", "query", "#/components/x",
                              "#/paths", "a", "a\x00", "\ud800", ""]))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner,
                                                                max_size=6),
    max_leaves=30,
)


def encode(value) -> bytes:
    # allow_nan: NaN/Infinity reach the parsers as the non-standard tokens Python's json accepts.
    return json.dumps(value).encode("utf-8", "surrogatepass")


def check_catalog(parse, data, path="fuzz.json"):
    try:
        out = parse(data, path)
    except CatalogImportError as err:
        assert err.path == path and str(err).startswith(path)
        return
    assert isinstance(out, tuple) and out and all(isinstance(t, Tool) for t in out)
    for tool in out:  # what the store will do with it must work
        json.dumps(tool.parameters, allow_nan=False)
        json.dumps(tool.extra, allow_nan=False)
        tool.content_hash()


def check_queries(data, path="fuzz.jsonl"):
    try:
        out = parse_queries_jsonl(data, path, known_keys={"a", "b"})
    except CatalogImportError as err:
        assert err.path == path
        return
    assert isinstance(out, tuple) and all(isinstance(q, Query) for q in out)


@pytest.mark.parametrize("parse", CATALOG_PARSERS.values(), ids=CATALOG_PARSERS)
@settings(max_examples=250, deadline=None)
@given(value=json_values)
def test_random_json_documents(parse, value):
    check_catalog(parse, encode(value))


@settings(max_examples=150, deadline=None)
@given(value=st.fixed_dictionaries(
    {"openapi": st.sampled_from(["3.0.0", "3.1", 3]), "paths": st.dictionaries(
        st.sampled_from(["/a", "/a/{id}", "x-ext"]), st.dictionaries(st.sampled_from(["get", "post", "parameters"]),
                                                                     json_values, max_size=3), max_size=3)},
    optional={"components": json_values, "servers": json_values}))
def test_random_openapi_documents(value):
    check_catalog(parse_openapi, encode(value))


@settings(max_examples=150, deadline=None)
@given(value=st.lists(st.fixed_dictionaries({}, optional={
    "type": scalars, "key": scalars, "category": scalars,
    "function": st.fixed_dictionaries({}, optional={"name": scalars, "description": scalars,
                                                    "parameters": json_values})}), max_size=4))
def test_random_openai_entries(value):
    check_catalog(parse_openai_tools, encode(value))


@pytest.mark.parametrize("parse", CATALOG_PARSERS.values(), ids=CATALOG_PARSERS)
@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300))
def test_random_bytes(parse, data):
    check_catalog(parse, data)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300), path=st.sampled_from(["f.yaml", "f.json", "<upload>"]))
def test_random_text_as_yaml_or_json(text, path):
    check_catalog(parse_openapi, text, path)
    check_catalog(load_catalog_bytes, text.encode("utf-8", "surrogatepass"), path)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300))
def test_random_bytes_as_queries(data):
    check_queries(data)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(json_values | st.fixed_dictionaries(
    {"id": scalars, "query": scalars}, optional={"gold": json_values, "split": scalars}), max_size=5))
def test_random_query_lines(rows):
    check_queries("\n".join(json.dumps(r) for r in rows).encode("utf-8", "surrogatepass"))
