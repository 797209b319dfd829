"""ToolRet in its published layout: the ``mangopy/ToolRet-Tools`` and ``mangopy/ToolRet-Queries`` datasets.

Both are released on Hugging Face as one config per subset (tools: ``web``, ``code``, ``customized``;
queries: ``toolbench``, ``apigen``, ... 35 in all) and read by ``toolret/eval.py`` of
mangopy/tool-retrieval-benchmark. Accepted here as JSON Lines (what ``Dataset.to_json`` writes), a JSON
list, or parquet (when pyarrow is installed):

- tool records ``{"id", "documentation"}``, ``documentation`` being a JSON object (usually as a string)
  whose shape depends on the source dataset: ``name``, ``description`` (or ``functionality``,
  ``func_description``, ``description_for_human``) and parameters as a JSON Schema, a ``name → spec``
  mapping, a list of ``{"name", ...}``, ``required_parameters``/``optional_parameters`` or
  ``doc_arguments``; fields not turned into the schema are kept in ``extra``;
- query records ``{"id", "query", "instruction", "labels", "category"}``, ``labels`` a list (usually as a
  JSON string) of ``{"id", "doc", "relevance"}``; gold = labels with relevance > 0.

A file is told apart by its records. The subset (the query split, the tool category) is the file's name,
or its folder's name when the file is a generic ``queries``/``tools``/``test``/``train`` shard.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import PurePosixPath
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
from core.importers.bench_toolbench import parameters_schema as _toolbench_schema
from core.importers.benchmark import BenchmarkImport
from core.importers.errors import CatalogImportError
from core.models import Query, Tool

_DESCRIPTIONS = ("description", "functionality", "func_description", "description_for_human")
_SHARD = re.compile(r"-\d{5}-of-\d{5}$")
_GENERIC = frozenset({"queries", "query", "tools", "tool", "test", "train", "data"})
# Type spellings seen in the docs (Python names, "str, optional", ToolBench upper case) → JSON Schema.
_TYPES = JSON_TYPE_NAMES


def _records(path: str, data: bytes) -> list[tuple[int, Any]]:
    """(record number, record) pairs; the number is the line for JSONL and the 1-based row otherwise."""
    if path.endswith(".parquet"):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise CatalogImportError(path, "reading parquet needs pyarrow (pip install pyarrow); "
                                           "or export the subset as JSON Lines") from None
        try:
            rows = pq.read_table(io.BytesIO(data)).to_pylist()
        except Exception as exc:  # pyarrow raises its own error types for damaged files
            raise CatalogImportError(path, f"cannot read the parquet file: {exc}") from None
        return list(enumerate(rows, start=1))
    text = decode(data, path)
    if text.lstrip().startswith("["):
        return list(enumerate(load_json(text, path), start=1))
    if path.endswith(".json"):
        try:  # one JSON object (dataset_info.json); Dataset.to_json writes JSON Lines even under .json
            whole = json.loads(text)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and "\n" in text.strip():
            return [(1, whole)]
    # Split on "\n" only: JSON strings may hold U+2028, which str.splitlines() would break on.
    return [(n, load_json(line, path, record=n)) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _subset(path: str) -> str:
    p = PurePosixPath(path)
    stem = _SHARD.sub("", p.name.split(".", 1)[0])
    if (stem.lower() in _GENERIC or not stem) and p.parent.name:
        return p.parent.name
    return stem


def _json_object(value: Any, path: str, record: int, field: str) -> Any:
    return load_json(value, path, record=record) if isinstance(value, str) else value


def _mapping_schema(params: dict, path: str, record: int, field: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required = []
    for name, spec in params.items():
        spec = spec if isinstance(spec, dict) else {"description": spec} if isinstance(spec, str) else {}
        raw = spec.get("type")
        words = [w.strip().lower() for w in raw.split(",")] if isinstance(raw, str) else []
        out: dict[str, Any] = {k: v for k, v in spec.items() if k not in ("type", "required", "name")}
        out["type"] = _TYPES.get(words[0] if words else "", "string")
        props[name] = out
        if "optional" not in words and spec.get("required") is not False:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return check_schema(schema, path, record, field)


def _parameters(doc: dict, path: str, record: int, used: set[str]) -> dict[str, Any]:
    field = "documentation"
    for name in ("parameters", "doc_arguments"):
        params = doc.get(name)
        where = f"{field}.{name}"
        if isinstance(params, dict) and isinstance(params.get("type"), str) and isinstance(params.get("properties"), dict):
            used.add(name)
            props = params["properties"]
            required = params.get("required")
            # Some source schemas require names they never declare; keep the ones that exist.
            if isinstance(required, list):
                params = {**params, "required": [r for r in required if isinstance(r, str) and r in props]}
            return check_schema({**params, "type": "object"}, path, record, where)
        if isinstance(params, dict) and name == "parameters":
            used.add(name)
            return _mapping_schema(params, path, record, where)
        if isinstance(params, list) and all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in params):
            used.add(name)
            listed = {p["name"]: p for p in params}
            return _mapping_schema(listed, path, record, where)
    if isinstance(doc.get("required_parameters"), list) or isinstance(doc.get("optional_parameters"), list):
        used.update(("required_parameters", "optional_parameters"))
        return _toolbench_schema(doc, path, record, field)
    return {"type": "object", "properties": {}}


def _tool(rec: Any, path: str, record: int, category: str, source: str) -> Tool:
    if not isinstance(rec, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(rec)}", record=record)
    key = text_field(rec.get("id"), path, record, "id", required=True, limit=MAX_NAME_CHARS)
    doc = _json_object(rec.get("documentation"), path, record, "documentation")
    if not isinstance(doc, dict):
        raise CatalogImportError(path, f"must be a JSON object, not {kind(doc)}", record=record, field="documentation")
    used = {"name", *_DESCRIPTIONS}
    name = text_field(doc.get("name"), path, record, "documentation.name", required=False, limit=MAX_NAME_CHARS)
    description = ""
    for field in _DESCRIPTIONS:
        description = text_field(doc.get(field), path, record, f"documentation.{field}", required=False) \
            if isinstance(doc.get(field), str) else ""
        if description:
            break
    parameters = _parameters(doc, path, record, used)
    extra = {k: json_value(v, path, record, f"documentation.{k}") for k, v in doc.items() if k not in used}
    return Tool(key=key, name=name or key, description=description, parameters=parameters, category=category,
                source=source, extra=extra)


def _gold(rec: dict, path: str, record: int) -> list[str]:
    labels = _json_object(rec.get("labels"), path, record, "labels")
    if labels is None:
        return []
    if not isinstance(labels, list):
        raise CatalogImportError(path, f"must be a list, not {kind(labels)}", record=record, field="labels")
    gold = []
    for i, label in enumerate(labels):
        if not isinstance(label, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(label)}", record=record, field=f"labels[{i}]")
        relevance = label.get("relevance", 1)
        if isinstance(relevance, bool) or not isinstance(relevance, int | float):
            raise CatalogImportError(path, f"must be a number, not {kind(relevance)}", record=record,
                                     field=f"labels[{i}].relevance")
        if relevance > 0:
            gold.append(text_field(label.get("id"), path, record, f"labels[{i}].id", required=True,
                                   limit=MAX_NAME_CHARS))
    return gold


def parse(files: dict[str, bytes]) -> BenchmarkImport:
    tools: dict[str, tuple[Tool, str]] = {}
    pending: list[tuple[str, str, list[str], str, str, int]] = []
    for path in sorted(files):
        if not path.endswith((".jsonl", ".json", ".parquet")):
            continue
        with guarded(path):
            records = _records(path, files[path])
            first = next((r for _, r in records if isinstance(r, dict)), None)
            if first is None or not ("documentation" in first or ("query" in first and "labels" in first)):
                continue  # not a ToolRet file (a README, a dataset_info.json, ...)
            subset = _subset(path)
            for n, rec in records:
                if "documentation" in first:
                    tool = _tool(rec, path, n, subset, f"toolret:{path}")
                    if tool.key in tools and tools[tool.key][0].content_hash() != tool.content_hash():
                        raise CatalogImportError(path, f"tool id {tool.key!r} is also in {tools[tool.key][1]} "
                                                       "with other documentation", record=n, field="id")
                    tools.setdefault(tool.key, (tool, path))
                    continue
                if not isinstance(rec, dict):
                    raise CatalogImportError(path, f"must be an object, not {kind(rec)}", record=n)
                qid = text_field(rec.get("id"), path, n, "id", required=True, limit=MAX_NAME_CHARS)
                text = text_field(rec.get("query"), path, n, "query", required=True)
                pending.append((qid, text, _gold(rec, path, n), subset, path, n))
    if not tools:
        raise CatalogImportError("toolret", "no ToolRet tool file found: expected records with 'id' and "
                                 "'documentation' (mangopy/ToolRet-Tools exported as JSONL)")
    skipped: Counter[str] = Counter()
    queries: list[Query] = []
    first_seen: dict[str, str] = {}
    for qid, text, gold, split, path, n in pending:
        if qid in first_seen:
            raise CatalogImportError(path, f"duplicate query id {qid!r} (also in {first_seen[qid]})", record=n,
                                     field="id")
        first_seen[qid] = path
        kept = [g for g in dict.fromkeys(gold) if g in tools]
        skipped["gold tool ids missing from the tool files (dropped from their query)"] += len(set(gold)) - len(kept)
        if not gold:
            skipped["queries with no relevant tool"] += 1
        elif not kept:
            skipped["queries whose gold tools are all missing from the tool files"] += 1
        else:
            queries.append(Query(id=qid, text=text, gold=tuple(kept), split=split))
    return BenchmarkImport(benchmark="toolret", tools=tuple(t for t, _ in tools.values()), queries=tuple(queries),
                           skipped=tuple(f"{n} {what}" for what, n in skipped.items() if n))
