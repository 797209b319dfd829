"""OpenAI function-calling / tools JSON, with the interchange format's optional ``key`` and ``category``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.importers._common import (
    MAX_NAME_CHARS,
    check_schema,
    check_unique,
    decode,
    load_json,
    read_bytes,
    text_field,
)
from core.importers.errors import CatalogImportError
from core.models import Tool

_KNOWN_TOP = {"type", "function", "key", "category", "name", "description", "parameters", "source"}


def _entries(doc: Any, path: str) -> list[Any]:
    if isinstance(doc, dict) and "tools" in doc:
        doc = doc["tools"]
    elif isinstance(doc, dict) and ("function" in doc or "name" in doc):
        doc = [doc]
    if not isinstance(doc, list):
        raise CatalogImportError(path, f"expected a list of tools, got {type(doc).__name__}")
    if not doc:
        raise CatalogImportError(path, "the tool list is empty")
    return doc


def parse_tool_entry(entry: Any, path: str, record: int, source: str) -> Tool:
    if not isinstance(entry, dict):
        raise CatalogImportError(path, f"must be an object, got {type(entry).__name__}", record=record)
    if "function" in entry:
        fn = entry["function"]
        prefix = "function."
        if not isinstance(fn, dict):
            raise CatalogImportError(path, f"must be an object, got {type(fn).__name__}", record=record,
                                     field="function")
        kind = entry.get("type", "function")
        if kind != "function":
            raise CatalogImportError(path, f"must be 'function', got {kind!r}", record=record, field="type")
    else:
        fn, prefix = entry, ""
    name = text_field(fn.get("name"), path, record, f"{prefix}name", required=True, limit=MAX_NAME_CHARS)
    description = text_field(fn.get("description"), path, record, f"{prefix}description", required=False)
    params = check_schema(fn.get("parameters"), path, record, f"{prefix}parameters")
    key = text_field(entry.get("key"), path, record, "key", required=False, limit=MAX_NAME_CHARS) or name
    category = text_field(entry.get("category"), path, record, "category", required=False, limit=MAX_NAME_CHARS)
    extra = {k: v for k, v in entry.items() if k not in _KNOWN_TOP}
    if prefix:
        extra.update({f"function.{k}": v for k, v in fn.items() if k not in {"name", "description", "parameters"}})
    tool_source = text_field(entry.get("source"), path, record, "source", required=False, limit=MAX_NAME_CHARS)
    return Tool(key=key, name=name, description=description, parameters=params, category=category,
                source=tool_source or source, extra=extra)


def parse_openai_tools(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    """Every tool of the file, or a :class:`CatalogImportError` and nothing."""
    doc = load_json(decode(data, path), path)
    tools = [parse_tool_entry(e, path, i, source) for i, e in enumerate(_entries(doc, path), start=1)]
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path)
    return tuple(tools)


def load_openai_tools(path: str | Path, source: str = "") -> tuple[Tool, ...]:
    path = Path(path)
    return parse_openai_tools(read_bytes(path), str(path), source or path.name)
