import json

import pytest

from core.importers.errors import CatalogImportError
from core.importers.export import export_openai_tools
from core.importers.openai_tools import load_openai_tools, parse_openai_tools


def fn(name="get_weather", **extra):
    return {"type": "function", "function": {"name": name, "description": "Weather now",
                                             "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                            "required": ["city"]}}, **extra}


def parse(obj, path="tools.json"):
    return parse_openai_tools(json.dumps(obj).encode(), path)


def test_tools_with_key_and_category_and_bare_functions():
    tools = parse([fn(key="w1", category="Weather", vendor="acme"),
                   {"name": "convert", "description": "Convert units"}])
    assert [t.key for t in tools] == ["w1", "convert"]
    assert tools[0].category == "Weather" and tools[0].required == ("city",) and tools[0].extra == {"vendor": "acme"}
    assert tools[1].parameters == {"type": "object", "properties": {}}
    assert parse({"tools": [fn()]})[0].key == "get_weather"


def errmsg(obj_or_bytes, path="tools.json"):
    data = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    with pytest.raises(CatalogImportError) as info:
        parse_openai_tools(data, path)
    return info.value


def test_duplicate_keys_name_both_records():
    e = errmsg([fn(), fn("other"), fn()])
    assert (e.record, e.field) == (3, "key") and "also record 1" in str(e) and str(e).startswith("tools.json: record 3")


def test_missing_name():
    e = errmsg([fn(), {"type": "function", "function": {"description": "x"}}])
    assert (e.record, e.field, e.message) == (2, "function.name", "missing")


def test_non_object_parameters():
    bad = fn()
    bad["function"]["parameters"] = ["city"]
    e = errmsg([bad])
    assert (e.record, e.field) == (1, "function.parameters") and "JSON object" in e.message
    bad["function"]["parameters"] = {"type": "string"}
    assert errmsg([bad]).field == "function.parameters.type"


def test_required_must_name_properties():
    bad = fn()
    bad["function"]["parameters"]["required"] = ["town"]
    assert errmsg([bad]).field == "function.parameters.required"


def test_non_utf8_names_the_offset():
    e = errmsg(b'[{"name": "caf\xe9"}]')
    assert "not UTF-8" in str(e) and "offset 14" in str(e)


def test_five_megabyte_description():
    bad = fn()
    bad["function"]["description"] = "x" * 5_000_000
    e = errmsg([bad])
    assert (e.record, e.field) == (1, "function.description") and "5,000,000 characters" in e.message


def test_empty_file_and_empty_list_and_bad_json():
    assert errmsg(b"  \n").message == "file is empty"
    assert "empty" in errmsg(b"[]").message
    assert "invalid JSON at line 1" in errmsg(b"[{]").message


def test_nul_in_name():
    assert "NUL" in errmsg([fn("bad\x00name")]).message


def test_round_trip_through_export(tmp_path):
    tools = parse([fn(key="w1", category="Weather"), fn("convert_units")])
    text = export_openai_tools(tools)
    path = tmp_path / "out.json"
    path.write_text(text)
    assert load_openai_tools(path, source="tools.json") == tuple(
        t.__class__(**{**t.__dict__, "source": "tools.json"}) for t in tools)
