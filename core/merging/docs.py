"""Merged documentation per final cluster (ToolScope §3.2 toolset update, App. G.3 rules): the merged schema
and, without a model, the merged description."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core.models import Tool


def _kind(spec: Any) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """What a parameter accepts, for comparing two of the same name: its type names and its enum (as JSON)."""
    spec = spec if isinstance(spec, dict) else {}
    types = spec.get("type")
    types = tuple(sorted(types)) if isinstance(types, list) else ((str(types),) if types else ())
    enum = spec.get("enum")
    enum = tuple(sorted(json.dumps(v, sort_keys=True, ensure_ascii=False) for v in enum)) \
        if isinstance(enum, list) else None
    return types, enum


def _describe(spec: Any) -> str:
    types, enum = _kind(spec)
    text = " or ".join(types) or "any type"
    return f"{text}, one of {', '.join(enum)}" if enum is not None else text


def parameter_conflicts(representative: Tool, others: Sequence[Tool]) -> tuple[dict[str, str], ...]:
    """ToolScope App. G.3 keeps the kept tool's parameters first, so where another member has a parameter of the
    same name that accepts other values (another type, another enum, or an enum on one side only), the merged
    tool takes the representative's and that member's calls may no longer fit. One record per such parameter
    and member: ``{"parameter", "kept", "from", "theirs"}`` (``kept`` and ``theirs`` say what each accepts;
    ``from`` is the member's key). The paper's prompt asks the model to align such inputs but does not define a
    conflict; this definition is ours."""
    mine = (representative.parameters or {}).get("properties") or {}
    out = []
    for other in others:
        for pname, spec in ((other.parameters or {}).get("properties") or {}).items():
            if pname in mine and _kind(mine[pname]) != _kind(spec):
                out.append({"parameter": pname, "kept": _describe(mine[pname]), "from": other.key,
                            "theirs": _describe(spec)})
    return tuple(out)


def merged_parameters(representative: Tool, others: Sequence[Tool]) -> dict[str, Any]:
    """The representative's schema first (its order, its required list), then every parameter only the
    others have, optional (ToolScope App. G.3: keep the kept tool's parameters and defaults first, add only
    the others' unique ones, optional), each with a note of where it came from (the note is ours). Where a
    parameter of the same name accepts other values elsewhere, the representative's wins
    (:func:`parameter_conflicts` lists those)."""
    schema = dict(representative.parameters or {})
    props: dict[str, Any] = dict(schema.get("properties") or {})
    required = list(schema.get("required") or [])
    for other in others:
        for pname, spec in (other.parameters or {}).get("properties", {}).items():
            if pname in props:
                continue
            spec = dict(spec) if isinstance(spec, dict) else {}
            note = f"(optional; from {other.name})"
            spec["description"] = f"{spec.get('description', '')} {note}".strip()
            props[pname] = spec
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def merged_locations(representative: Tool, others: Sequence[Tool]) -> dict[str, str] | None:
    """For HTTP tools (``extra["parameter_in"]``, see core/importers/openapi.py): where each argument of the
    merged tool goes, the representative's placement first, then the others' for the parameters only they
    have, so the executor can send every parameter the merged schema offers. ``None`` when the
    representative is no HTTP tool. Ours: the paper's tools have no HTTP placement."""
    located = (representative.extra or {}).get("parameter_in")
    if not isinstance(located, dict):
        return None
    out = dict(located)
    for other in others:
        theirs = (other.extra or {}).get("parameter_in")
        theirs = theirs if isinstance(theirs, dict) else {}
        for pname in (other.parameters or {}).get("properties", {}):
            if pname not in out:
                out[pname] = theirs.get(pname, "query")
    return out


def merged_tool(representative: Tool, others: Sequence[Tool], description: str) -> Tool:
    """The kept tool of a cluster: the representative's key and name, the merged description and schema
    (:func:`merged_parameters`), the merged members recorded in ``extra['merged_from']`` and the parameters
    whose values they disagree on in ``extra['merge_conflicts']`` (:func:`parameter_conflicts`, only when there
    are some); an HTTP tool also gets the placement of every merged parameter (:func:`merged_locations`)."""
    extra = dict(representative.extra or {})
    extra.pop("merge_conflicts", None)
    if others:
        extra["merged_from"] = [t.key for t in others]
        conflicts = parameter_conflicts(representative, others)
        if conflicts:
            extra["merge_conflicts"] = [dict(c) for c in conflicts]
        located = merged_locations(representative, others)
        if located is not None:
            extra["parameter_in"] = located
    return Tool(key=representative.key, name=representative.name, description=description,
                parameters=merged_parameters(representative, others), category=representative.category,
                source=representative.source, extra=extra)


# -- the merged description, written without a model ----------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
MAX_SENTENCE_CHARS = 240


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (whitespace folded), without its final full stop."""
    flat = " ".join(str(text or "").split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0].rstrip(" .") if flat else ""


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def purpose_sentence(members: Sequence[Tool]) -> str:
    """One sentence saying what the merged tool does: among the members' first sentences, the one that
    shares the most words with the other members' descriptions (the wording they have in common), not a
    question and not cut short; ties go to the earlier member (the representative comes first). Our
    definition: the paper leaves the sentence to its model M_D."""
    firsts = [(i, first_sentence(t.description)) for i, t in enumerate(members)]
    firsts = [(i, s) for i, s in firsts if s] or [(0, members[0].name.replace("_", " "))]

    def score(item: tuple[int, str]) -> tuple:
        i, s = item
        others = set().union(*[_content_words(t.description) for j, t in enumerate(members) if j != i]) \
            if len(members) > 1 else set()
        shared = len(_content_words(s) & others)
        usable = not s.endswith("?") and len(s.split()) >= 3 and len(s) <= MAX_SENTENCE_CHARS
        return usable, shared, -i

    best = max(firsts, key=score)[1].rstrip("?!. ")
    return best[:1].upper() + best[1:] + "."


def _names(names: Sequence[str], shown: int = 3) -> str:
    if len(names) > shown:
        return f"{', '.join(names[:shown])} and {len(names) - shown} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def merged_description(representative: Tool, others: Sequence[Tool], *, note: bool = True) -> str:
    """ToolScope §3.2 toolset update (M_D; App. G.3 asks to start with one or two concise sentences of
    purpose) without a model: :func:`purpose_sentence` over the cluster, then, with ``note``, one short
    sentence naming the tools the merged one replaces. With no others, the representative's description
    unchanged. (The paper's M_D is a model and also lists the arguments; this rule is our definition, and
    the arguments live in the merged schema.)"""
    if not others:
        return representative.description
    text = purpose_sentence([representative, *others])
    if not note:
        return text
    return f"{text} It replaces {_names([t.name for t in others])}, which did the same job."
