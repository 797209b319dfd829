"""The checks every parser shares, run against every parser, plus the helpers behind them."""

import json
import sys

import pytest

from core.importers import _common
from core.importers._common import check_schema, decode, json_value, load_yaml, read_file, text_field
from core.importers.detect import load_catalog_bytes
from core.importers.mcp_saved import parse_mcp_tools_list
from core.importers.openai_tools import parse_openai_tools
from core.importers.openapi import parse_openapi
from core.importers.queries import parse_queries_jsonl
from tests.core.importers.helpers import check_error, dumps, error_of


def openai_doc(name, description):
    return dumps([{"type": "function", "function": {"name": name, "description": description}}])


def mcp_doc(name, description):
    return dumps({"tools": [{"name": name, "description": description, "inputSchema": {"type": "object"}}]})


def openapi_doc(name, description):
    return dumps({"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": name, "description": description}}}})


def queries_doc(name, description):
    return dumps({"id": name, "query": description}) + b"\n"


# (parser, document builder, field holding the long text, field holding the name)
FORMATS = {
    "openai": (parse_openai_tools, openai_doc, "function.description", "function.name"),
    "mcp": (parse_mcp_tools_list, mcp_doc, "description", "name"),
    "openapi": (parse_openapi, openapi_doc, "paths./a.get.description", "paths./a.get.operationId"),
    "queries": (parse_queries_jsonl, queries_doc, "query", "id"),
    "detect": (load_catalog_bytes, openai_doc, "function.description", "function.name"),
}
PARSERS = [pytest.param(parse, id=name) for name, (parse, *_rest) in FORMATS.items()]


@pytest.mark.parametrize("name", FORMATS)
def test_happy_document_builders_are_valid(name):
    parse, build, *_ = FORMATS[name]
    assert len(parse(build("ok", "Fine."), "f.json")) == 1


@pytest.mark.parametrize("parse", PARSERS)
@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n", "", "\ufeff  "])
def test_empty_file(parse, data):
    err = check_error(error_of(parse, data, "f.json"), "f.json", None, None)
    assert err.message == "file is empty"


@pytest.mark.parametrize("parse", PARSERS)
def test_non_utf8_names_the_byte_offset(parse):
    check_error(error_of(parse, b'{"a": "\xff"}', "f.json"), "f.json", None, None, "not UTF-8", "byte offset 7")


@pytest.mark.parametrize("parse", PARSERS)
def test_byte_offset_counts_the_bom(parse):
    check_error(error_of(parse, b"\xef\xbb\xbf{\xc3}", "f.json"), "f.json", None, None, "byte offset 4")


@pytest.mark.parametrize("parse", [p for p in PARSERS if p.id != "queries"])
def test_invalid_json_names_line_and_column(parse):
    err = error_of(parse, b'{\n "a": 1,\n "b" 2}', "f.json")
    check_error(err, "f.json", None, None, "invalid JSON at line 3, column 6")


def test_invalid_json_in_queries_names_the_line():
    err = error_of(parse_queries_jsonl, b'{"id": 1, "query": "a"}\n{"id": 2 "query": "b"}\n', "q.jsonl")
    check_error(err, "q.jsonl", 2, None, "invalid JSON at column 10")


@pytest.mark.parametrize("parse", PARSERS)
def test_number_too_long_for_python_is_an_import_error(parse):
    err = error_of(parse, b'{"a": ' + b"9" * 5000 + b"}", "f.json")
    assert "too many digits" in err.message


@pytest.mark.parametrize("name", FORMATS)
def test_five_megabyte_description(name):
    parse, build, field, _ = FORMATS[name]
    err = check_error(error_of(parse, build("ok", "x" * 5_000_000), "f.json"), "f.json", 1, field)
    label = field.rsplit(".", 1)[-1]
    assert err.message == f"{label} is 5,000,000 characters; limit is 100,000"


@pytest.mark.parametrize("name", FORMATS)
def test_nul_in_name(name):
    parse, build, _, field = FORMATS[name]
    check_error(error_of(parse, build("a\x00b", "Fine."), "f.json"), "f.json", 1, field, "NUL")


@pytest.mark.parametrize("parse", PARSERS)
def test_file_over_the_size_limit(parse, monkeypatch):
    monkeypatch.setattr(_common, "MAX_FILE_BYTES", 1000)
    err = error_of(parse, b" " * 1001, "f.json")
    check_error(err, "f.json", None, None)
    assert err.message == "file is 1,001 bytes; limit is 1,000"
    assert "limit is 1,000" in error_of(parse, "é" * 501, "f.json").message  # text is measured in UTF-8 bytes


def test_real_size_limit_is_checked_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as fh:  # sparse: no disk or memory is spent on the 200 MB
        fh.truncate(200 * 1024 * 1024 + 1)
    err = error_of(read_file, big)
    check_error(err, str(big), None, None, "209,715,201 bytes; limit is 209,715,200")


def test_unreadable_file(tmp_path):
    check_error(error_of(read_file, tmp_path), str(tmp_path), None, None, "cannot read")


def test_decode_drops_the_bom_and_keeps_text():
    assert decode(b"\xef\xbb\xbf[1]", "f") == "[1]"
    assert decode("\ufeff[1]", "f") == "[1]"


def test_decode_refuses_other_types():
    check_error(error_of(decode, 12, "f"), "f", None, None, "bytes or text")


def test_text_field_rules():
    assert text_field(None, "f", 1, "d", required=False) == ""
    assert text_field("  x ", "f", 1, "d", required=True) == "x"
    check_error(error_of(text_field, None, "f", 1, "d", required=True), "f", 1, "d", "missing")
    check_error(error_of(text_field, 3, "f", 1, "d", required=False), "f", 1, "d", "must be a string, not a number")
    err = error_of(text_field, "x" * 11, "f", 2, "a.name", required=True, limit=10)
    assert err.message == "name is 11 characters; limit is 10"


def test_json_value_copies_and_checks():
    value = {"a": [1, 2.5, None, True, "s"]}
    copy = json_value(value, "f", 1, "p")
    assert copy == value and copy is not value and copy["a"] is not value["a"]
    check_error(error_of(json_value, {"a": [1, float("inf")]}, "f", 1, "p"), "f", 1, "p.a[1]", "Infinity")
    check_error(error_of(json_value, {"a\x00": 1}, "f", 1, "p"), "f", 1, "p.a\x00", "NUL")
    check_error(error_of(json_value, {1: 1}, "f", 1, "p"), "f", 1, "p", "non-string key")
    check_error(error_of(json_value, {"s": {1, 2}}, "f", 1, "p"), "f", 1, "p.s", "not a JSON value")


def test_json_value_size_limit(monkeypatch):
    monkeypatch.setattr(_common, "MAX_VALUES", 10)
    check_error(error_of(json_value, list(range(20)), "f", 1, "p"), "f", 1, "p", "more than 10 values")


def test_check_schema_normalises():
    assert check_schema(None, "f", 1, "p") == {"type": "object", "properties": {}}
    assert check_schema({"properties": None, "required": None}, "f", 1, "p") == {"type": "object", "properties": {}}
    schema = {"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": False}
    assert check_schema(schema, "f", 1, "p") == schema


def test_yaml_values_become_json_values():
    doc = load_yaml("when: 2024-01-02\n200: ok\ntrue: yes\nlist: [1, 2]\n", "f.yaml")
    assert doc == {"when": "2024-01-02", "200": "ok", "true": True, "list": [1, 2]}
    json.dumps(doc)


def test_yaml_shared_aliases_are_fine_but_self_containing_ones_are_not():
    assert load_yaml("a: &x [1]\nb: *x\n", "f.yaml") == {"a": [1], "b": [1]}
    check_error(error_of(load_yaml, "a: &x [*x]\n", "f.yaml"), "f.yaml", None, None, "alias")


def test_yaml_errors_are_import_errors():
    check_error(error_of(load_yaml, "a: [1,\nb: 2\n", "f.yaml"), "f.yaml", None, None, "invalid YAML at line")
    check_error(error_of(load_yaml, "a: 2020-13-45\n", "f.yaml"), "f.yaml", None, None, "invalid YAML")
    check_error(error_of(load_yaml, "a: !!binary aGk=\n", "f.yaml"), "f.yaml", None, None, "bytes")
    check_error(error_of(load_yaml, "a: !!python/name:os.system\n", "f.yaml"), "f.yaml", None, None,
                "invalid YAML")


def test_yaml_without_pyyaml_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # makes `import yaml` fail
    check_error(error_of(load_yaml, "a: 1\n", "f.yaml"), "f.yaml", None, None, "PyYAML", "pip install pyyaml")
