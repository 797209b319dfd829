"""OpenAI tools JSON, plus the interchange format's ``key`` and ``category``.

Entries may be wrapped (``{"type": "function", "function": {...}}``) or bare function
objects (``{"name", "description", "parameters"}``), mixed freely, in a list or under a
top-level ``{"tools": [...]}``.
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

_WRAPPER_FIELDS = frozenset({"type", "function", "key", "category"})
_FUNCTION_FIELDS = frozenset({"name", "description", "parameters"})


def _entries(doc: Any, path: str) -> list[Any]:
    field = None
    if isinstance(doc, dict) and "tools" in doc:
        doc, field = doc["tools"], "tools"
    elif isinstance(doc, dict) and ("function" in doc or "name" in doc):
        doc = [doc]
    if not isinstance(doc, list):
        raise CatalogImportError(path, f"expected a list of tools, not {kind(doc)}", field=field)
    if not doc:
        raise CatalogImportError(path, "no tools in the file", field=field)
    return doc


def _tool(entry: Any, path: str, record: int, source: str) -> Tool:
    if not isinstance(entry, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(entry)}", record=record)
    entry_type = entry.get("type", "function")
    if entry_type != "function":
        raise CatalogImportError(path, f"must be 'function', not {entry_type!r}", record=record, field="type")
    if "function" in entry:
        fn, prefix = entry["function"], "function."
        if not isinstance(fn, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(fn)}", record=record, field="function")
        extra = {k: v for k, v in entry.items() if k not in _WRAPPER_FIELDS}
        # Function-level extras (e.g. "strict") get a prefix so they cannot clash with top-level ones
        # and survive an export/import round trip as plain top-level fields.
        extra.update({f"function.{k}": v for k, v in fn.items() if k not in _FUNCTION_FIELDS})
    else:
        fn, prefix = entry, ""
        extra = {k: v for k, v in entry.items() if k not in _WRAPPER_FIELDS | _FUNCTION_FIELDS}
    name = text_field(fn.get("name"), path, record, f"{prefix}name", required=True, limit=MAX_NAME_CHARS)
    description = text_field(fn.get("description"), path, record, f"{prefix}description", required=False)
    parameters = check_schema(fn.get("parameters"), path, record, f"{prefix}parameters")
    key = name
    if entry.get("key") is not None:
        key = text_field(entry["key"], path, record, "key", required=True, limit=MAX_NAME_CHARS)
    category = text_field(entry.get("category"), path, record, "category", required=False, limit=MAX_NAME_CHARS)
    extra = {k: json_value(v, path, record, k) for k, v in extra.items()}
    return Tool(key=key, name=name, description=description, parameters=parameters, category=category,
                source=source, extra=extra)


def tools_from_document(doc: Any, path: str, source: str = "") -> tuple[Tool, ...]:
    """Tools from an already-parsed document (used by format detection)."""
    tools = [_tool(entry, path, i, source) for i, entry in enumerate(_entries(doc, path), start=1)]
    check_unique([(t.key, i) for i, t in enumerate(tools, start=1)], path, "key")
    return tuple(tools)


def parse_openai_tools(data: bytes | str, path: str = "<upload>", source: str = "") -> tuple[Tool, ...]:
    """All tools of an OpenAI tools JSON document, or a :class:`CatalogImportError`."""
    with guarded(path):
        return tools_from_document(load_json(decode(data, path), path), path, source)


def load_openai_tools(path: str | Path, source: str | None = None) -> tuple[Tool, ...]:
    """Read and parse a tools JSON file; ``source`` defaults to the file's name."""
    return parse_openai_tools(read_file(path), str(path), Path(path).name if source is None else source)
