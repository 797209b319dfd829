import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core.importers.export import export_openai_tools
from core.importers.mcp_saved import parse_mcp_tools_list
from core.importers.openai_tools import parse_openai_tools
from core.importers.openapi import parse_openapi
from core.models import Tool
from tests.core.importers.helpers import dumps


def round_trip(tools, source="src"):
    return parse_openai_tools(export_openai_tools(tools, "atlas"), "export.json", source)


def test_export_is_a_pretty_json_list():
    tools = parse_openai_tools(dumps([{"name": "ping", "description": "Pïng"}]), "t.json")
    text = export_openai_tools(tools, "atlas")
    assert text.endswith("]\n") and "\n  {" in text and "Pïng" in text
    assert json.loads(text) == [{"type": "function", "key": "ping", "function": {
        "name": "ping", "description": "Pïng", "parameters": {"type": "object", "properties": {}}}}]


def test_openai_format_carries_only_what_the_api_reads():
    tool = Tool(key="k1", name="get_weather", description="Weather now", category="Weather",
                parameters={"type": "object", "properties": {"city": {"type": "string"}}},
                extra={"method": "get", "mcp_cwd": "/home/someone/servers", "vendor": {"id": 3}})
    (entry,) = json.loads(export_openai_tools([tool]))
    assert entry == {"type": "function", "function": {
        "name": "get_weather", "description": "Weather now",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}


def test_atlas_format_never_carries_launch_fields_or_paths():
    """A store written before launch fields were dropped at import still exports none of them."""
    tool = Tool(key="k1", name="run_it", extra={"mcp_command": "sh -c evil", "cwd": "/home/someone",
                                                "python": {"path": "/home/someone/tool.py", "function": "f"},
                                                "method": "post"})
    (entry,) = json.loads(export_openai_tools([tool], "atlas"))
    assert entry["method"] == "post" and entry["python"] == {"function": "f"}
    assert "/home/someone" not in json.dumps(entry) and "mcp_command" not in entry


def test_unknown_format_names_the_valid_ones():
    import pytest

    with pytest.raises(ValueError, match="openai, atlas"):
        export_openai_tools([], "yaml")


def test_round_trip_openai_tools_with_extras():
    entries = [
        {"type": "function", "key": "w1", "category": "Weather", "vendor": {"id": 3},
         "function": {"name": "get_weather", "description": "Weather now", "strict": True,
                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                     "required": ["city"], "additionalProperties": False}}},
        {"name": "convert_units"},
    ]
    tools = parse_openai_tools(dumps(entries), "t.json", "src")
    assert round_trip(tools) == tools


def test_round_trip_mcp_and_openapi_tools():
    mcp = parse_mcp_tools_list(dumps({"tools": [{"name": "add", "annotations": {"readOnlyHint": True},
                                                  "inputSchema": {"type": "object"}}]}), "m.json", "src")
    api = parse_openapi(dumps({"openapi": "3.0.0", "servers": [{"url": "https://x.test"}], "paths": {
        "/a/{id}": {"get": {"tags": ["t"], "parameters": [{"name": "id", "in": "path"}]}}}}), "o.json", "src")
    for tools in (mcp, api):
        assert round_trip(tools) == tools


def test_extras_cannot_override_the_tool():
    tool = Tool(key="k", name="n", extra={"key": "other", "category": "sneaky", "type": "x", "ok": 1})
    (back,) = round_trip([tool], source="")
    assert (back.key, back.category, back.extra) == ("k", "", {"ok": 1})


def test_empty_catalog_exports_an_empty_list():
    assert json.loads(export_openai_tools([])) == []


names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12).filter(str.strip)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | names
entries = st.builds(
    lambda name, desc, props, req_count, category, extra: {
        "type": "function", "category": category, **extra,
        "function": {"name": name, "description": desc,
                     "parameters": {"type": "object", "properties": props, "required": list(props)[:req_count]}}},
    names, st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40),
    st.dictionaries(names, st.dictionaries(st.sampled_from(["type", "description", "enum"]), scalars, max_size=2),
                    max_size=4),
    st.integers(0, 4), st.one_of(st.just(""), names),
    st.dictionaries(names.filter(lambda k: k not in {"type", "function", "key", "category"}), scalars, max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(entries, min_size=1, max_size=5, unique_by=lambda e: e["function"]["name"].strip()))
def test_round_trip_property(entry_list):
    tools = parse_openai_tools(dumps(entry_list), "t.json", "src")
    assert round_trip(tools) == tools
