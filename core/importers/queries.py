"""Queries JSONL: one ``{"id", "query", "gold", "split"}`` object per line, optionally with ``gold_calls``: a
list of ``{"tool": key, "arguments": {name: [accepted values]}, "optional": [names]}`` (each tool one of the
line's gold keys; one value per argument for an exact call; ``optional`` names the arguments a correct call
may leave out), as :meth:`core.models.GoldCall.to_json` writes them."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from core.importers._common import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    decode,
    guarded,
    kind,
    load_json,
    read_file,
    text_field,
)
from core.importers.errors import CatalogImportError
from core.models import GoldCall, Query


def _gold(value: Any, path: str, line: int, known: set[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise CatalogImportError(path, f"must be a list of tool keys, not {kind(value)}", record=line, field="gold")
    keys = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise CatalogImportError(path, f"must be a list of tool keys; item {i + 1} is {kind(item)}",
                                     record=line, field="gold")
        keys.append(text_field(item, path, line, "gold", required=True, limit=MAX_NAME_CHARS))
    if known is not None:
        unknown = [k for k in keys if k not in known]
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise CatalogImportError(path, f"{unknown[0]!r} is not a tool of the catalog{more}", record=line,
                                     field="gold")
    return tuple(dict.fromkeys(keys))


def _gold_calls(value: Any, path: str, line: int, gold: tuple[str, ...]) -> tuple[GoldCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise CatalogImportError(path, f"must be a list of calls, not {kind(value)}", record=line, field="gold_calls")
    calls = []
    for i, call in enumerate(value):
        field = f"gold_calls[{i}]"
        if not isinstance(call, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(call)}", record=line, field=field)
        tool = text_field(call.get("tool"), path, line, f"{field}.tool", required=True, limit=MAX_NAME_CHARS)
        if tool not in gold:
            raise CatalogImportError(path, f"{tool!r} is not one of the line's gold tools", record=line,
                                     field=f"{field}.tool")
        args = call.get("arguments", {})
        if not isinstance(args, dict) or not all(isinstance(v, list) for v in args.values()):
            raise CatalogImportError(path, "must map each argument to a list of accepted values", record=line,
                                     field=f"{field}.arguments")
        optional = call.get("optional", [])
        if not isinstance(optional, list) or not all(isinstance(o, str) and o in args for o in optional):
            raise CatalogImportError(path, "must list argument names of the call", record=line,
                                     field=f"{field}.optional")
        calls.append(GoldCall(tool, {str(k): tuple(v) for k, v in args.items()}, tuple(optional)))
    return tuple(calls)


def parse_queries_jsonl(data: bytes | str, path: str = "<upload>",
                        known_keys: Collection[str] | None = None) -> tuple[Query, ...]:
    """Every query of a JSONL file, or a :class:`CatalogImportError` naming the line and field.

    Blank lines are skipped; ``record`` in errors is the physical line number. Fields other
    than id/query/gold/split/gold_calls (``gold_alternatives`` among them) are ignored.
    """
    with guarded(path):
        text = decode(data, path)
        known = set(known_keys) if known_keys is not None else None
        queries: list[Query] = []
        first_line: dict[str, int] = {}
        # Split on "\n" only: str.splitlines() would also break on U+2028 and friends, which JSON
        # allows unescaped inside strings.
        for line_no, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            obj = load_json(line, path, record=line_no)
            if not isinstance(obj, dict):
                raise CatalogImportError(path, f"must be an object, not {kind(obj)}", record=line_no)
            raw_id = obj.get("id")
            if raw_id is None:
                raise CatalogImportError(path, "missing", record=line_no, field="id")
            if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
                raise CatalogImportError(path, f"must be a string or an integer, not {kind(raw_id)}",
                                         record=line_no, field="id")
            qid = text_field(str(raw_id), path, line_no, "id", required=True, limit=MAX_NAME_CHARS)
            if qid in first_line:
                raise CatalogImportError(path, f"duplicate id {qid!r} (also line {first_line[qid]})",
                                         record=line_no, field="id")
            first_line[qid] = line_no
            query = text_field(obj.get("query"), path, line_no, "query", required=True, limit=MAX_DESCRIPTION_CHARS)
            gold = _gold(obj.get("gold"), path, line_no, known)
            split = text_field(obj.get("split"), path, line_no, "split", required=False, limit=MAX_NAME_CHARS)
            calls = _gold_calls(obj.get("gold_calls"), path, line_no, gold)
            queries.append(Query(id=qid, text=query, gold=gold, split=split, gold_calls=calls))
        return tuple(queries)


def load_queries_jsonl(path: str | Path, known_keys: Collection[str] | None = None) -> tuple[Query, ...]:
    """Read and parse a queries JSONL file."""
    return parse_queries_jsonl(read_file(path), str(path), known_keys)
