"""MetaTool (ToolE) in its released layout.

Verified against ``HowieHwong/MetaTool``, folder ``dataset/``:

* ``plugin_des.json`` — one JSON object, tool name → description (``big_tool_des.json`` holds the
  same mapping and is read only when ``plugin_des.json`` is absent);
* ``data/all_clean_data.csv`` — header ``Query,Tool``, one single-tool query per row (split ``single``);
* ``data/multi_tool_query_golden.json`` — a list of ``{"query", "tool": [names]}`` (split ``multi``).

The tools have no parameter schemas. Query ids are positional (``single-1`` is the first CSV row,
``multi-1`` the first JSON entry). Many released queries are wrapped in a literal pair of double quotes;
one such pair is removed. Queries whose gold tool is not in the description file are skipped and counted.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

from core.importers._common import (
    MAX_NAME_CHARS,
    decode,
    empty_schema,
    guarded,
    kind,
    load_json,
    text_field,
)
from core.importers.benchmark import BenchmarkImport
from core.importers.errors import CatalogImportError
from core.models import Query, Tool

_TOOL_FILES = ("plugin_des.json", "big_tool_des.json")
_SINGLE = "all_clean_data.csv"
_MULTI = "multi_tool_query_golden.json"


def _find(files: dict[str, bytes], name: str) -> str | None:
    found = sorted(p for p in files if p.rsplit("/", 1)[-1] == name)
    if len(found) > 1:
        raise CatalogImportError(found[1], f"two files named {name!r} (also {found[0]}); give one folder")
    return found[0] if found else None


def _unquote(text: str) -> str:
    if len(text) > 1 and text[0] == text[-1] == '"':
        return text[1:-1].strip()
    return text


def _tools(path: str, data: bytes) -> dict[str, Tool]:
    doc = load_json(decode(data, path), path)
    if not isinstance(doc, dict) or not doc:
        raise CatalogImportError(path, f"expected an object of tool name → description, not {kind(doc)}")
    tools = {}
    for record, (raw_name, desc) in enumerate(doc.items(), start=1):
        name = text_field(raw_name, path, record, "name", required=True, limit=MAX_NAME_CHARS)
        tools[name] = Tool(key=name, name=name, description=text_field(desc, path, record, name, required=False),
                           parameters=empty_schema(), source=f"metatool:{path.rsplit('/', 1)[-1]}")
    return tools


def _single(path: str, data: bytes) -> list[tuple[int, str, tuple[str, ...]]]:
    reader = csv.reader(io.StringIO(decode(data, path), newline=""), strict=True)
    try:
        header = next(reader)
        if [h.strip() for h in header[:2]] != ["Query", "Tool"]:
            raise CatalogImportError(path, f"expected the header 'Query,Tool', found {','.join(header)!r}",
                                     record=1)
        rows = []
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) < 2:
                raise CatalogImportError(path, "missing", record=line, field="Tool")
            text = _unquote(text_field(row[0], path, line, "Query", required=True))
            tool = text_field(row[1], path, line, "Tool", required=True, limit=MAX_NAME_CHARS)
            rows.append((line, text, (tool,)))
    except csv.Error as exc:
        raise CatalogImportError(path, f"invalid CSV: {exc}", record=reader.line_num) from None
    return rows


def _multi(path: str, data: bytes) -> list[tuple[int, str, tuple[str, ...]]]:
    doc = load_json(decode(data, path), path)
    if not isinstance(doc, list):
        raise CatalogImportError(path, f"expected a list of {{query, tool}} objects, not {kind(doc)}")
    rows = []
    for record, entry in enumerate(doc, start=1):
        if not isinstance(entry, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(entry)}", record=record)
        text = _unquote(text_field(entry.get("query"), path, record, "query", required=True))
        names: Any = entry.get("tool")
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names:
            raise CatalogImportError(path, f"must be a non-empty list of tool names, not {kind(names)}",
                                     record=record, field="tool")
        gold = [text_field(n, path, record, f"tool[{i}]", required=True, limit=MAX_NAME_CHARS)
                for i, n in enumerate(names)]
        rows.append((record, text, tuple(dict.fromkeys(gold))))
    return rows


def parse(files: dict[str, bytes]) -> BenchmarkImport:
    tool_path = next((p for p in (_find(files, n) for n in _TOOL_FILES) if p is not None), None)
    if tool_path is None:
        raise CatalogImportError("metatool", "no tool description file (plugin_des.json or big_tool_des.json)")
    with guarded(tool_path):
        tools = _tools(tool_path, files[tool_path])
    queries: list[Query] = []
    skipped: list[str] = []
    found = False
    for name, split, reader in ((_SINGLE, "single", _single), (_MULTI, "multi", _multi)):
        path = _find(files, name)
        if path is None:
            continue
        found = True
        missing: Counter[str] = Counter()
        with guarded(path):
            for n, (_record, text, gold) in enumerate(reader(path, files[path]), start=1):
                absent = [g for g in gold if g not in tools]
                if absent:
                    missing[absent[0]] += 1
                    continue
                queries.append(Query(id=f"{split}-{n}", text=text, gold=gold, split=split))
        if missing:
            names = ", ".join(sorted(missing))
            skipped.append(f"{name}: {sum(missing.values())} queries whose gold tool is not in "
                           f"{tool_path.rsplit('/', 1)[-1]} ({names})")
    if not found:
        raise CatalogImportError("metatool", f"no query file ({_SINGLE} or {_MULTI})")
    return BenchmarkImport(benchmark="metatool", tools=tuple(tools.values()), queries=tuple(queries),
                           skipped=tuple(skipped))
