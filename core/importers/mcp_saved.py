"""A saved MCP ``tools/list`` result.

Accepted shapes: the result object ``{"tools": [...]}``, the whole JSON-RPC response
``{"jsonrpc": "2.0", "id": ..., "result": {"tools": [...]}}``, or the bare list. Each tool's
``inputSchema`` becomes its parameters; everything but name/description/inputSchema
(``title``, ``annotations``, ``outputSchema``, ``_meta``...) is kept in ``extra``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.importers._common import (
    MAX_NAME_CHARS,
    check_schema,
    check_unique,
    decode,
    guarded,
    json_value,
    kind,
    load_json,
    read_file,
    text_field,
)
from core.importers.errors import CatalogImportError
from core.models import Tool

_TOOL_FIELDS = frozenset({"name", "description", "inputSchema"})


def _tool_list(doc: Any, path: str) -> list[Any]:
    field = None
    if isinstance(doc, dict) and ("jsonrpc" in doc or "result" in doc or "error" in doc) and "tools" not in doc:
        if doc.get("error") is not None:
            err = doc["error"]
            detail = err.get("message") if isinstance(err, dict) else None
            text = f": {detail}" if isinstance(detail, str) and detail.strip() else ""
            raise CatalogImportError(path, f"the saved response is a JSON-RPC error{text[:200]}", field="error")
        doc, field = doc.get("result"), "result"
        if not isinstance(doc, dict):
            raise CatalogImportError(path, f"must be an object with a 'tools' list, not {kind(doc)}", field=field)
    if isinstance(doc, dict):
        field = "result.tools" if field else "tools"
        if "tools" not in doc:
            raise CatalogImportError(path, "missing", field=field)
        doc = doc["tools"]
    if not isinstance(doc, list):
        raise CatalogImportError(path, f"expected a list of tools, not {kind(doc)}", field=field)
    if not doc:
        raise CatalogImportError(path, "no tools in the file", field=field)
    return doc


def _tool(entry: Any, path: str, record: int, source: str) -> Tool:
    if not isinstance(entry, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(entry)}", record=record)
    name = text_field(entry.get("name"), path, record, "name", required=True, limit=MAX_NAME_CHARS)
    description = text_field(entry.get("description"), path, record, "description", required=False)
    parameters = check_schema(entry.get("inputSchema"), path, record, "inputSchema")
    extra = {k: json_value(v, path, record, k) for k, v in entry.items() if k not in _TOOL_FIELDS}
    return Tool(key=name, name=name, description=description, parameters=parameters, source=source, extra=extra)


def tools_from_document(doc: Any, path: str, source: str = "") -> tuple[Tool, ...]:
    """Tools from an already-parsed document (used by format detection)."""
    tools = [_tool(entry, path, i, source) for i, entry in enumerate(_tool_list(doc, path), start=1)]
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path, "name")
    return tuple(tools)


def parse_mcp_tools_list(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    """All tools of a saved ``tools/list`` result, or a :class:`CatalogImportError`."""
    with guarded(path):
        return tools_from_document(load_json(decode(data, path), path), path, source)


def load_mcp_tools_list(path: str | Path, source: str | None = None) -> tuple[Tool, ...]:
    """Read and parse a saved ``tools/list`` file; ``source`` defaults to the file's name."""
    return parse_mcp_tools_list(read_file(path), str(path), Path(path).name if source is None else source)
