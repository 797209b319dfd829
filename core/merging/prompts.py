"""Prompts of the merge judge, in our own words (ToolScope §3.2 roles M_C, V and M_D)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from core.models import Tool

SYSTEM = ("You review catalogs of API tools for an engineering team. You judge whether tools duplicate "
          "each other and answer exactly in the format you are asked for.")


def tool_block(tool: Tool, label: str | None = None) -> str:
    params = tool.parameters.get("properties", {}) if isinstance(tool.parameters, dict) else {}
    lines = [f"{label or tool.key}: {tool.name}", f"  what it does: {' '.join(tool.description.split())[:600]}"]
    extra = tool.extra or {}
    if isinstance(extra.get("method"), str) and isinstance(extra.get("path"), str):
        lines.append(f"  endpoint: {extra['method'].upper()} {extra['path']}")
    for name, spec in list(params.items())[:20]:
        spec = spec if isinstance(spec, dict) else {}
        req = "required" if name in tool.required else "optional"
        lines.append(f"  - {name} ({spec.get('type', 'any')}, {req}): {str(spec.get('description', ''))[:160]}")
    return "\n".join(lines)


def classify_pair(a: Tool, b: Tool) -> str:
    return (
        "Two tools from the same catalog are below. Decide whether an agent could always use one in place "
        "of the other: they serve the same user goal, and their inputs line up once arguments are renamed "
        "or made optional. Tools that share a topic but do different jobs (search versus delete, a forecast "
        "versus current conditions, a loan versus savings) are not the same, and neither are tools acting on "
        "different resources (movies versus TV series, a user versus a playlist, two different endpoints of "
        "one API) or tools that need identifiers of different things.\n\n"
        f"{tool_block(a, 'A')}\n\n{tool_block(b, 'B')}\n\n"
        'Answer with one JSON object and nothing else: {"same": true or false, "reason": "one short sentence"}'
    )


def audit_cluster(members: Sequence[Tool]) -> str:
    blocks = "\n\n".join(tool_block(t) for t in members)
    return (
        "These tools were grouped as duplicates of each other. Check the group: merging is right only if "
        "every tool serves the same user goal and their inputs can be aligned without losing a capability.\n\n"
        f"{blocks}\n\n"
        "Answer with one JSON object and nothing else. If the whole group can become one tool: "
        '{"verdict": "MERGE_OK", "reason": "…"}. Otherwise split it, listing every tool id exactly once: '
        '{"verdict": "MERGE_BAD", "groups": [["id", "id"], ["id"]], "reason": "…"}'
    )


def merged_doc(representative: Tool, others: Sequence[Tool]) -> str:
    return (
        f"Several tools do the same job and will be replaced by one tool called {representative.name}. "
        "Write its description for a developer choosing tools: one clear sentence on what it does, in plain "
        "words, covering what each of the tools below can do; then, only if it helps, one short sentence "
        "naming the tools it replaces. Do not list parameters, do not write code and do not quote the old "
        "descriptions.\n\n"
        f"Kept tool:\n{tool_block(representative)}\n\nMerged into it:\n"
        + "\n\n".join(tool_block(t) for t in others)
        + "\n\nAnswer with the description only, between {BEGIN} and {END}."
    )


def ids_json(members: Sequence[Tool]) -> str:
    return json.dumps([t.key for t in members])
