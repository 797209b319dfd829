import pytest

from core.importers.mcp_saved import load_mcp_tools_list, parse_mcp_tools_list
from tests.core.importers.helpers import check_error, dumps, error_of

ADD = {"name": "add", "title": "Add", "description": "Add two numbers",
       "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                       "required": ["a", "b"]},
       "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}},
       "annotations": {"readOnlyHint": True}}
NOW = {"name": "now", "inputSchema": {"type": "object"}}


def parse(doc, path="mcp.json", source=""):
    return parse_mcp_tools_list(dumps(doc), path, source)


def fails(doc, path="mcp.json"):
    return error_of(parse_mcp_tools_list, dumps(doc), path)


@pytest.mark.parametrize("doc", [
    {"tools": [ADD, NOW], "nextCursor": "abc"},
    {"jsonrpc": "2.0", "id": 7, "result": {"tools": [ADD, NOW]}},
    [ADD, NOW],
], ids=["result", "json-rpc", "bare-list"])
def test_every_shape(doc):
    add, now = parse(doc, source="server-x")
    assert (add.key, add.name, add.description, add.source) == ("add", "add", "Add two numbers", "server-x")
    assert add.parameters == ADD["inputSchema"] and add.required == ("a", "b")
    assert add.extra == {"title": "Add", "outputSchema": ADD["outputSchema"], "annotations": {"readOnlyHint": True}}
    assert (now.description, now.parameters, now.extra) == ("", {"type": "object", "properties": {}}, {})


def test_load_from_file(tmp_path):
    path = tmp_path / "server.json"
    path.write_bytes(dumps({"tools": [NOW]}))
    assert load_mcp_tools_list(path)[0].source == "server.json"


def test_json_rpc_error_response():
    err = fails({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}})
    check_error(err, "mcp.json", None, "error", "JSON-RPC error", "Method not found")


def test_result_without_tools():
    check_error(fails({"jsonrpc": "2.0", "id": 1, "result": {}}), "mcp.json", None, "result.tools", "missing")
    check_error(fails({"jsonrpc": "2.0", "id": 1, "result": []}), "mcp.json", None, "result", "object")


def test_tools_not_a_list():
    check_error(fails({"tools": {"add": ADD}}), "mcp.json", None, "tools", "list")


def test_empty_tool_list():
    check_error(fails({"tools": []}), "mcp.json", None, "tools", "no tools")


def test_entry_not_an_object():
    check_error(fails({"tools": [ADD, "now"]}), "mcp.json", 2, None, "object")


def test_missing_name():
    check_error(fails({"tools": [NOW, {"description": "x"}]}), "mcp.json", 2, "name", "missing")


def test_description_not_a_string():
    check_error(fails([{**NOW, "description": 5}]), "mcp.json", 1, "description", "string")


def test_input_schema_not_an_object():
    check_error(fails([{**NOW, "inputSchema": "none"}]), "mcp.json", 1, "inputSchema", "JSON object")
    check_error(fails([{**NOW, "inputSchema": {"type": "array"}}]), "mcp.json", 1, "inputSchema", "'array'")


def test_required_not_a_property():
    err = fails([{**NOW, "inputSchema": {"type": "object", "required": ["x"]}}])
    check_error(err, "mcp.json", 1, "inputSchema.required", "'x'")


def test_nul_inside_annotations():
    check_error(fails([{**NOW, "annotations": {"title": "a\x00"}}]), "mcp.json", 1, "annotations.title", "NUL")


def test_duplicate_names():
    check_error(fails([NOW, ADD, NOW]), "mcp.json", 3, "name", "'now'", "also record 1")
