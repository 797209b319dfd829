"""What changed between BASE and NEW: tools added, removed and renamed (CONTDA's diff of two tool lists,
:func:`core.evolution.diff.diff_tools`), and the schema changes that break a caller.

Which schema changes break a caller is our definition (neither paper has one): a removed tool, a removed
parameter, a parameter that became required (a new one included), a changed type, and enum values taken
away. Adding optional parameters or enum values, or rewording a description, breaks nobody's call. Only
top-level parameters are compared; a renamed tool is compared with the tool it was renamed from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.evolution.diff import VersionDiff, diff_tools
from core.models import Tool

# Kinds of breaking change, in the order a report lists them.
TOOL_REMOVED = "tool removed"
PARAMETER_REMOVED = "parameter removed"
NEWLY_REQUIRED = "parameter newly required"
TYPE_CHANGED = "type changed"
ENUM_NARROWED = "enum values removed"
BREAKING_KINDS = (TOOL_REMOVED, PARAMETER_REMOVED, NEWLY_REQUIRED, TYPE_CHANGED, ENUM_NARROWED)


@dataclass(frozen=True)
class BreakingChange:
    key: str  # the tool's key in NEW (in BASE for a removed tool)
    name: str
    kind: str  # one of BREAKING_KINDS
    detail: str
    parameter: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "kind": self.kind, "parameter": self.parameter,
                "detail": self.detail}


@dataclass(frozen=True)
class ToolChanges:
    """The diff BASE → NEW and the breaking changes in it. ``changed`` holds retained keys whose content moved."""

    diff: VersionDiff
    breaking: tuple[BreakingChange, ...]

    @property
    def focus(self) -> tuple[str, ...]:
        """NEW keys a reviewer should look at: added, changed and renamed tools, in that order."""
        seen: dict[str, None] = {}
        for key in (*self.diff.added, *self.diff.changed, *(new for _, new in self.diff.renamed)):
            seen.setdefault(key, None)
        return tuple(seen)

    def base_key(self, new_key: str) -> str | None:
        """The BASE key of a NEW tool (its old key when renamed), or None for an added tool."""
        old = {new: old for old, new in self.diff.renamed}.get(new_key)
        if old is not None:
            return old
        return new_key if new_key in set(self.diff.retained) else None

    def to_json(self) -> dict[str, Any]:
        return {**self.diff.to_json(), "breaking": [b.to_json() for b in self.breaking]}


def _props(tool: Tool) -> Mapping[str, Any]:
    props = tool.parameters.get("properties") if isinstance(tool.parameters, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _type(spec: Any) -> str:
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    if isinstance(kind, list):
        return " | ".join(sorted(map(str, kind)))
    return "" if kind is None else str(kind)


def _enum(spec: Any) -> list[Any] | None:
    values = spec.get("enum") if isinstance(spec, Mapping) else None
    return list(values) if isinstance(values, list) else None


def schema_breaks(old: Tool, new: Tool) -> list[BreakingChange]:
    """The breaking changes from ``old`` to ``new`` (one tool in two versions; our rules, see the module)."""
    out: list[BreakingChange] = []
    before, after = _props(old), _props(new)
    was_required = set(old.required)

    def add(kind: str, param: str, detail: str) -> None:
        out.append(BreakingChange(new.key, new.name, kind, detail, param))

    for param in before:
        if param not in after:
            add(PARAMETER_REMOVED, param, f"parameter {param!r} was removed: calls that pass it now fail")
    for param in new.required:
        if param not in was_required:
            what = "a new parameter" if param not in before else "an optional parameter"
            add(NEWLY_REQUIRED, param, f"{param!r} is {what} that is now required: existing calls lack it")
    for param, spec in after.items():
        if param not in before:
            continue
        t0, t1 = _type(before[param]), _type(spec)
        if t0 and t1 and t0 != t1:
            add(TYPE_CHANGED, param, f"type of {param!r} changed from {t0} to {t1}")
        e0, e1 = _enum(before[param]), _enum(spec)
        if e0 is not None:
            gone = [v for v in e0 if v not in e1] if e1 is not None else []  # no enum now: anything goes
            if gone:
                add(ENUM_NARROWED, param, f"{param!r} no longer accepts {', '.join(map(repr, gone[:5]))}"
                                          + (f" and {len(gone) - 5} more" if len(gone) > 5 else ""))
    return out


def tool_changes(base: Sequence[Tool], new: Sequence[Tool], *, rename_threshold: float = 0.8) -> ToolChanges:
    """CONTDA's version diff (App. B.2, via :func:`diff_tools`) plus the breaking changes of every removed,
    changed or renamed tool."""
    diff = diff_tools(base, new, rename_threshold=rename_threshold)
    old_by_key = {t.key: t for t in base}
    new_by_key = {t.key: t for t in new}
    breaking: list[BreakingChange] = []
    for key in diff.removed:
        t = old_by_key[key]
        breaking.append(BreakingChange(key, t.name, TOOL_REMOVED, f"tool {t.name!r} was removed: agents that call "
                                                                  "it now fail"))
    for key in diff.changed:
        breaking += schema_breaks(old_by_key[key], new_by_key[key])
    for old, newk in diff.renamed:
        breaking += schema_breaks(old_by_key[old], new_by_key[newk])
    order = {k: i for i, k in enumerate(BREAKING_KINDS)}
    breaking.sort(key=lambda b: (order[b.kind], b.key, b.parameter))
    return ToolChanges(diff, tuple(breaking))
