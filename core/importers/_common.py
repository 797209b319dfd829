"""Checks shared by every importer: size, encoding, JSON syntax, text limits."""

from __future__ import annotations

import json
from typing import Any

from core.importers.errors import CatalogImportError

MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_DESCRIPTION_CHARS = 100_000
MAX_NAME_CHARS = 500


def read_bytes(path) -> bytes:
    """A file's bytes, or an import error naming it."""
    from pathlib import Path

    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CatalogImportError(str(path), f"cannot read: {exc.strerror or exc}") from None


def decode(data: bytes | str, path: str) -> str:
    """UTF-8 text of ``data`` (a BOM is dropped); empty, oversized or undecodable input is an error."""
    if isinstance(data, str):
        text = data
        size = len(text.encode("utf-8", errors="surrogatepass"))
    else:
        size = len(data)
        if size > MAX_FILE_BYTES:
            raise CatalogImportError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CatalogImportError(path, f"not UTF-8 text (invalid byte at offset {exc.start})") from None
    if size > MAX_FILE_BYTES:
        raise CatalogImportError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
    if not text.strip():
        raise CatalogImportError(path, "file is empty")
    return text


def load_json(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogImportError(path, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise CatalogImportError(path, "JSON nested too deeply") from None


def text_field(value: Any, path: str, record: int | None, field: str, *, required: bool,
               limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """A string field: type, NUL characters and length checked; missing optional fields give ''."""
    if value is None:
        if required:
            raise CatalogImportError(path, "missing", record=record, field=field)
        return ""
    if not isinstance(value, str):
        raise CatalogImportError(path, f"must be a string, got {type(value).__name__}", record=record, field=field)
    if "\x00" in value:
        raise CatalogImportError(path, "contains a NUL character", record=record, field=field)
    if len(value) > limit:
        raise CatalogImportError(path, f"is {len(value):,} characters; the limit is {limit:,}", record=record,
                                 field=field)
    value = value.strip()
    if required and not value:
        raise CatalogImportError(path, "is empty", record=record, field=field)
    return value


def check_schema(params: Any, path: str, record: int | None, field: str) -> dict[str, Any]:
    """A JSON-Schema object for a tool's parameters; absent means no parameters."""
    if params is None:
        return {"type": "object", "properties": {}}
    if not isinstance(params, dict):
        raise CatalogImportError(path, f"must be a JSON object, got {type(params).__name__}", record=record,
                                 field=field)
    kind = params.get("type", "object")
    if kind != "object":
        raise CatalogImportError(path, f"must have type 'object', got {kind!r}", record=record, field=f"{field}.type")
    props = params.get("properties", {})
    if props is None:
        props = {}
    if not isinstance(props, dict):
        raise CatalogImportError(path, "must be an object", record=record, field=f"{field}.properties")
    required = params.get("required", [])
    if required is None:
        required = []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise CatalogImportError(path, "must be a list of strings", record=record, field=f"{field}.required")
    unknown = [r for r in required if r not in props]
    if unknown:
        raise CatalogImportError(path, f"names {unknown[0]!r}, which is not a property", record=record,
                                 field=f"{field}.required")
    try:
        json.dumps(params)
    except (TypeError, ValueError) as exc:
        raise CatalogImportError(path, f"is not JSON-serialisable: {exc}", record=record, field=field) from None
    out = dict(params)
    out["type"] = "object"
    out["properties"] = props
    if required or "required" in params:
        out["required"] = required
    return out


def check_unique(keys: list[tuple[str, int]], path: str, field: str = "key") -> None:
    first: dict[str, int] = {}
    for key, record in keys:
        if key in first:
            raise CatalogImportError(path, f"duplicate key {key!r} (also record {first[key]})", record=record,
                                     field=field)
        first[key] = record
