"""Write a catalog back out, in one of two shapes:

- ``openai``: exactly an OpenAI ``tools`` list (``type`` and ``function`` with name, description, parameters),
  what an agent or the API expects; nothing of ours rides along.
- ``atlas``: the same entries plus our ``key``, ``category`` and each tool's extras (an OpenAPI operation's
  method and path, MCP annotations…), so that ``toolatlas import`` reads back the same tools. Launch fields
  (commands, working directories, file paths) never leave the store this way, even from a store written
  before they were dropped at import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.importers.launch import drop_launch_fields
from core.models import Tool

FORMATS = {"openai": "OpenAI tools JSON", "atlas": "Tool Atlas JSON (round trip: keys, categories, extras)"}
# Fields to_openai() owns; an extra with one of these names would change the tool on re-import.
_RESERVED = frozenset({"type", "function", "key", "category"})


def tool_entry(tool: Tool, fmt: str = "atlas") -> dict[str, Any]:
    """One list entry in the format ``fmt`` (see the module's docstring)."""
    entry = tool.to_openai()
    if fmt == "openai":
        return {"type": entry["type"], "function": entry["function"]}
    (clean,), _ = drop_launch_fields([tool])
    entry.update({k: v for k, v in clean.extra.items() if k not in _RESERVED})
    return entry


def export_openai_tools(tools: Iterable[Tool], fmt: str = "openai") -> str:
    """A pretty-printed JSON list; in the ``atlas`` format ``parse_openai_tools`` reads it back to the same
    tools."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    return json.dumps([tool_entry(t, fmt) for t in tools], indent=2, ensure_ascii=False) + "\n"
