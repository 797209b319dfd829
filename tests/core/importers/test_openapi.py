import json
import sys

import pytest

from core.importers.openapi import load_openapi, parse_openapi, slug
from tests.core.importers.helpers import check_error, dumps, error_of

PETSTORE = {
    "openapi": "3.0.3",
    "servers": [{"url": "https://pets.example.test/v1"}, {"url": "https://backup.example.test"}],
    "components": {
        "schemas": {
            "Pet": {"type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "tag": {"$ref": "#/components/schemas/Tag"}}},
            "Tag": {"type": "object", "properties": {"label": {"type": "string"},
                                                     "parent": {"$ref": "#/components/schemas/Tag"}}},
        },
        "parameters": {"Limit": {"name": "limit", "in": "query", "description": "Page size",
                                 "schema": {"type": "integer"}}},
    },
    "paths": {
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "schema": {"type": "integer"}}],
            "get": {"summary": "Show a pet", "description": "Returns one pet.", "tags": ["pets", "read"],
                    "parameters": [{"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                                   {"name": "X-Trace", "in": "header", "required": True, "schema": {"type": "string"}},
                                   {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                                   {"name": "session", "in": "cookie", "schema": {"type": "string"}}]},
        },
        "/pets": {
            "get": {"operationId": "listPets", "parameters": [{"$ref": "#/components/parameters/Limit"}]},
            "post": {"operationId": "createPet", "summary": "Add a pet", "requestBody": {
                "required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}},
        },
        "x-internal": {"note": "extensions are not paths"},
    },
}


def parse(doc, path="pets.json"):
    return {t.key: t for t in parse_openapi(dumps(doc) if not isinstance(doc, str) else doc, path)}


def fails(doc, path="api.json"):
    return error_of(parse_openapi, doc if isinstance(doc, str | bytes) else dumps(doc), path)


def doc_with(operation, route="/a", method="get", **top):
    return {"openapi": "3.1.0", "paths": {route: {method: operation}}, **top}


# --- accepted input ---------------------------------------------------------------------------

def test_one_tool_per_operation_in_document_order():
    assert list(parse(PETSTORE)) == ["get_pets_petId", "listPets", "createPet"]


def test_parameters_from_path_query_and_header():
    show = parse(PETSTORE)["get_pets_petId"]
    assert show.parameter_names == ("petId", "verbose", "X-Trace")  # Accept and cookies are left out
    assert show.required == ("petId", "X-Trace")  # path parameters are always required
    assert show.description == "Show a pet. Returns one pet."
    assert show.category == "pets"
    assert show.extra == {"method": "GET", "path": "/pets/{petId}", "server": "https://pets.example.test/v1",
                          "parameter_in": {"petId": "path", "verbose": "query", "X-Trace": "header"}}


def test_parameter_ref_is_resolved_and_its_description_kept():
    limit = parse(PETSTORE)["listPets"].parameters["properties"]["limit"]
    assert limit == {"type": "integer", "description": "Page size"}


def test_request_body_properties_and_recursive_ref():
    create = parse(PETSTORE)["createPet"]
    assert create.parameter_names == ("name", "tag") and create.required == ("name",)
    parent = create.parameters["properties"]["tag"]["properties"]["parent"]
    assert parent == {"type": "object", "description": "(recursive reference to #/components/schemas/Tag)"}
    assert create.extra["body_media_type"] == "application/json"
    assert create.extra["parameter_in"] == {"name": "body", "tag": "body"}
    json.dumps(create.parameters)


def test_yaml_document():
    text = ("openapi: 3.0.0\n"
            "paths:\n"
            "  /ping:\n"
            "    get:\n"
            "      operationId: ping\n"
            "      summary: Health check\n"
            "      parameters:\n"
            "        - {name: since, in: query, schema: {type: string, example: 2024-01-01}}\n")
    (tool,) = parse_openapi(text, "api.yaml", source="api.yaml")
    assert (tool.key, tool.description, tool.source) == ("ping", "Health check", "api.yaml")
    assert tool.parameters["properties"]["since"]["example"] == "2024-01-01"


def test_yaml_is_recognised_without_a_yaml_suffix():
    assert [t.key for t in parse_openapi("openapi: '3.0.0'\npaths: {/a: {get: {}}}\n", "<upload>")] == ["get_a"]


def test_slug():
    assert slug("get", "/pets/{petId}") == "get_pets_petId"
    assert slug("DELETE", "/v1/users/{id}/keys.json") == "delete_v1_users_id_keys_json"


def test_operation_parameter_overrides_the_path_level_one():
    doc = {"openapi": "3.0.0", "paths": {"/a/{id}": {
        "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}],
        "get": {"parameters": [{"name": "id", "in": "path", "schema": {"type": "integer"}}]}}}}
    assert parse(doc)["get_a_id"].parameters["properties"]["id"] == {"type": "integer"}


def test_body_all_of_and_parameter_clash():
    body = {"content": {"application/json": {"schema": {"allOf": [
        {"type": "object", "properties": {"id": {"type": "string"}, "a": {"type": "string"}}, "required": ["id"]},
        {"properties": {"b": {"type": "number"}}, "required": ["b"]}]}}}}
    op = {"operationId": "put", "parameters": [{"name": "id", "in": "path", "schema": {"type": "integer"}}],
          "requestBody": body}
    tool = parse(doc_with(op, route="/x/{id}", method="put"))["put"]
    assert tool.parameters["properties"]["id"] == {"type": "integer"}  # the path parameter wins
    assert tool.parameter_names == ("id", "a", "b") and tool.required == ("id", "b")


def test_non_object_body_becomes_one_body_parameter():
    body = {"required": True, "content": {"text/plain": {"schema": {"type": "string"}}}}
    tool = parse(doc_with({"operationId": "echo", "requestBody": body}, method="post"))["echo"]
    assert tool.parameters["properties"] == {"body": {"type": "string"}} and tool.required == ("body",)
    assert tool.extra["body_media_type"] == "text/plain"


def test_optional_body_does_not_make_its_fields_required():
    body = {"required": False, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"a": {}}, "required": ["a"]}}}}
    assert parse(doc_with({"operationId": "f", "requestBody": body}, method="post"))["f"].required == ()


def test_server_of_the_operation_wins():
    op = {"operationId": "f", "servers": [{"url": "https://op.example.test"}]}
    tool = parse(doc_with(op, servers=[{"url": "https://doc.example.test"}]))["f"]
    assert tool.extra["server"] == "https://op.example.test"
    assert parse(doc_with({"operationId": "f"}))["f"].extra["server"] == ""


def test_ref_siblings_override_the_target():
    doc = doc_with({"operationId": "f", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/S", "description": "mine"}}]},
        components={"schemas": {"S": {"type": "string", "description": "theirs"}}})
    assert parse(doc)["f"].parameters["properties"]["q"] == {"type": "string", "description": "mine"}


def test_exponential_refs_stop_being_inlined():
    # Each level references the next one twice: inlining everything would need 2**30 copies.
    schemas = {f"L{i}": {"type": "object", "properties": {"a": {"$ref": f"#/components/schemas/L{i + 1}"},
                                                          "b": {"$ref": f"#/components/schemas/L{i + 1}"}}}
               for i in range(30)}
    schemas["L30"] = {"type": "string"}
    doc = doc_with({"operationId": "f", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/L0"}}]},
        components={"schemas": schemas})
    text = json.dumps(parse(doc)["f"].parameters)
    assert "not inlined, see #/components/schemas/" in text and len(text) < 10_000_000


def test_load_from_file(tmp_path):
    path = tmp_path / "pets.json"
    path.write_bytes(dumps(PETSTORE))
    assert {t.source for t in load_openapi(path)} == {"pets.json"}


# --- refused input ----------------------------------------------------------------------------

def test_missing_openapi_field():
    err = fails({"paths": {"/a": {"get": {}}}})
    check_error(err, "api.json", None, "openapi", "missing")


def test_swagger_2():
    check_error(fails({"swagger": "2.0", "paths": {}}), "api.json", None, "swagger", "Swagger 2.0")


@pytest.mark.parametrize("version", ["2.0", "4.0.0", "30.1", True, None, ["3.0"]])
def test_version_not_3(version):
    doc = {"openapi": version, "paths": {"/a": {"get": {}}}}
    check_error(fails(doc), "api.json", None, "openapi")


def test_missing_paths():
    check_error(fails({"openapi": "3.0.0"}), "api.json", None, "paths", "missing")


def test_paths_not_an_object():
    check_error(fails({"openapi": "3.0.0", "paths": ["/a"]}), "api.json", None, "paths", "object")


def test_no_operations():
    check_error(fails({"openapi": "3.0.0", "paths": {}}), "api.json", None, "paths", "no operations")
    check_error(fails({"openapi": "3.0.0", "paths": {"/a": {"summary": "x"}}}), "api.json", None, "paths",
                "no operations")


def test_document_not_an_object():
    check_error(fails("- just\n- a list\n", "api.yaml"), "api.yaml", None, None, "must be an object")


def test_path_item_not_an_object():
    check_error(fails({"openapi": "3.0.0", "paths": {"/a": "get"}}), "api.json", None, "paths./a", "object")


def test_operation_not_an_object():
    check_error(fails(doc_with(["x"])), "api.json", 1, "paths./a.get", "object")


def test_operation_id_not_a_string():
    check_error(fails(doc_with({"operationId": 12})), "api.json", 1, "paths./a.get.operationId", "string")


def test_duplicate_operation_ids_name_both_records():
    doc = {"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "x"}, "post": {}},
                                         "/b": {"get": {"operationId": "x"}}}}
    check_error(fails(doc), "api.json", 3, "operationId", "'x'", "also record 1")


def test_long_description():
    err = fails(doc_with({"summary": "s" * 60_000, "description": "d" * 60_000}))
    check_error(err, "api.json", 1, "paths./a.get.description", "description is 120,002 characters")


def test_parameter_without_a_name():
    err = fails(doc_with({"parameters": [{"in": "query"}]}))
    check_error(err, "api.json", 1, "paths./a.get.parameters[0].name", "missing")


def test_parameter_with_a_bad_location():
    err = fails(doc_with({"parameters": [{"name": "q", "in": "body"}]}))
    check_error(err, "api.json", 1, "paths./a.get.parameters[0].in", "'body'")


def test_parameters_not_a_list():
    check_error(fails(doc_with({"parameters": {"q": 1}})), "api.json", 1, "paths./a.get.parameters", "list")


def test_parameter_schema_not_an_object():
    err = fails(doc_with({"parameters": [{"name": "q", "in": "query", "schema": "string"}]}))
    check_error(err, "api.json", 1, "paths./a.get.parameters[0].schema", "object")


def test_request_body_not_an_object():
    check_error(fails(doc_with({"requestBody": "json"}, method="post")), "api.json", 1,
                "paths./a.post.requestBody", "object")


def test_dangling_ref():
    err = fails(doc_with({"parameters": [{"$ref": "#/components/parameters/Nope"}]}))
    check_error(err, "api.json", 1, "paths./a.get.parameters[0]", "points nowhere")


def test_remote_ref():
    err = fails(doc_with({"parameters": [{"$ref": "common.yaml#/Limit"}]}))
    check_error(err, "api.json", 1, "paths./a.get.parameters[0]", "not local", "bundle")


def test_tags_not_a_list():
    check_error(fails(doc_with({"tags": "pets"})), "api.json", 1, "paths./a.get.tags", "list")


def test_nul_in_summary():
    check_error(fails(doc_with({"summary": "a\x00"})), "api.json", 1, "paths./a.get.summary", "NUL")


def test_yaml_syntax_error_has_line():
    err = fails("openapi: 3.0.0\npaths:\n  /a: [\n", "api.yaml")
    check_error(err, "api.yaml", None, None, "invalid YAML at line")


def test_yaml_alias_bomb_is_refused():
    lines = ["openapi: 3.0.0", "x0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"]
    lines += [f"x{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 12)]
    lines += ["paths:", "  /a:", "    get:", "      parameters:",
              "        - {name: q, in: query, schema: {enum: *a11}}"]
    err = fails("\n".join(lines) + "\n", "api.yaml")
    check_error(err, "api.yaml", 1, err.field, "more than 100,000 values")


def test_yaml_without_pyyaml(monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)
    check_error(fails("openapi: 3.0.0\n", "api.yaml"), "api.yaml", None, None, "PyYAML")
    assert parse(doc_with({"operationId": "f"}))  # JSON still works without it
