"""ToolBench / StableToolBench in their published raw layouts.

Read, verified against OpenBMB/ToolBench and THUNLP-MT/StableToolBench:

- query files — a JSON list of ``{"api_list": [...], "query", "relevant APIs": [[tool_name, api_name]],
  "query_id"}`` (``data/instruction/G1_query.json``, ``solvable_queries/test_instruction/G1_instruction.json``,
  the retriever's ``train.json``/``test.json``); each ``api_list`` entry is ``{"category_name", "tool_name",
  "api_name", "api_description", "required_parameters", "optional_parameters", "method", ...}``;
- tool files — ``toolenv/tools/<Category>/<tool>.json``: ``{"tool_name", "tool_description", "api_list":
  [{"name", "description", "required_parameters", "optional_parameters", "method", ...}]}``, the source
  ToolBench's own ``fetch_api_json`` reads, so it wins over the copies inside query files;
- retriever data — ``corpus.tsv`` (``docid``, ``document_content`` = one api_list entry as JSON),
  ``<split>.query.txt`` (qid, text) and ``qrels.<split>.tsv`` (qid, 0, docid, label), as written by
  ``preprocess/preprocess_retriever_data.py``.

Tool keys are ``<tool>::<api>`` with both parts normalised by ToolBench's ``standardize``/``change_name``;
the tool name is ToolBench's function name ``<api>_for_<tool>`` (its last 64 characters).
"""

from __future__ import annotations

import csv
import io
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
    kind,
    load_json,
    text_field,
)
from core.importers.benchmark import BenchmarkImport
from core.importers.errors import CatalogImportError
from core.models import Query, Tool

# ToolBench's own regex: "^" sits inside the class after the first position, so it is a kept character.
_NON_WORD = re.compile("[^\u4e00-\u9fa5^a-zA-Z0-9_]")
_RESERVED = frozenset({"from", "class", "return", "false", "true", "id", "and"})
_TYPES = JSON_TYPE_NAMES  # ToolBench's STRING/NUMBER/ENUM…, lowered; an unknown name reads as string
_CSV_LIMIT = 2**31 - 1  # corpus documents carry whole response templates, far above csv's 128 KiB default


def _standardize(text: str) -> str:
    text = re.sub("_+", "_", _NON_WORD.sub("_", text)).lower().strip("_")
    return "get_" + text if text[:1].isdigit() else text


def _key(tool: str, api: str) -> str:
    api_part = _standardize(api)
    api_part = "is_" + api_part if api_part in _RESERVED else api_part
    return f"{_standardize(tool) or tool}::{api_part or api}"


def parameters_schema(api: dict, path: str, record: int | None, field: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for group in ("required_parameters", "optional_parameters"):
        items = api.get(group) or []
        if not isinstance(items, list):
            raise CatalogImportError(path, f"must be a list, not {kind(items)}", record=record, field=f"{field}.{group}")
        for i, param in enumerate(items):
            where = f"{field}.{group}[{i}]"
            if not isinstance(param, dict):
                raise CatalogImportError(path, f"must be an object, not {kind(param)}", record=record, field=where)
            name = text_field(param.get("name"), path, record, f"{where}.name", required=True, limit=MAX_NAME_CHARS)
            if name in props:
                continue
            raw_type = param.get("type")
            spec: dict[str, Any] = {"type": _TYPES.get(raw_type.strip().lower(), "string")
                                    if isinstance(raw_type, str) else "string"}
            description = text_field(param.get("description"), path, record, f"{where}.description", required=False)
            if description:
                spec["description"] = description
            if param.get("default") not in (None, ""):
                spec["default"] = param["default"]
            props[name] = spec
            if group == "required_parameters":
                required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return check_schema(schema, path, record, field)


def _tool(api: Any, path: str, record: int | None, field: str, source: str, *, tool_name: str | None = None,
          category: str | None = None, tool_description: str = "") -> Tool:
    """One API as a Tool; ``tool_name`` given means the toolenv shape (``name``/``description``)."""
    if not isinstance(api, dict):
        raise CatalogImportError(path, f"must be an object, not {kind(api)}", record=record, field=field)
    env = tool_name is not None
    if not env:
        tool_name = text_field(api.get("tool_name"), path, record, f"{field}.tool_name", required=True,
                               limit=MAX_NAME_CHARS)
        category = text_field(api.get("category_name"), path, record, f"{field}.category_name", required=False,
                              limit=MAX_NAME_CHARS)
    name_field, desc_field = ("name", "description") if env else ("api_name", "api_description")
    api_name = text_field(api.get(name_field), path, record, f"{field}.{name_field}", required=True,
                          limit=MAX_NAME_CHARS)
    key = _key(tool_name, api_name)
    tool_part, api_part = key.split("::", 1)
    extra = {"tool_name": tool_name, "api_name": api_name}
    method = text_field(api.get("method"), path, record, f"{field}.method", required=False, limit=MAX_NAME_CHARS)
    if method:
        extra["method"] = method
    if tool_description:
        extra["tool_description"] = tool_description
    return Tool(key=key, name=f"{api_part}_for_{tool_part}"[-64:],
                description=text_field(api.get(desc_field), path, record, f"{field}.{desc_field}", required=False),
                parameters=parameters_schema(api, path, record, field), category=category or "", source=source, extra=extra)


def _queries_file(doc: list, path: str, split: str, pool: dict[str, Tool]) -> list[tuple[str, str, list[str], str]]:
    pending = []
    for rec, item in enumerate(doc, start=1):
        if not isinstance(item, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(item)}", record=rec)
        text = text_field(item.get("query"), path, rec, "query", required=True)
        apis = item.get("api_list") or []
        if not isinstance(apis, list):
            raise CatalogImportError(path, f"must be a list, not {kind(apis)}", record=rec, field="api_list")
        for j, api in enumerate(apis):
            tool = _tool(api, path, rec, f"api_list[{j}]", f"toolbench:{path}")
            pool.setdefault(tool.key, tool)
        relevant = item.get("relevant APIs") or []
        if not isinstance(relevant, list):
            raise CatalogImportError(path, f"must be a list, not {kind(relevant)}", record=rec, field="relevant APIs")
        gold = []
        for j, pair in enumerate(relevant):
            if not (isinstance(pair, list) and len(pair) >= 2 and all(isinstance(p, str) for p in pair[:2])):
                raise CatalogImportError(path, "must be a [tool_name, api_name] pair of strings", record=rec,
                                         field=f"relevant APIs[{j}]")
            gold.append(_key(*(text_field(p, path, rec, f"relevant APIs[{j}]", required=True) for p in pair[:2])))
        # ToolBench falls back to the list position when a record has no query_id.
        raw_id = item.get("query_id", rec - 1)
        if isinstance(raw_id, bool) or not isinstance(raw_id, int | str):
            raise CatalogImportError(path, f"must be a string or an integer, not {kind(raw_id)}", record=rec,
                                     field="query_id")
        qid = text_field(str(raw_id), path, rec, "query_id", required=True, limit=MAX_NAME_CHARS)
        pending.append((f"{split}/{qid}", text, gold, split))
    return pending


def _tool_file(doc: dict, path: str) -> list[Tool]:
    tool_name = text_field(doc.get("tool_name"), path, None, "tool_name", required=True, limit=MAX_NAME_CHARS)
    about = text_field(doc.get("tool_description"), path, None, "tool_description", required=False)
    apis = doc.get("api_list")
    if not isinstance(apis, list):
        raise CatalogImportError(path, f"must be a list, not {kind(apis)}", field="api_list")
    parent = PurePosixPath(path).parent.name
    return [_tool(api, path, i, f"api_list[{i - 1}]", f"toolbench:{path}", tool_name=tool_name,
                  category=parent, tool_description=about) for i, api in enumerate(apis, start=1)]


def _rows(files: dict[str, bytes], path: str) -> list[list[str]]:
    old = csv.field_size_limit(_CSV_LIMIT)
    try:
        # newline="" keeps line breaks inside quoted fields, which pandas' to_csv writes verbatim.
        reader = csv.reader(io.StringIO(decode(files[path], path), newline=""), delimiter="\t")
        return [row for row in reader if row]
    except csv.Error as exc:
        raise CatalogImportError(path, f"invalid TSV: {exc}") from None
    finally:
        csv.field_size_limit(old)


def _folder(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def _retrieval(files: dict[str, bytes], folder: str, pool: dict[str, Tool], skipped: Counter) -> list:
    corpus_path = f"{folder}/corpus.tsv" if folder else "corpus.tsv"
    rows = _rows(files, corpus_path)
    if not rows or rows[0][:2] != ["docid", "document_content"]:
        raise CatalogImportError(corpus_path, "expected a header row 'docid<TAB>document_content'", record=1)
    doc_keys: dict[str, str] = {}
    for rec, row in enumerate(rows[1:], start=2):
        if len(row) != 2:
            raise CatalogImportError(corpus_path, f"expected 2 columns, got {len(row)}", record=rec)
        if row[0] not in doc_keys:
            tool = _tool(load_json(row[1], corpus_path, record=rec), corpus_path, rec, "document_content",
                         f"toolbench:{corpus_path}")
            pool.setdefault(tool.key, tool)
            doc_keys[row[0]] = tool.key
    pending = []
    for path in sorted(files):
        if _folder(path) != folder or not path.endswith(".query.txt"):
            continue
        name = PurePosixPath(path).name
        split_name = name.removesuffix(".query.txt")
        split = f"{PurePosixPath(folder).name}/{split_name}" if folder else split_name
        texts: dict[str, str] = {}
        for rec, row in enumerate(_rows(files, path), start=1):
            if len(row) != 2:
                raise CatalogImportError(path, f"expected 2 columns (qid, query), got {len(row)}", record=rec)
            text = text_field(row[1], path, rec, "query", required=True)
            if texts.setdefault(row[0], text) != text:  # the published files repeat a query once per gold API
                raise CatalogImportError(path, f"query id {row[0]!r} has two different texts", record=rec)
        gold: dict[str, list[str]] = {qid: [] for qid in texts}
        qrels = f"{folder}/qrels.{split_name}.tsv" if folder else f"qrels.{split_name}.tsv"
        for rec, row in enumerate(_rows(files, qrels) if qrels in files else [], start=1):
            if len(row) != 4:
                raise CatalogImportError(qrels, f"expected 4 columns (qid, 0, docid, label), got {len(row)}",
                                         record=rec)
            if row[0] not in gold or row[2] not in doc_keys:
                skipped["qrels rows naming a query or document id that is not in the files"] += 1
            elif row[3].strip() not in ("", "0"):
                gold[row[0]].append(doc_keys[row[2]])
        pending += [(f"{split}/{qid}", text, gold[qid], split) for qid, text in texts.items()]
    return pending


def parse(files: dict[str, bytes]) -> BenchmarkImport:
    pool: dict[str, Tool] = {}
    env: dict[str, Tool] = {}
    pending: list[tuple[str, str, list[str], str]] = []
    skipped: Counter[str] = Counter()
    for path in sorted(files):
        with guarded(path):
            p = PurePosixPath(path)
            if p.name == "corpus.tsv":
                pending += _retrieval(files, _folder(path), pool, skipped)
            if p.suffix != ".json":
                continue
            doc = load_json(decode(files[path], path), path)
            if isinstance(doc, dict) and "tool_name" in doc and "api_list" in doc:
                for tool in _tool_file(doc, path):
                    env.setdefault(tool.key, tool)
            elif isinstance(doc, list) and doc and isinstance(doc[0], dict) and "query" in doc[0] \
                    and ("api_list" in doc[0] or "relevant APIs" in doc[0]):
                pending += _queries_file(doc, path, p.stem, pool)
    if not pool and not env:
        raise CatalogImportError("toolbench", "no ToolBench files found: expected query JSON files "
                                 "(instruction/G1_query.json), toolenv/tools/<Category>/<tool>.json or corpus.tsv")
    pool.update(env)  # toolenv docs replace the copies inside query files, keeping first-seen order
    queries: list[Query] = []
    seen: set[str] = set()
    for qid, text, gold, split in pending:
        if qid in seen:
            raise CatalogImportError("toolbench", f"query id {qid!r} appears twice")
        seen.add(qid)
        kept = [g for g in dict.fromkeys(gold) if g in pool]
        skipped["gold APIs missing from the tool list (dropped from their query)"] += len(set(gold)) - len(kept)
        if not gold:
            skipped["queries with no relevant API"] += 1
        elif not kept:
            skipped["queries whose relevant APIs are all missing from the tool list"] += 1
        else:
            queries.append(Query(id=qid, text=text, gold=tuple(kept), split=split))
    lines = tuple(f"{n} {what}" for what, n in skipped.items() if n)
    return BenchmarkImport(benchmark="toolbench", tools=tuple(pool.values()), queries=tuple(queries), skipped=lines)
