"""BFCL (Berkeley Function Calling Leaderboard) in its released layout.

Verified against ``ShishirPatil/gorilla``, ``berkeley-function-call-leaderboard/bfcl_eval/data/``
(and the older ``berkeley-function-call-leaderboard/data/``):

* question files ``BFCL_v<N>_<category>.json`` — JSON Lines despite the extension, one
  ``{"id", "question": [[{"role", "content"}, ...], ...], "function": [{"name", "description",
  "parameters": {"type": "dict", "properties", "required"}}]}`` per line;
* ``possible_answer/BFCL_v<N>_<category>.json`` — ``{"id", "ground_truth": [{func_name: {arg:
  [allowed values]}}, ...]}`` per line.

Functions are attached to each question, so the catalog pools them by name (the first doc seen wins,
categories read in BFCL's own order). A query's text is its user turns joined by newlines, its gold the
function names of its ground truth, its split the category, its gold calls (:class:`core.models.GoldCall`) the
ground truth's calls with every accepted argument value (see :func:`_calls`). Questions without function docs
(multi-turn, memory, web search: their tools live elsewhere) and questions without a possible answer
(irrelevance, live_relevance, format_sensitivity) are skipped and counted. ``unused_datasets/`` is ignored.

A pooled tool keeps the first doc of its name, so a gold call written against another question's doc of the
same name may pass arguments the pooled doc lacks; call-level measures (TCCR/UCC) count such calls apart.
"""

from __future__ import annotations

import re
from collections import Counter
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
from core.models import GoldCall, Query, Tool

_FILE = re.compile(r"^BFCL_v\d+_(?P<category>.+)\.jsonl?$")
# BFCL's own category order (v4 names, then their v3 spellings) decides which doc of a shared name wins,
# so a folder of files yields the same catalog whatever order the files arrive in.
_ORDER = ["simple_python", "simple", "simple_java", "java", "simple_javascript", "javascript", "multiple",
          "parallel", "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
          "live_parallel_multiple"]
# BFCL writes Python, Java and JavaScript type names; "any" (or no name) means any value: no type at all.
_TYPES: dict[str, str | None] = {**JSON_TYPE_NAMES, "any": None, "": None}


def _convert(node: Any, root: bool = False) -> Any:
    """A copy of a schema node with standard type names; the original name is kept in x-original-type."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    original = out.get("type")
    if isinstance(original, str):
        mapped = _TYPES.get(original.lower())
        if mapped != original:
            if mapped is None:
                del out["type"]
            else:
                out["type"] = mapped
            if not root:  # every BFCL root says "dict"; recording that would only add noise
                out["x-original-type"] = original
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _convert(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _convert(out["items"])
    elif isinstance(out.get("items"), list):
        out["items"] = [_convert(v) for v in out["items"]]
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _convert(out["additionalProperties"])
    for combo in ("anyOf", "oneOf", "allOf"):
        if isinstance(out.get(combo), list):
            out[combo] = [_convert(v) for v in out[combo]]
    return out


def _lines(data: bytes, path: str) -> list[tuple[int, dict[str, Any]]]:
    records = []
    for line_no, line in enumerate(decode(data, path).split("\n"), start=1):
        if not line.strip():
            continue
        obj = load_json(line, path, record=line_no)
        if not isinstance(obj, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(obj)}", record=line_no)
        records.append((line_no, obj))
    return records


def _record_id(obj: dict[str, Any], path: str, line: int) -> str:
    return text_field(obj.get("id"), path, line, "id", required=True, limit=MAX_NAME_CHARS)


def _answers(data: bytes, path: str) -> dict[str, tuple[int, Any]]:
    out: dict[str, tuple[int, Any]] = {}
    for line, obj in _lines(data, path):
        qid = _record_id(obj, path, line)
        if qid in out:
            raise CatalogImportError(path, f"duplicate id {qid!r} (also line {out[qid][0]})", record=line, field="id")
        out[qid] = (line, obj.get("ground_truth"))
    return out


def _gold(truth: Any, path: str, line: int) -> tuple[str, ...]:
    if not isinstance(truth, list):
        raise CatalogImportError(path, f"must be a list of calls, not {kind(truth)}", record=line,
                                 field="ground_truth")
    names = []
    for i, call in enumerate(truth):
        if not isinstance(call, dict) or not call:
            raise CatalogImportError(path, f"must be a {{function name: arguments}} object, not {kind(call)}",
                                     record=line, field=f"ground_truth[{i}]")
        names += [text_field(n, path, line, f"ground_truth[{i}]", required=True, limit=MAX_NAME_CHARS)
                  for n in call]
    return tuple(dict.fromkeys(names))


# BFCL writes "" among an argument's accepted values when a correct call may leave the argument out, and None
# beside it for a Python default of None; both mean "may be left out" here (our reading of BFCL's checker).
_OMITTED = ("", None)


def _resolve(value: Any) -> Any:
    """One concrete value from a possible answer. BFCL nests its alternatives inside object values (``{"size":
    ["large"], "milk": ["", "oat"]}``, also in lists of such objects); each key takes its first accepted value
    and a key whose only answer is an omission is left out (our reading). Other values are returned as they are."""
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        out = {}
        for k, alternatives in value.items():
            kept = [v for v in alternatives if v not in _OMITTED]
            if kept:
                out[k] = _resolve(kept[0])
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_resolve(v) for v in value]
    return value


def _calls(truth: list[Any], path: str, line: int) -> tuple[GoldCall, ...]:
    """The ground truth's calls with their arguments, in order (a call repeated with other arguments, as in the
    parallel categories, is kept each time). An argument whose accepted values include "" or None is optional."""
    calls = []
    for i, call in enumerate(truth):
        for name, args in call.items():
            if not isinstance(args, dict):
                raise CatalogImportError(path, f"must be an {{argument: [accepted values]}} object, not {kind(args)}",
                                         record=line, field=f"ground_truth[{i}].{name}")
            arguments: dict[str, tuple[Any, ...]] = {}
            optional = []
            for arg, accepted in args.items():
                accepted = accepted if isinstance(accepted, list) else [accepted]
                arguments[str(arg)] = tuple(_resolve(v) for v in accepted if v not in _OMITTED)
                if len(arguments[str(arg)]) < len(accepted):
                    optional.append(str(arg))
            calls.append(GoldCall(str(name), arguments, tuple(optional)))
    return tuple(calls)


def _query_text(question: Any, path: str, line: int) -> str:
    if not isinstance(question, list):
        raise CatalogImportError(path, f"must be a list of turns, not {kind(question)}", record=line,
                                 field="question")
    parts = []
    for t, turn in enumerate(question):
        messages = turn if isinstance(turn, list) else [turn]  # tolerate a flat list of messages
        for m, msg in enumerate(messages):
            field = f"question[{t}][{m}]" if isinstance(turn, list) else f"question[{t}]"
            if not isinstance(msg, dict):
                raise CatalogImportError(path, f"must be a message object, not {kind(msg)}", record=line,
                                         field=field)
            if msg.get("role") == "user":
                content = text_field(msg.get("content"), path, line, f"{field}.content", required=False)
                if content:
                    parts.append(content)
    if not parts:
        raise CatalogImportError(path, "has no user message", record=line, field="question")
    return "\n".join(parts)


def _functions(value: Any, path: str, line: int, source: str, split: str) -> list[Tool]:
    if isinstance(value, dict):  # a few early files hold one function doc instead of a list
        value = [value]
    if not isinstance(value, list):
        raise CatalogImportError(path, f"must be a list of function docs, not {kind(value)}", record=line,
                                 field="function")
    tools = []
    for i, fn in enumerate(value):
        field = f"function[{i}]"
        if not isinstance(fn, dict):
            raise CatalogImportError(path, f"must be an object, not {kind(fn)}", record=line, field=field)
        name = text_field(fn.get("name"), path, line, f"{field}.name", required=True, limit=MAX_NAME_CHARS)
        description = text_field(fn.get("description"), path, line, f"{field}.description", required=False)
        params = check_schema(_convert(fn.get("parameters"), root=True), path, line, f"{field}.parameters")
        tools.append(Tool(key=name, name=name, description=description, parameters=params, category=split,
                          source=source))
    return tools


def _rank(item: tuple[str, str]) -> tuple[int, str, str]:
    path, category = item
    return (_ORDER.index(category) if category in _ORDER else len(_ORDER), category, path)


def parse(files: dict[str, bytes]) -> BenchmarkImport:
    questions: list[tuple[str, str]] = []
    answers: dict[str, str] = {}
    for path in files:
        parts = path.split("/")
        match = _FILE.match(parts[-1])
        if match is None or "unused_datasets" in parts[:-1]:
            continue
        if "possible_answer" in parts[:-1]:
            if parts[-1] in answers:
                raise CatalogImportError(path, f"two answer files named {parts[-1]!r} (also {answers[parts[-1]]})")
            answers[parts[-1]] = path
        else:
            questions.append((path, match["category"]))
    if not questions:
        raise CatalogImportError("bfcl", "no BFCL question files (BFCL_v<N>_<category>.json) found")

    pool: dict[str, Tool] = {}
    carried: Counter[str] = Counter()
    queries: list[Query] = []
    seen: dict[str, str] = {}
    skipped: list[str] = []
    for path, split in sorted(questions, key=_rank):
        base = path.rsplit("/", 1)[-1]
        with guarded(path):
            records = _lines(files[path], path)
            answer_path = answers.get(base)
            if answer_path is None:
                skipped.append(f"{base}: {len(records)} questions with no possible_answer file (no gold)")
                continue
            with guarded(answer_path):
                truth = _answers(files[answer_path], answer_path)
            reasons: Counter[str] = Counter()
            for line, obj in records:
                qid = _record_id(obj, path, line)
                if "function" not in obj:
                    reasons["without function docs in the question (multi-turn/agentic layout)"] += 1
                    continue
                if qid not in truth:
                    reasons["without a ground truth in the answer file"] += 1
                    continue
                text = _query_text(obj.get("question"), path, line)
                tools = _functions(obj.get("function"), path, line, f"bfcl:{base}", split)
                gold = _gold(truth[qid][1], answer_path, truth[qid][0])
                if not gold:
                    reasons["with an empty ground truth"] += 1
                    continue
                if any(g not in {t.name for t in tools} for g in gold):
                    reasons["whose gold function is not among the question's functions"] += 1
                    continue
                if qid in seen:
                    raise CatalogImportError(path, f"duplicate question id {qid!r} (also in {seen[qid]})",
                                             record=line, field="id")
                seen[qid] = path
                for tool in tools:
                    pool.setdefault(tool.key, tool)
                    carried[tool.key] += 1
                calls = _calls(truth[qid][1], answer_path, truth[qid][0])
                queries.append(Query(id=qid, text=text, gold=gold, split=split, gold_calls=calls))
            skipped += [f"{base}: {n} questions {why}" for why, n in sorted(reasons.items())]
    tools = tuple(Tool(key=t.key, name=t.name, description=t.description, parameters=t.parameters,
                       category=t.category, source=t.source, extra={"bfcl_questions": carried[t.key]})
                  for t in pool.values())
    return BenchmarkImport(benchmark="bfcl", tools=tools, queries=tuple(queries), skipped=tuple(skipped))
