"""OpenAPI 3 documents: one tool per operation, parameters from path/query/header parameters
and a JSON request body, local ``$ref``s resolved."""

from __future__ import annotations

import re
from typing import Any

from core.importers._common import MAX_NAME_CHARS, check_unique, decode, load_json, text_field
from core.importers.errors import CatalogImportError
from core.models import Tool

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _load(text: str, path: str) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        return load_json(text, path)
    try:
        import yaml
    except ImportError:
        raise CatalogImportError(path, "YAML needs PyYAML: pip install pyyaml") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise CatalogImportError(path, f"invalid YAML{where}") from None
    except RecursionError:
        raise CatalogImportError(path, "YAML nested too deeply") from None


def _slug(method: str, route: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]+", "_", f"{method}_{route}")).strip("_")


class _Resolver:
    def __init__(self, doc: dict, path: str) -> None:
        self.doc = doc
        self.path = path

    def resolve(self, node: Any, seen: tuple[str, ...] = ()) -> Any:
        """Inline local ``#/…`` references; a cycle is cut at its second visit."""
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if ref in seen:
                    return {"description": f"(recursive reference to {ref})"}
                return self.resolve(self._lookup(ref), (*seen, ref))
            return {k: self.resolve(v, seen) for k, v in node.items()}
        if isinstance(node, list):
            return [self.resolve(v, seen) for v in node]
        return node

    def _lookup(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise CatalogImportError(self.path, f"only local references are supported, got {ref!r}", field="$ref")
        node: Any = self.doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise CatalogImportError(self.path, f"reference {ref!r} points nowhere", field="$ref")
            node = node[part]
        return node


def _operation_tool(res: _Resolver, route: str, method: str, op: dict, shared: list, server: str, path: str,
                    record: int, source: str) -> Tool:
    field = f"paths.{route}.{method}"
    name = op.get("operationId") or _slug(method, route)
    name = text_field(name, path, record, f"{field}.operationId", required=True, limit=MAX_NAME_CHARS)
    summary = text_field(op.get("summary"), path, record, f"{field}.summary", required=False)
    details = text_field(op.get("description"), path, record, f"{field}.description", required=False)
    description = " ".join(p for p in dict.fromkeys((summary, details)) if p)
    properties: dict[str, Any] = {}
    required: list[str] = []
    params = res.resolve(shared + list(op.get("parameters") or []))
    for i, p in enumerate(params):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            raise CatalogImportError(path, "parameter without a name", record=record, field=f"{field}.parameters[{i}]")
        if p.get("in") == "cookie":
            continue
        schema = dict(p.get("schema") or {"type": "string"})
        if p.get("description"):
            schema.setdefault("description", p["description"])
        properties[p["name"]] = schema
        if p.get("required") or p.get("in") == "path":
            required.append(p["name"])
    body = res.resolve(op.get("requestBody") or {})
    content = body.get("content") if isinstance(body, dict) else None
    if isinstance(content, dict):
        media = content.get("application/json") or next(iter(content.values()), {})
        schema = media.get("schema") if isinstance(media, dict) else None
        if isinstance(schema, dict):
            if isinstance(schema.get("properties"), dict):
                properties.update(schema["properties"])
                if body.get("required") is not False:
                    required.extend(r for r in schema.get("required") or [] if isinstance(r, str))
            else:
                properties["body"] = schema
                if body.get("required"):
                    required.append("body")
    tags = op.get("tags") or []
    category = str(tags[0]) if isinstance(tags, list) and tags else ""
    return Tool(
        key=name, name=name, description=description,
        parameters={"type": "object", "properties": properties, "required": list(dict.fromkeys(required))},
        category=category, source=source, extra={"method": method.upper(), "path": route, "server": server},
    )


def parse_openapi(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    doc = _load(decode(data, path), path)
    if not isinstance(doc, dict):
        raise CatalogImportError(path, "an OpenAPI document must be an object")
    version = doc.get("openapi")
    if version is None:
        what = "Swagger 2 is not supported; convert it to OpenAPI 3" if "swagger" in doc else "missing"
        raise CatalogImportError(path, what, field="openapi")
    if not str(version).startswith("3"):
        raise CatalogImportError(path, f"version {version!r} is not 3.x", field="openapi")
    paths = doc.get("paths")
    if not isinstance(paths, dict) or not paths:
        raise CatalogImportError(path, "missing or empty", field="paths")
    servers = doc.get("servers") or []
    server = servers[0].get("url", "") if isinstance(servers, list) and servers and isinstance(servers[0], dict) else ""
    res = _Resolver(doc, path)
    tools: list[Tool] = []
    for route, item in paths.items():
        if not isinstance(item, dict):
            raise CatalogImportError(path, "must be an object", field=f"paths.{route}")
        shared = list(item.get("parameters") or [])
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            if not isinstance(op, dict):
                raise CatalogImportError(path, "must be an object", field=f"paths.{route}.{method}")
            tools.append(_operation_tool(res, str(route), method, op, shared, str(server), path, len(tools) + 1, source))
    if not tools:
        raise CatalogImportError(path, "no operations found", field="paths")
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path, field="operationId")
    return tuple(tools)
