import pytest

from core.importers.detect import detect_format, load_catalog_bytes, load_catalog_file
from tests.core.importers.helpers import check_error, dumps, error_of

OPENAI = [{"type": "function", "function": {"name": "a"}}]
MCP = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}
OPENAPI = {"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "a"}}}}


@pytest.mark.parametrize("doc,kind", [
    (OPENAPI, "openapi"),
    ({"swagger": "2.0"}, "openapi"),
    (MCP, "mcp"),
    (MCP["tools"], "mcp"),
    ({"jsonrpc": "2.0", "id": 1, "result": MCP}, "mcp"),
    ({"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}}, "mcp"),
    (OPENAI, "openai"),
    ({"tools": OPENAI}, "openai"),
    ([{"name": "a", "parameters": {}, "inputSchema": {}}], "openai"),
    ("anything else", "openai"),
])
def test_detect_format(doc, kind):
    assert detect_format(doc) == kind


@pytest.mark.parametrize("doc", [OPENAI, MCP, OPENAPI])
def test_each_format_imports(doc, tmp_path):
    assert [t.key for t in load_catalog_bytes(dumps(doc), "c.json", source="s")] == ["a"]
    path = tmp_path / "c.json"
    path.write_bytes(dumps(doc))
    assert [t.source for t in load_catalog_file(path)] == ["c.json"]


def test_yaml_catalogs_of_any_format():
    text = "tools:\n  - name: a\n    inputSchema: {type: object}\n"
    assert [t.key for t in load_catalog_bytes(text.encode(), "server.yaml")] == ["a"]


def test_errors_come_from_the_detected_parser():
    err = error_of(load_catalog_bytes, dumps({"openapi": "2.0", "paths": {}}), "c.json")
    check_error(err, "c.json", None, "openapi", "not 3.x")
    err = error_of(load_catalog_bytes, dumps({"jsonrpc": "2.0", "error": {"message": "boom"}}), "c.json")
    check_error(err, "c.json", None, "error", "boom")


def test_json_file_with_broken_json_reports_json_not_yaml():
    check_error(error_of(load_catalog_bytes, b"nope", "c.json"), "c.json", None, None, "invalid JSON at line 1")


def test_missing_file(tmp_path):
    err = error_of(load_catalog_file, tmp_path / "none.json")
    check_error(err, str(tmp_path / "none.json"), None, None, "cannot read")
