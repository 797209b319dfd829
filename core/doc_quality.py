"""How well a tool's documentation lets an agent find and call it: a 1–5 score with the problems found.

Two raters behind one call, :func:`rate`: the rules here (instant, offline, the default) and the
``doc_quality`` role of any :class:`core.llm.roles.Operators` (a model reads :func:`render_doc`). The
offline operators' role applies these same rules to the rendered text, so both paths see one document.

The rules look only for problems a maintainer can fix and an agent suffers from: no or a very short
description, a description that only restates the name, parameters without a description or a type,
and names that say nothing. (A required parameter the schema lacks never gets this far: the importers
refuse it.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.models import Tool

MIN_WORDS = 6  # fewer words than this cannot say what a tool does, takes and returns
GENERIC_NAMES = frozenset({"tool", "run", "do", "api", "call", "execute", "func", "function", "action", "process",
                           "handler", "main", "test"})
_FILLER = frozenset({"a", "an", "the", "of", "to", "for", "and"})
_WORD = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
_PARAM_LINE = re.compile(r"^- (?P<name>\S+) \((?P<type>[^,)]*), (?P<req>required|optional)\)(?:: (?P<desc>.*))?$")


@dataclass(frozen=True)
class DocQuality:
    key: str
    score: int  # 1 (an agent can hardly use it) … 5 (nothing to fix)
    issues: tuple[str, ...]
    rater: str  # "rules" or the model that answered
    error: str | None = None  # the rater's call failed: score and issues are the rules' instead


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def render_doc(tool: Tool) -> str:
    """The documentation as a rater reads it: name, description, then one line per parameter."""
    props = tool.parameters.get("properties") or {}
    required = set(tool.required)
    lines = [f"Name: {tool.name}", f"Description: {' '.join(tool.description.split())}", "Parameters:"]
    for name, spec in props.items():
        spec = spec if isinstance(spec, dict) else {}
        kind = spec.get("type", "")
        kind = " | ".join(map(str, kind)) if isinstance(kind, list) else str(kind)
        desc = " ".join(str(spec.get("description", "")).split())
        lines.append(f"- {name} ({kind}, {'required' if name in required else 'optional'})" + (f": {desc}" if desc else ""))
    if len(lines) == 3:
        lines.append("(none)")
    return "\n".join(lines)


def _parse(doc: str) -> tuple[str, str, list[tuple[str, str, bool, str]]]:
    name, description, params = "", "", []
    for line in doc.split("\n"):
        if line.startswith("Name: "):
            name = line[6:]
        elif line.startswith("Description: "):
            description = line[13:]
        elif (m := _PARAM_LINE.match(line)) is not None:
            params.append((m["name"], m["type"].strip(), m["req"] == "required", (m["desc"] or "").strip()))
    return name, description, params


def _listed(names: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def issues_of_doc(doc: str) -> list[str]:
    """The rules over a :func:`render_doc` text."""
    name, description, params = _parse(doc)
    found: list[str] = []
    desc_words = words(description)
    name_words = set(words(name))
    if not desc_words:
        found.append("no description")
    elif len(desc_words) < MIN_WORDS:
        found.append(f"description is very short ({len(desc_words)} words)")
    if desc_words and set(desc_words) <= name_words | _FILLER:
        found.append("description only restates the name")
    if not name_words or name_words <= GENERIC_NAMES or len(name.strip()) < 3:
        found.append("the name says little about what the tool does")
    undescribed = [p for p, _t, _r, d in params if not d]
    if undescribed:
        found.append(f"{len(undescribed)} of {len(params)} parameters have no description ({_listed(undescribed)})")
    # "title: Title." tells an agent nothing the name did not: it still has to guess the format and meaning
    echoed = [p for p, _t, _r, d in params if d and set(words(d)) <= set(words(p)) | _FILLER]
    if echoed:
        found.append(f"{len(echoed)} of {len(params)} parameter descriptions only restate the name "
                     f"({_listed(echoed)})")
    untyped = [p for p, t, _r, _d in params if not t]
    if untyped:
        found.append(f"parameters without a type ({_listed(untyped)})")
    return found


def score_of(issues: Sequence[str]) -> int:
    """5 minus one per problem, at least 1; a missing description alone already costs two."""
    penalty = sum(2 if issue == "no description" else 1 for issue in issues)
    return max(1, 5 - penalty)


def rate_by_rules(tool: Tool) -> DocQuality:
    found = issues_of_doc(render_doc(tool))
    return DocQuality(tool.key, score_of(found), tuple(found), "rules")


def rate(tool: Tool, operators: Any | None = None) -> DocQuality:
    """One tool's rating: by the rules, or by ``operators.doc_quality`` (its call recorded in their ledger).
    A failed call falls back to the rules' rating and says so in ``error``."""
    if operators is None:
        return rate_by_rules(tool)
    rc = operators.doc_quality(render_doc(tool))
    if not rc.ok:
        ruled = rate_by_rules(tool)
        return DocQuality(tool.key, ruled.score, ruled.issues, "rules", rc.error)
    return DocQuality(tool.key, int(rc.value["score"]), tuple(rc.value["issues"]), str(operators.model))


def rate_all(tools: Sequence[Tool], operators: Any | None = None, *,
             progress: Callable[[int, int], None] | None = None) -> tuple[DocQuality, ...]:
    out = []
    for i, tool in enumerate(tools, start=1):
        out.append(rate(tool, operators))
        if progress:
            progress(i, len(tools))
    return tuple(out)


def issue_kinds(ratings: Sequence[DocQuality]) -> dict[str, int]:
    """How many tools have each kind of problem (counts and names stripped), most common first."""
    counts: dict[str, int] = {}
    for r in ratings:
        for issue in r.issues:
            kind = re.sub(r"\s*\(.*\)$", "", re.sub(r"^\d+ of \d+ ", "", issue))
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
