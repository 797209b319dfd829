import json

import pytest

from core.importers.detect import load_catalog_bytes, sniff
from core.importers.errors import CatalogImportError
from core.importers.mcp_saved import parse_mcp_tools_list
from core.importers.openapi import parse_openapi
from core.importers.queries import parse_queries_jsonl

PETSTORE = {
    "openapi": "3.0.3",
    "servers": [{"url": "https://pets.example.test/v1"}],
    "components": {"schemas": {"Pet": {"type": "object", "properties": {"name": {"type": "string"},
                                                                          "tag": {"$ref": "#/components/schemas/Tag"}},
                                       "required": ["name"]},
                               "Tag": {"type": "object", "properties": {"parent": {"$ref": "#/components/schemas/Tag"}}}}},
    "paths": {
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "schema": {"type": "integer"}}],
            "get": {"summary": "Show a pet", "tags": ["pets"], "parameters": [
                {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}]},
        },
        "/pets": {"post": {"operationId": "createPet", "description": "Add a pet.",
                           "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}},
    },
}


def test_openapi_one_tool_per_operation():
    tools = parse_openapi(json.dumps(PETSTORE), "pets.json")
    by = {t.key: t for t in tools}
    assert set(by) == {"get_pets_petId", "createPet"}
    show = by["get_pets_petId"]
    assert show.required == ("petId",) and set(show.parameter_names) == {"petId", "verbose"}
    assert show.category == "pets" and show.extra == {"method": "GET", "path": "/pets/{petId}",
                                                      "server": "https://pets.example.test/v1"}
    create = by["createPet"]
    assert create.required == ("name",) and "recursive reference" in json.dumps(create.parameters)


def test_openapi_yaml_and_errors():
    yaml_doc = "openapi: 3.1.0\npaths:\n  /ping:\n    get:\n      operationId: ping\n      summary: Health check\n"
    assert [t.key for t in parse_openapi(yaml_doc, "p.yaml")] == ["ping"]
    with pytest.raises(CatalogImportError, match="field 'openapi': missing"):
        parse_openapi('{"paths": {}}', "x.json")
    with pytest.raises(CatalogImportError, match="not 3.x"):
        parse_openapi('{"openapi": "2.0", "paths": {"/a": {}}}', "x.json")
    with pytest.raises(CatalogImportError, match="field 'paths'"):
        parse_openapi('{"openapi": "3.0.0", "paths": {}}', "x.json")


MCP = {"tools": [{"name": "add", "description": "Add two numbers",
                  "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                  "required": ["a", "b"]}, "annotations": {"readOnlyHint": True}}]}


def test_mcp_saved_list_all_shapes():
    for doc in (MCP, {"jsonrpc": "2.0", "id": 1, "result": MCP}, MCP["tools"]):
        (tool,) = parse_mcp_tools_list(json.dumps(doc), "mcp.json")
        assert tool.key == "add" and tool.required == ("a", "b") and tool.extra["annotations"]["readOnlyHint"]
    with pytest.raises(CatalogImportError, match="record 1: field 'inputSchema'"):
        parse_mcp_tools_list(json.dumps({"tools": [{"name": "x", "inputSchema": "nope"}]}), "mcp.json")


def test_detection():
    assert sniff(json.dumps(PETSTORE), "a") == "openapi"
    assert sniff(json.dumps(MCP), "a") == "mcp"
    assert sniff(json.dumps([{"type": "function", "function": {"name": "a"}}]), "a") == "openai"
    assert [t.key for t in load_catalog_bytes(json.dumps(MCP).encode(), "m.json")] == ["add"]


def test_queries_jsonl():
    text = '{"id": 1, "query": "weather?", "gold": "get_weather", "split": "test"}\n\n{"id": "b", "query": "x", "gold": []}\n'
    qs = parse_queries_jsonl(text, "q.jsonl", known_keys={"get_weather"})
    assert [(q.id, q.gold, q.split) for q in qs] == [("1", ("get_weather",), "test"), ("b", (), "")]
    with pytest.raises(CatalogImportError, match="q.jsonl: record 1: field 'gold': 'nope' is not a tool"):
        parse_queries_jsonl('{"id": 1, "query": "q", "gold": ["nope"]}', "q.jsonl", known_keys={"a"})
    with pytest.raises(CatalogImportError, match="record 2: field 'id': duplicate id '1'"):
        parse_queries_jsonl('{"id": 1, "query": "q"}\n{"id": 1, "query": "r"}', "q.jsonl")
    with pytest.raises(CatalogImportError, match="record 1: field 'query': missing"):
        parse_queries_jsonl('{"id": 1}', "q.jsonl")
