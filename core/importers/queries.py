"""Queries JSONL: one ``{id, query, gold, split}`` object per line."""

from __future__ import annotations

import json
from collections.abc import Collection

from core.importers._common import MAX_DESCRIPTION_CHARS, decode, text_field
from core.importers.errors import CatalogImportError
from core.models import Query


def parse_queries_jsonl(data: bytes | str, path: str = "<upload>",
                        known_keys: Collection[str] | None = None) -> tuple[Query, ...]:
    """Every query of the file (blank lines skipped), or an error naming the line and field."""
    text = decode(data, path)
    out: list[Query] = []
    seen: dict[str, int] = {}
    known = set(known_keys) if known_keys is not None else None
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CatalogImportError(path, f"invalid JSON at column {exc.colno}: {exc.msg}", record=line_no) from None
        except RecursionError:
            raise CatalogImportError(path, "JSON nested too deeply", record=line_no) from None
        if not isinstance(obj, dict):
            raise CatalogImportError(path, f"must be an object, got {type(obj).__name__}", record=line_no)
        qid = obj.get("id")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise CatalogImportError(path, "missing or not a string/integer", record=line_no, field="id")
        qid = text_field(str(qid), path, line_no, "id", required=True, limit=500)
        if qid in seen:
            raise CatalogImportError(path, f"duplicate id {qid!r} (also line {seen[qid]})", record=line_no, field="id")
        seen[qid] = line_no
        query = text_field(obj.get("query", obj.get("text")), path, line_no, "query", required=True,
                           limit=MAX_DESCRIPTION_CHARS)
        gold = obj.get("gold", [])
        if isinstance(gold, str):
            gold = [gold]
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise CatalogImportError(path, "must be a list of tool keys", record=line_no, field="gold")
        if known is not None:
            unknown = [g for g in gold if g not in known]
            if unknown:
                raise CatalogImportError(path, f"{unknown[0]!r} is not a tool of the catalog", record=line_no,
                                         field="gold")
        split = obj.get("split", "")
        split = text_field(split if split is not None else "", path, line_no, "split", required=False, limit=200)
        out.append(Query(qid, query, tuple(dict.fromkeys(gold)), split))
    if not out:
        raise CatalogImportError(path, "no queries in the file")
    return tuple(out)
