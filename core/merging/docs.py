"""Merged documentation per final cluster (ToolScope §3.2 toolset update, App. G.3 rules)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.models import Tool


def merged_parameters(representative: Tool, others: Sequence[Tool]) -> dict[str, Any]:
    """The representative's schema first (its order, its required list), then every parameter only the
    others have, optional, with a note of where it came from."""
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


def merged_tool(representative: Tool, others: Sequence[Tool], description: str) -> Tool:
    """The kept tool of a cluster: the representative's key and name, the merged description and schema,
    and the merged members recorded in ``extra['merged_from']``."""
    extra = dict(representative.extra or {})
    if others:
        extra["merged_from"] = [t.key for t in others]
    return Tool(key=representative.key, name=representative.name, description=description,
                parameters=merged_parameters(representative, others), category=representative.category,
                source=representative.source, extra=extra)
