"""OpenAPI 3.x (JSON or YAML): one tool per operation.

A tool's parameters merge the operation's path, query and header parameters with the
properties of its request body; local ``$ref``s are inlined. ``extra`` keeps what an HTTP
executor needs to call the operation: ``method``, ``path``, ``server`` (the first server
URL), ``parameter_in`` (where each argument goes: path/query/header/body) and, when there
is a body, ``body_media_type``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from core.importers._common import (
    MAX_DEPTH,
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    MAX_VALUES,
    check_unique,
    decode,
    guarded,
    json_value,
    kind,
    load_json_or_yaml,
    read_file,
    text_field,
)
from core.importers.errors import CatalogImportError
from core.models import Tool

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_LOCATIONS = ("path", "query", "header", "cookie")
# The OpenAPI spec says these header parameters are to be ignored: the client sets them itself.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_VERSION = re.compile(r"3(\.\d+)*([-+].*)?$")
_INLINE_BUDGET = MAX_VALUES // 4
_INLINE_DEPTH = MAX_DEPTH // 2


def slug(method: str, route: str) -> str:
    """``get_pets_petId`` for ``GET /pets/{petId}``: a stable name for operations without an id."""
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{method.lower()} {route}").strip("_")


class _Refs:
    """Inlines local ``$ref``s for one operation.

    A reference met again inside its own expansion becomes a short note (cycle guard).
    Shared references can grow exponentially when inlined and long chains nest deeply, so
    past ``_INLINE_BUDGET`` values or ``_INLINE_DEPTH`` levels further references become
    notes too; what is still too large or deep without any $ref (a YAML alias bomb) is refused.
    """

    def __init__(self, doc: dict[str, Any], path: str, record: int, field: str) -> None:
        self.doc, self.path, self.record, self.field = doc, path, record, field
        self.produced = 0

    def error(self, message: str, field: str | None = None) -> CatalogImportError:
        return CatalogImportError(self.path, message, record=self.record, field=field or self.field)

    def resolve(self, node: Any, field: str, depth: int = 0, seen: tuple[str, ...] = ()) -> Any:
        self.produced += 1
        if self.produced > MAX_VALUES:
            raise self.error(f"holds more than {MAX_VALUES:,} values once $refs are inlined")
        if depth > MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} levels deep once $refs are inlined", field)
        if isinstance(node, list):
            return [self.resolve(v, f"{field}[{i}]", depth + 1, seen) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self.lookup(ref, field)
            if ref in seen or self.produced > _INLINE_BUDGET or depth > _INLINE_DEPTH:
                why = "recursive reference to" if ref in seen else "not inlined, see"
                note: dict[str, Any] = {"description": f"({why} {ref})"}
                if isinstance(target, dict) and isinstance(target.get("type"), str):
                    note["type"] = target["type"]
                return note
            resolved = self.resolve(target, field, depth + 1, (*seen, ref))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if siblings and isinstance(resolved, dict):
                # OpenAPI 3.1 lets a $ref carry siblings (typically a description); they win.
                resolved = {**resolved, **self.resolve(siblings, field, depth + 1, seen)}
            return resolved
        return {k: self.resolve(v, f"{field}.{k}", depth + 1, seen) for k, v in node.items()}

    def lookup(self, ref: str, field: str) -> Any:
        if not ref.startswith("#/"):
            raise self.error(f"$ref {ref!r} is not local; bundle the spec into one file first", field)
        node: Any = self.doc
        for raw in ref[2:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise self.error(f"$ref {ref!r} points nowhere", field)
        return node


def _media_schema(content: Any) -> tuple[str, Any] | None:
    """The (media type, schema) to use from a ``content`` map: JSON first, then any with a schema."""
    if not isinstance(content, dict):
        return None
    media_types = [m for m, v in content.items() if isinstance(v, dict) and v.get("schema") is not None]
    json_types = [m for m in media_types if m.split(";")[0].strip().lower() == "application/json"]
    json_types += [m for m in media_types if "json" in m.lower() and m not in json_types]
    candidates = json_types + media_types
    return (candidates[0], content[candidates[0]]["schema"]) if candidates else None


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """Fold one level of ``allOf`` into ``properties``/``required``: a common body shape."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or isinstance(schema.get("properties"), dict):
        return schema
    props: dict[str, Any] = {}
    required: list[Any] = []
    for part in parts:
        if isinstance(part, dict):
            if isinstance(part.get("properties"), dict):
                props.update(part["properties"])
            if isinstance(part.get("required"), list):
                required += part["required"]
    if not props:
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    return {**merged, "type": "object", "properties": props, "required": required}


def _description(op: dict[str, Any], path: str, record: int, field: str) -> str:
    summary = text_field(op.get("summary"), path, record, f"{field}.summary", required=False)
    details = text_field(op.get("description"), path, record, f"{field}.description", required=False)
    if not summary or details.startswith(summary):
        text = details
    elif not details:
        text = summary
    else:
        text = summary + ("" if summary[-1] in ".!?:" else ".") + " " + details
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise CatalogImportError(path, f"description is {len(text):,} characters; limit is {MAX_DESCRIPTION_CHARS:,}",
                                 record=record, field=f"{field}.description")
    return text


def _server(*holders: Any) -> Any:
    for holder in holders:
        servers = holder.get("servers") if isinstance(holder, dict) else None
        if isinstance(servers, list) and servers:
            return servers[0].get("url") if isinstance(servers[0], dict) else servers[0]
    return None


def _operation(doc: dict[str, Any], route: str, method: str, item: dict[str, Any], op: dict[str, Any],
               path: str, record: int, source: str) -> Tool:
    field = f"paths.{route}.{method}"
    refs = _Refs(doc, path, record, field)
    if op.get("operationId") is None:
        name = slug(method, route)
    else:
        name = text_field(op["operationId"], path, record, f"{field}.operationId", required=True,
                          limit=MAX_NAME_CHARS)
    description = _description(op, path, record, field)

    shared, own = item.get("parameters"), op.get("parameters")
    for value, where in ((shared, f"paths.{route}.parameters"), (own, f"{field}.parameters")):
        if value is not None and not isinstance(value, list):
            raise CatalogImportError(path, f"must be a list, not {kind(value)}", record=record, field=where)
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for where, raw_list in ((f"paths.{route}.parameters", shared or []), (f"{field}.parameters", own or [])):
        for i, raw in enumerate(raw_list):
            pfield = f"{where}[{i}]"
            p = refs.resolve(raw, pfield)
            if not isinstance(p, dict):
                raise CatalogImportError(path, f"must be an object, not {kind(p)}", record=record, field=pfield)
            pname = text_field(p.get("name"), path, record, f"{pfield}.name", required=True, limit=MAX_NAME_CHARS)
            loc = p.get("in")
            if loc not in _LOCATIONS:
                raise CatalogImportError(path, f"must be one of {', '.join(_LOCATIONS)}, not {loc!r}",
                                         record=record, field=f"{pfield}.in")
            # An operation's parameter overrides the path item's one with the same name and location.
            merged[(pname, loc)] = (p, pfield)

    properties: dict[str, Any] = {}
    required: list[str] = []
    located: dict[str, str] = {}
    for (pname, loc), (p, pfield) in merged.items():
        if loc == "cookie" or (loc == "header" and pname.lower() in _IGNORED_HEADERS):
            continue
        schema = p.get("schema")
        if schema is None:
            found = _media_schema(p.get("content"))
            schema = found[1] if found else {"type": "string"}
        if not isinstance(schema, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(schema)}", record=record,
                                     field=f"{pfield}.schema")
        schema = dict(schema)
        if isinstance(p.get("description"), str) and p["description"].strip():
            schema.setdefault("description", p["description"].strip())
        properties[pname] = schema
        located[pname] = loc
        if p.get("required") is True or loc == "path":
            required.append(pname)

    extra: dict[str, Any] = {"method": method.upper(), "path": route}
    if op.get("requestBody") is not None:
        bfield = f"{field}.requestBody"
        body = refs.resolve(op["requestBody"], bfield)
        if not isinstance(body, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(body)}", record=record, field=bfield)
        found = _media_schema(body.get("content"))
        if found is not None:
            media, schema = found
            extra["body_media_type"] = media
            if isinstance(schema, dict):
                schema = _merge_all_of(schema)
            if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
                for pname, pschema in schema["properties"].items():
                    # A parameter and a body property of the same name are usually the same value
                    # (PUT /users/{id} with an id in the body); the parameter is kept.
                    if pname not in properties:
                        properties[pname] = pschema
                        located[pname] = "body"
                body_required = schema.get("required")
                # requestBody.required defaults to false in the spec, yet most specs leave it out even
                # for mandatory bodies; only an explicit false makes the body's required list optional.
                if body.get("required") is not False and isinstance(body_required, list):
                    required += [r for r in body_required if isinstance(r, str) and located.get(r) == "body"]
            else:
                properties.setdefault("body", schema)
                located.setdefault("body", "body")
                if body.get("required") is True:
                    required.append("body")

    tags = op.get("tags")
    category = ""
    if isinstance(tags, list) and tags:
        category = text_field(tags[0], path, record, f"{field}.tags[0]", required=False, limit=MAX_NAME_CHARS)
    elif tags is not None and not isinstance(tags, list):
        raise CatalogImportError(path, f"must be a list, not {kind(tags)}", record=record, field=f"{field}.tags")

    server = _server(op, item, doc)
    extra["server"] = text_field(server, path, record, "servers[0].url", required=False, limit=2_000)
    extra["parameter_in"] = located
    parameters = {"type": "object", "properties": properties, "required": list(dict.fromkeys(required))}
    return Tool(key=name, name=name, description=description,
                parameters=json_value(parameters, path, record, f"{field}.parameters"),
                category=category, source=source, extra=json_value(extra, path, record, "extra"))


def _check_version(doc: dict[str, Any], path: str) -> None:
    version = doc.get("openapi")
    if version is None:
        if "swagger" in doc:
            raise CatalogImportError(path, "Swagger 2.0 is not supported; convert it to OpenAPI 3 first",
                                     field="swagger")
        raise CatalogImportError(path, "missing (not an OpenAPI document?)", field="openapi")
    if not isinstance(version, str | int | float) or isinstance(version, bool) or not _VERSION.match(str(version)):
        raise CatalogImportError(path, f"version {version!r} is not 3.x", field="openapi")


def tools_from_document(doc: Any, path: str, source: str = "") -> tuple[Tool, ...]:
    """Tools from an already-parsed document (used by format detection)."""
    if not isinstance(doc, dict):
        raise CatalogImportError(path, f"an OpenAPI document must be an object, not {kind(doc)}")
    _check_version(doc, path)
    paths = doc.get("paths")
    if paths is None:
        raise CatalogImportError(path, "missing", field="paths")
    if not isinstance(paths, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(paths)}", field="paths")
    tools: list[Tool] = []
    for route, item in paths.items():
        if route.startswith("x-"):
            continue
        if isinstance(item, dict) and isinstance(item.get("$ref"), str):
            item = _Refs(doc, path, len(tools) + 1, f"paths.{route}").lookup(item["$ref"], f"paths.{route}")
        if not isinstance(item, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(item)}", field=f"paths.{route}")
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            if not isinstance(op, dict):
                raise CatalogImportError(path, f"must be an object, not {kind(op)}", record=len(tools) + 1,
                                         field=f"paths.{route}.{method}")
            tools.append(_operation(doc, route, method, item, op, path, len(tools) + 1, source))
    if not tools:
        raise CatalogImportError(path, "no operations found", field="paths")
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path, "operationId")
    return tuple(tools)


def parse_openapi(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    """One tool per operation of an OpenAPI 3.x document (JSON, or YAML with PyYAML installed)."""
    with guarded(path):
        return tools_from_document(load_json_or_yaml(decode(data, path), path), path, source)


def load_openapi(path: str | Path, source: str | None = None) -> tuple[Tool, ...]:
    """Read and parse an OpenAPI file; ``source`` defaults to the file's name."""
    return parse_openapi(read_file(path), str(path), Path(path).name if source is None else source)
