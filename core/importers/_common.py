"""Checks every importer shares: file size, encoding, JSON/YAML syntax, strings and schemas.

Everything a parser keeps goes through these helpers, so a Tool never carries a value that
the store or ``json.dumps`` would choke on later (NUL, unpaired surrogates, NaN, YAML dates).
"""

from __future__ import annotations

import codecs
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.importers.errors import CatalogImportError

MAX_FILE_BYTES = 200 * 1024 * 1024
# The catalog upload limit: the same 50 MB Streamlit enforces in the browser (server.maxUploadSize in
# .streamlit/config.toml), checked again by us before parsing — in the app, Workspace.import_files and the CLI.
MB = 1024 * 1024
MAX_CATALOG_BYTES = 50 * MB
MAX_DESCRIPTION_CHARS = 100_000
MAX_NAME_CHARS = 500
# Real tool schemas are a few levels deep and a few hundred values large (BFCL peaks at 7 and 79);
# these bounds only stop pathological input before it reaches recursive code downstream.
MAX_DEPTH = 64
MAX_VALUES = 100_000

# Type names the benchmarks write (Python, Java, JavaScript, ToolBench's upper case once lowered) and the
# JSON Schema type each means; one table for every importer, so the same name never maps two ways.
JSON_TYPE_NAMES: dict[str, str] = {
    "dict": "object", "hashmap": "object", "map": "object", "object": "object", "json": "object",
    "float": "number", "double": "number", "number": "number",
    "int": "integer", "integer": "integer", "long": "integer", "short": "integer", "byte": "integer",
    "tuple": "array", "list": "array", "array": "array", "arraylist": "array", "set": "array",
    "str": "string", "string": "string", "char": "string", "enum": "string",
    "bool": "boolean", "boolean": "boolean", "null": "null",
}

_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
               float: "a number", type(None): "null"}


def kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


def read_file(path: str | Path) -> bytes:
    """The bytes of a file; the size is checked before reading so a huge file is not loaded."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise CatalogImportError(str(path), _too_big(size))
        return p.read_bytes()
    except OSError as exc:
        raise CatalogImportError(str(path), f"cannot read the file: {exc.strerror or exc}") from None


def _human(n: int) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{n:,} bytes"


def check_catalog_size(size: int, path: str, limit: int | None = None) -> None:
    """Refuse a catalog (or queries) file above ``MAX_CATALOG_BYTES`` with a message naming file and limit."""
    limit = MAX_CATALOG_BYTES if limit is None else limit
    if size > limit:
        shown = f"{limit // MB} MB" if limit >= MB and limit % MB == 0 else f"{limit:,} bytes"
        raise CatalogImportError(str(path), f"file is too large to import ({_human(size)}); "
                                            f"catalog files are limited to {shown}")


def _too_big(size: int) -> str:
    return f"file is {size:,} bytes; limit is {MAX_FILE_BYTES:,}"


def decode(data: bytes | str, path: str) -> str:
    """The text of an upload: size-checked, UTF-8 (an optional BOM is dropped), not blank."""
    if isinstance(data, str):
        text = data
        # A character is at most 4 UTF-8 bytes, so short text skips the encode.
        if len(text) * 4 > MAX_FILE_BYTES:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > MAX_FILE_BYTES:
                raise CatalogImportError(path, _too_big(size))
    elif isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > MAX_FILE_BYTES:
            raise CatalogImportError(path, _too_big(len(raw)))
        # Strip the BOM ourselves: the utf-8-sig codec reports error offsets relative to the text after it.
        skip = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
        try:
            text = raw[skip:].decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = exc.start + skip
            raise CatalogImportError(
                path, f"not UTF-8 text: invalid byte 0x{raw[offset]:02x} at byte offset {offset}"
            ) from None
    else:
        raise CatalogImportError(path, f"expected bytes or text, got {type(data).__name__}")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise CatalogImportError(path, "file is empty")
    return text


def load_json(text: str, path: str, *, record: int | None = None) -> Any:
    """Parse JSON, turning every failure of the decoder into an import error with a location."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}" if record is None else f"column {exc.colno}"
        raise CatalogImportError(path, f"invalid JSON at {where}: {exc.msg}", record=record) from None
    except RecursionError:
        raise CatalogImportError(path, "invalid JSON: nested too deeply", record=record) from None
    except ValueError:
        # json raises a bare ValueError for integers longer than Python's int/str conversion limit.
        raise CatalogImportError(path, "invalid JSON: a number has too many digits", record=record) from None


def load_yaml(text: str, path: str) -> Any:
    """Parse YAML with PyYAML's safe loader and convert the result to plain JSON values."""
    try:
        import yaml
    except ImportError:
        raise CatalogImportError(path, "this looks like YAML; reading YAML needs PyYAML (pip install pyyaml)") from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(text, Loader=loader)  # a safe loader: no arbitrary Python objects
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise CatalogImportError(path, f"invalid YAML{where}: {exc.problem or exc.context}") from None
    except RecursionError:
        raise CatalogImportError(path, "invalid YAML: nested too deeply") from None
    except MemoryError:
        raise
    except Exception as exc:  # PyYAML's constructors leak ValueError/TypeError on odd scalars (2020-13-45)
        raise CatalogImportError(path, f"invalid YAML: {exc}") from None
    return _yaml_to_json(doc, path)


def _yaml_key(key: Any, path: str) -> str:
    # The same spelling json.dumps uses for non-string keys; YAML reads `200:` as an int.
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return json.dumps(key)
    if isinstance(key, int | float):
        return str(key)
    if hasattr(key, "isoformat"):
        return key.isoformat()
    raise CatalogImportError(path, f"unsupported YAML mapping key {key!r}")


def _yaml_to_json(doc: Any, path: str) -> Any:
    """Dates become ISO strings and keys become strings; binary, sets and self-containing
    aliases are refused. Shared aliases stay shared so an alias bomb is not expanded here."""
    done: dict[int, Any] = {}
    active: set[int] = set()

    def conv(v: Any) -> Any:
        if v is None or isinstance(v, str | bool | int | float):
            return v
        if isinstance(v, dict | list):
            ident = id(v)
            if ident in done:
                return done[ident]
            if ident in active:
                raise CatalogImportError(path, "a YAML alias contains itself")
            active.add(ident)
            if isinstance(v, dict):
                out: Any = {_yaml_key(k, path): conv(x) for k, x in v.items()}
            else:
                out = [conv(x) for x in v]
            active.discard(ident)
            done[ident] = out
            return out
        if hasattr(v, "isoformat"):
            return v.isoformat()
        raise CatalogImportError(path, f"unsupported YAML value of type {type(v).__name__}")

    return conv(doc)


def load_json_or_yaml(text: str, path: str) -> Any:
    """JSON unless the file is named .yaml/.yml or does not start like JSON."""
    lower = path.lower()
    if lower.endswith((".yaml", ".yml")):
        return load_yaml(text, path)
    if lower.endswith(".json") or text.lstrip()[:1] in ("{", "["):
        return load_json(text, path)
    return load_yaml(text, path)


@contextmanager
def guarded(path: str) -> Iterator[None]:
    """Last line of defence: no input may surface as a RecursionError."""
    try:
        yield
    except RecursionError:
        raise CatalogImportError(path, "input is nested too deeply") from None


def _string_problem(s: str) -> str | None:
    if "\x00" in s:
        return "contains a NUL character"
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return "contains an unpaired surrogate (not valid Unicode)"
    return None


def text_field(value: Any, path: str, record: int | None, field: str, *, required: bool,
               limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """A stripped string. Absent (None) gives '' unless required; blank required text is an error."""
    if value is None:
        if required:
            raise CatalogImportError(path, "missing", record=record, field=field)
        return ""
    if not isinstance(value, str):
        raise CatalogImportError(path, f"must be a string, not {kind(value)}", record=record, field=field)
    problem = _string_problem(value)
    if problem:
        raise CatalogImportError(path, problem, record=record, field=field)
    if len(value) > limit:
        label = field.rsplit(".", 1)[-1]
        raise CatalogImportError(path, f"{label} is {len(value):,} characters; limit is {limit:,}",
                                 record=record, field=field)
    value = value.strip()
    if required and not value:
        raise CatalogImportError(path, "is empty", record=record, field=field)
    return value


def json_value(value: Any, path: str, record: int | None, field: str) -> Any:
    """A deep copy of a JSON value, refusing NUL/surrogates, NaN/Infinity, excessive depth or size.

    The copy decouples the Tool from the parsed document (and from any shared YAML aliases).
    """
    budget = [MAX_VALUES]
    trail: list[str] = []

    def fail(message: str) -> CatalogImportError:
        return CatalogImportError(path, message, record=record, field=field + "".join(trail))

    def walk(v: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            trail.clear()
            raise fail(f"holds more than {MAX_VALUES:,} values")
        if isinstance(v, str):
            problem = _string_problem(v)
            if problem:
                raise fail(problem)
            return v
        if v is None or isinstance(v, bool | int):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                spelled = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
                raise fail(f"{spelled} is not a valid JSON number")
            return v
        if isinstance(v, dict | list):
            if depth >= MAX_DEPTH:
                raise fail(f"nested more than {MAX_DEPTH} levels deep")
            if isinstance(v, list):
                out_list = []
                for i, item in enumerate(v):
                    trail.append(f"[{i}]")
                    out_list.append(walk(item, depth + 1))
                    trail.pop()
                return out_list
            out: dict[str, Any] = {}
            for k, item in v.items():
                if not isinstance(k, str):
                    raise fail(f"has a non-string key {k!r}")
                trail.append(f".{k}")
                problem = _string_problem(k)
                if problem:
                    raise fail(f"key {problem}")
                out[k] = walk(item, depth + 1)
                trail.pop()
            return out
        raise fail(f"is not a JSON value ({type(v).__name__})")

    return walk(value, 0)


def empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def check_schema(params: Any, path: str, record: int | None, field: str) -> dict[str, Any]:
    """A tool's parameter schema: an object schema whose ``required`` names are properties.

    Absent (None) means no parameters. The result always has ``type`` and ``properties``.
    """
    if params is None:
        return empty_schema()
    if not isinstance(params, dict):
        raise CatalogImportError(path, f"must be a JSON object, not {kind(params)}", record=record, field=field)
    schema_type = params.get("type", "object")
    if schema_type != "object":
        raise CatalogImportError(path, f"must be an object schema (type 'object'), not type {schema_type!r}",
                                 record=record, field=field)
    props = params.get("properties")
    if props is None:
        props = {}
    elif not isinstance(props, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(props)}", record=record,
                                 field=f"{field}.properties")
    required = params.get("required")
    if required is not None:
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise CatalogImportError(path, "must be a list of property names", record=record,
                                     field=f"{field}.required")
        missing = [r for r in required if r not in props]
        if missing:
            raise CatalogImportError(path, f"{missing[0]!r} is not a property", record=record,
                                     field=f"{field}.required")
    out = dict(params)
    out["type"] = "object"
    out["properties"] = props
    if required is None:
        out.pop("required", None)
    return json_value(out, path, record, field)


def check_unique(keys: list[tuple[str, int]], path: str, field: str) -> None:
    """Keys must be unique; the error sits on the later record and names the earlier one."""
    first: dict[str, int] = {}
    for key, record in keys:
        if key in first:
            raise CatalogImportError(path, f"duplicate {field} {key!r} (also record {first[key]})",
                                     record=record, field=field)
        first[key] = record
