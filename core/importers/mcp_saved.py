"""A saved MCP ``tools/list`` result: ``{"tools": [...]}``, the full JSON-RPC response, or a bare list."""

from __future__ import annotations

from typing import Any

from core.importers._common import MAX_NAME_CHARS, check_schema, check_unique, decode, load_json, text_field
from core.importers.errors import CatalogImportError
from core.models import Tool


def _tool_list(doc: Any, path: str) -> list[Any]:
    if isinstance(doc, dict) and "result" in doc and isinstance(doc["result"], dict):
        doc = doc["result"]
    if isinstance(doc, dict) and "error" in doc and "tools" not in doc:
        raise CatalogImportError(path, "the saved response is a JSON-RPC error", field="error")
    if isinstance(doc, dict):
        doc = doc.get("tools")
    if not isinstance(doc, list):
        raise CatalogImportError(path, "expected a tools list", field="tools")
    if not doc:
        raise CatalogImportError(path, "the tool list is empty", field="tools")
    return doc


def parse_mcp_tools_list(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    tools: list[Tool] = []
    for i, entry in enumerate(_tool_list(load_json(decode(data, path), path), path), start=1):
        if not isinstance(entry, dict):
            raise CatalogImportError(path, f"must be an object, got {type(entry).__name__}", record=i)
        name = text_field(entry.get("name"), path, i, "name", required=True, limit=MAX_NAME_CHARS)
        description = text_field(entry.get("description"), path, i, "description", required=False)
        params = check_schema(entry.get("inputSchema"), path, i, "inputSchema")
        extra = {k: entry[k] for k in ("title", "annotations", "outputSchema") if k in entry}
        tools.append(Tool(key=name, name=name, description=description, parameters=params, source=source,
                          extra=extra))
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path, field="name")
    return tuple(tools)
