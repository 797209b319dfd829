import pytest

from core.importers.openai_tools import load_openai_tools, parse_openai_tools
from tests.core.importers.helpers import check_error, dumps, error_of

WEATHER_PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def wrapped(name="get_weather", description="Weather now", parameters=None, **top):
    fn = {"name": name, "description": description, "parameters": parameters or WEATHER_PARAMS}
    return {"type": "function", "function": fn, **top}


def parse(value, path="tools.json", source=""):
    return parse_openai_tools(dumps(value), path, source)


def fails(value, path="tools.json"):
    return error_of(parse_openai_tools, value if isinstance(value, bytes | str) else dumps(value), path)


# --- accepted input ---------------------------------------------------------------------------

def test_wrapped_entry_with_key_category_and_extras():
    (tool,) = parse([wrapped(key="w1", category="Weather", vendor="acme")], source="weather.json")
    assert (tool.key, tool.name, tool.description, tool.category, tool.source) == (
        "w1", "get_weather", "Weather now", "Weather", "weather.json")
    assert tool.parameters == WEATHER_PARAMS and tool.required == ("city",)
    assert tool.extra == {"vendor": "acme"}


def test_key_defaults_to_name():
    assert parse([wrapped()])[0].key == "get_weather"


def test_bare_functions_and_mixed_list():
    tools = parse([{"name": "convert", "description": "Convert units", "strict": True}, wrapped()])
    assert [t.key for t in tools] == ["convert", "get_weather"]
    assert tools[0].extra == {"strict": True}


def test_function_level_extras_are_kept_with_a_prefix():
    entry = wrapped()
    entry["function"]["strict"] = True
    assert parse([entry])[0].extra == {"function.strict": True}


def test_tools_object_and_single_entry():
    assert [t.key for t in parse({"tools": [wrapped()]})] == ["get_weather"]
    assert [t.key for t in parse(wrapped())] == ["get_weather"]


def test_missing_parameters_and_description_get_defaults():
    (tool,) = parse([{"type": "function", "function": {"name": "ping"}}])
    assert (tool.description, tool.parameters) == ("", {"type": "object", "properties": {}})


def test_schema_without_type_is_taken_as_object():
    (tool,) = parse([{"name": "f", "parameters": {"properties": {"a": {}}}}])
    assert tool.parameters == {"type": "object", "properties": {"a": {}}}


def test_names_and_descriptions_are_stripped():
    (tool,) = parse([{"name": "  ping \n", "description": "  Check. "}])
    assert (tool.key, tool.name, tool.description) == ("ping", "ping", "Check.")


def test_load_from_file_uses_the_file_name_as_source(tmp_path):
    path = tmp_path / "tools.json"
    path.write_bytes(dumps([wrapped()]))
    assert load_openai_tools(path)[0].source == "tools.json"
    assert load_openai_tools(path, source="mine")[0].source == "mine"


# --- refused input ----------------------------------------------------------------------------

def test_missing_name():
    err = fails([wrapped(), {"type": "function", "function": {"description": "x"}}])
    check_error(err, "tools.json", 2, "function.name")
    assert str(err) == "tools.json: record 2: field 'function.name': missing"


def test_blank_name():
    check_error(fails([wrapped(name="   ")]), "tools.json", 1, "function.name", "empty")


def test_name_not_a_string():
    check_error(fails([wrapped(name=7)]), "tools.json", 1, "function.name", "string")


def test_bare_missing_name_names_the_bare_field():
    check_error(fails([{"description": "x"}]), "tools.json", 1, "name", "missing")


def test_name_with_nul():
    check_error(fails([wrapped(name="bad\x00name")]), "tools.json", 1, "function.name", "NUL")


def test_description_with_nul():
    check_error(fails([wrapped(description="a\x00b")]), "tools.json", 1, "function.description", "NUL")


def test_nul_deep_inside_parameters():
    params = {"type": "object", "properties": {"city": {"type": "string", "description": "x\x00"}}}
    check_error(fails([wrapped(parameters=params)]), "tools.json", 1,
                "function.parameters.properties.city.description", "NUL")


def test_unpaired_surrogate():
    err = fails(b'[{"name": "a\\ud800"}]')
    check_error(err, "tools.json", 1, "name", "surrogate")


def test_description_not_a_string():
    check_error(fails([wrapped(description=["x"])]), "tools.json", 1, "function.description", "string")


def test_five_megabyte_description():
    err = fails([wrapped(), wrapped("other", description="x" * 5_000_000)])
    check_error(err, "tools.json", 2, "function.description")
    assert err.message == "description is 5,000,000 characters; limit is 100,000"


def test_parameters_not_an_object():
    check_error(fails([wrapped(parameters=["city"])]), "tools.json", 1, "function.parameters", "JSON object")


def test_parameters_of_non_object_type():
    err = fails([wrapped(parameters={"type": "string"})])
    check_error(err, "tools.json", 1, "function.parameters", "'string'")


def test_properties_not_an_object():
    err = fails([wrapped(parameters={"type": "object", "properties": ["city"]})])
    check_error(err, "tools.json", 1, "function.parameters.properties", "object")


def test_required_not_a_list_of_strings():
    for required in ("city", [1], {"city": True}):
        err = fails([wrapped(parameters={**WEATHER_PARAMS, "required": required})])
        check_error(err, "tools.json", 1, "function.parameters.required", "list")


def test_required_names_an_unknown_property():
    err = fails([wrapped(parameters={**WEATHER_PARAMS, "required": ["town"]})])
    check_error(err, "tools.json", 1, "function.parameters.required", "'town' is not a property")


def test_nan_in_parameters():
    err = fails(b'[{"name": "f", "parameters": {"properties": {"n": {"default": NaN}}}}]')
    check_error(err, "tools.json", 1, "parameters.properties.n.default", "NaN")


def test_parameters_nested_too_deep():
    deep: dict = {}
    node = deep
    for _ in range(80):
        node["items"] = {}
        node = node["items"]
    err = fails([wrapped(parameters={"type": "object", "properties": {"a": deep}})])
    assert (err.record, "levels deep" in err.message) == (1, True)
    assert err.field.startswith("function.parameters.properties.a.items")


def test_duplicate_keys_name_both_records():
    err = fails([wrapped(), wrapped("other"), wrapped()])
    check_error(err, "tools.json", 3, "key", "'get_weather'", "also record 1")


def test_duplicate_explicit_keys():
    err = fails([wrapped("a", key="k"), wrapped("b", key="k")])
    check_error(err, "tools.json", 2, "key", "also record 1")


def test_blank_or_non_string_key():
    check_error(fails([wrapped(key=" ")]), "tools.json", 1, "key", "empty")
    check_error(fails([wrapped(key=3)]), "tools.json", 1, "key", "string")


def test_category_not_a_string():
    check_error(fails([wrapped(category=["a"])]), "tools.json", 1, "category", "string")


def test_entry_not_an_object():
    check_error(fails([wrapped(), "get_time"]), "tools.json", 2, None, "must be an object")


def test_function_not_an_object():
    check_error(fails([{"type": "function", "function": "f"}]), "tools.json", 1, "function", "object")


def test_type_other_than_function():
    check_error(fails([wrapped(type="retrieval")]), "tools.json", 1, "type", "'retrieval'")


def test_top_level_not_a_list():
    check_error(fails(42), "tools.json", None, None, "list")
    check_error(fails({"tools": "all"}), "tools.json", None, "tools", "list")


def test_empty_list():
    check_error(fails([]), "tools.json", None, None, "no tools")


def test_empty_file():
    check_error(fails(b""), "tools.json", None, None)
    assert fails(b" \n\t ").message == "file is empty"


def test_invalid_json_has_line_and_column():
    err = fails(b'[\n  {"name": "a",}\n]')
    check_error(err, "tools.json", None, None, "invalid JSON at line 2, column 16")


def test_non_utf8_names_the_byte_offset():
    check_error(fails(b'[{"name": "caf\xe9"}]'), "tools.json", None, None, "not UTF-8", "byte offset 14")


def test_oversized_file(monkeypatch):
    from core.importers import _common

    monkeypatch.setattr(_common, "MAX_FILE_BYTES", 100)
    check_error(fails(dumps([wrapped()] * 2)), "tools.json", None, None, "limit is 100")


def test_missing_file_is_an_import_error(tmp_path):
    err = error_of(load_openai_tools, tmp_path / "nope.json")
    check_error(err, str(tmp_path / "nope.json"), None, None, "cannot read")


@pytest.mark.parametrize("path", ["tools.json", "<upload>", "dir/upload 1.json"])
def test_path_is_reported_as_given(path):
    assert fails([], path=path).path == path
