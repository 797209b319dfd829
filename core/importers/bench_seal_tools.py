"""Seal-Tools in its released layout.

Verified against ``fairyshine/Seal-Tools``, folder ``Seal-Tools_Dataset/``:

* ``tool.jsonl`` — one ``{"api_name", "api_description", "field", "parameters": {name: {"type":
  "str"|"int"|"float"|"bool"|..., "description"}}, "required": [...], "responses": {...}}`` per line;
* ``dev.jsonl``, ``test_in_domain.jsonl``, ``test_out_domain.jsonl`` — one ``{"id", "query",
  "calling": [{"api", "parameters", "responses"}, ...]}`` per line (current layout), or the older
  ``[call or [calls], query]`` arrays (``dataset_in_old_format/``, the repo's first release).

Tool keys are the API names; gold is the called APIs in order; split is the file's name. An old-layout
file is read only when no current-layout file exists for its split (the repo ships both), and its query
ids are positional (``dev-0``). Queries calling an API missing from ``tool.jsonl`` are skipped and counted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from core.importers._common import (
    JSON_TYPE_NAMES,
    MAX_NAME_CHARS,
    check_schema,
    decode,
    guarded,
    json_value,
    kind,
    load_json,
    text_field,
)
from core.importers.benchmark import BenchmarkImport
from core.importers.errors import CatalogImportError
from core.models import Query, Tool

_SPLITS = ("dev", "test_in_domain", "test_out_domain")
# Seal-Tools writes Python type names; an unknown name is dropped and kept only as x-original-type.
_TYPES = JSON_TYPE_NAMES


def _lines(data: bytes, path: str) -> list[tuple[int, Any]]:
    return [(n, load_json(line, path, record=n))
            for n, line in enumerate(decode(data, path).split("\n"), start=1) if line.strip()]


def _property(value: Any, path: str, line: int, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(value)}", record=line, field=field)
    out = dict(value)
    original = out.get("type")
    if isinstance(original, str):
        mapped = _TYPES.get(original.lower())
        if mapped is None:  # an unknown name: accept any value, but keep what the dataset said
            del out["type"]
            out["x-original-type"] = original
        else:
            out["type"] = mapped
    return out


def _tool(obj: Any, path: str, line: int) -> Tool:
    if not isinstance(obj, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(obj)}", record=line)
    name = text_field(obj.get("api_name"), path, line, "api_name", required=True, limit=MAX_NAME_CHARS)
    description = text_field(obj.get("api_description"), path, line, "api_description", required=False)
    category = text_field(obj.get("field"), path, line, "field", required=False, limit=MAX_NAME_CHARS)
    props = obj.get("parameters") or {}
    if not isinstance(props, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(props)}", record=line, field="parameters")
    schema: dict[str, Any] = {"type": "object",
                              "properties": {k: _property(v, path, line, f"parameters.{k}") for k, v in props.items()}}
    if obj.get("required") is not None:
        schema["required"] = obj["required"]
    schema = check_schema(schema, path, line, "parameters")
    extra = {}
    if obj.get("responses") is not None:
        extra["responses"] = json_value(obj["responses"], path, line, "responses")
    return Tool(key=name, name=name, description=description, parameters=schema, category=category,
                source="seal_tools:tool.jsonl", extra=extra)


def _calls(calls: Any, path: str, line: int, field: str) -> tuple[str, ...]:
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list) or not calls:
        raise CatalogImportError(path, f"must be a non-empty list of calls, not {kind(calls)}", record=line,
                                 field=field)
    names = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(call)}", record=line,
                                     field=f"{field}[{i}]")
        names.append(text_field(call.get("api"), path, line, f"{field}[{i}].api", required=True,
                                limit=MAX_NAME_CHARS))
    return tuple(dict.fromkeys(names))


def _queries(path: str, records: list[tuple[int, Any]], split: str) -> list[tuple[int, str, str, tuple[str, ...]]]:
    out = []
    for index, (line, obj) in enumerate(records):
        if isinstance(obj, dict):
            raw_id = obj.get("id")
            if isinstance(raw_id, int) and not isinstance(raw_id, bool):
                raw_id = str(raw_id)
            qid = text_field(raw_id, path, line, "id", required=True, limit=MAX_NAME_CHARS)
            text = text_field(obj.get("query"), path, line, "query", required=True)
            gold = _calls(obj.get("calling"), path, line, "calling")
        elif isinstance(obj, list) and len(obj) == 2:
            qid = f"{split}-{index}"
            text = text_field(obj[1], path, line, "[1]", required=True)
            gold = _calls(obj[0], path, line, "[0]")
        else:
            raise CatalogImportError(path, f"must be an object or a [calls, query] pair, not {kind(obj)}",
                                     record=line)
        out.append((line, qid, text, gold))
    return out


def parse(files: dict[str, bytes]) -> BenchmarkImport:
    tool_paths = [p for p in files if p.rsplit("/", 1)[-1] == "tool.jsonl"]
    if len(tool_paths) != 1:
        raise CatalogImportError("seal_tools", "expected one tool.jsonl" if not tool_paths
                                 else f"several tool.jsonl files: {', '.join(sorted(tool_paths))}")
    tool_path = tool_paths[0]
    skipped: list[str] = []
    with guarded(tool_path):
        tools: dict[str, Tool] = {}
        duplicates = 0
        for line, obj in _lines(files[tool_path], tool_path):
            tool = _tool(obj, tool_path, line)
            if tool.key in tools:
                duplicates += 1
            else:
                tools[tool.key] = tool
    if duplicates:
        skipped.append(f"tool.jsonl: {duplicates} repeated api_name entries (the first one kept)")

    # Per split, current-layout files win over old-layout ones: the repository ships both.
    by_split: dict[str, dict[bool, list[tuple[str, list[tuple[int, Any]]]]]] = {}
    for path in sorted(files):
        base = path.rsplit("/", 1)[-1]
        if not base.endswith(".jsonl") or base[: -len(".jsonl")] not in _SPLITS:
            continue
        with guarded(path):
            records = _lines(files[path], path)
        current = bool(records) and isinstance(records[0][1], dict)
        by_split.setdefault(base[: -len(".jsonl")], {}).setdefault(current, []).append((path, records))
    if not by_split:
        raise CatalogImportError("seal_tools", f"no query files ({', '.join(s + '.jsonl' for s in _SPLITS)})")

    queries: list[Query] = []
    seen: dict[str, str] = {}
    for split in _SPLITS:
        layouts = by_split.get(split, {})
        for path, _records in layouts.get(False, []) if True in layouts else []:
            skipped.append(f"{path}: old-layout file ignored (a current-layout {split}.jsonl is present)")
        missing: Counter[str] = Counter()
        for path, records in layouts.get(True, layouts.get(False, [])):
            with guarded(path):
                for line, qid, text, gold in _queries(path, records, split):
                    if qid in seen:
                        raise CatalogImportError(path, f"duplicate query id {qid!r} (also in {seen[qid]})",
                                                 record=line, field="id")
                    seen[qid] = path
                    if any(g not in tools for g in gold):
                        missing[path] += 1
                        continue
                    queries.append(Query(id=qid, text=text, gold=gold, split=split))
        skipped += [f"{p}: {n} queries calling an API missing from tool.jsonl" for p, n in sorted(missing.items())]
    return BenchmarkImport(benchmark="seal_tools", tools=tuple(tools.values()), queries=tuple(queries),
                           skipped=tuple(skipped))
