"""Write a catalog back out as OpenAI tools JSON, in the interchange format the importer reads."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.models import Tool

# Fields to_openai() owns; an extra with one of these names would change the tool on re-import.
_RESERVED = frozenset({"type", "function", "key", "category"})


def tool_entry(tool: Tool) -> dict[str, Any]:
    """One list entry: ``Tool.to_openai()`` plus the tool's extras as top-level fields.

    The importer keeps unknown top-level fields in ``Tool.extra``, so extras (an OpenAPI
    operation's method and path, MCP annotations...) survive an export/import round trip.
    """
    entry = tool.to_openai()
    entry.update({k: v for k, v in tool.extra.items() if k not in _RESERVED})
    return entry


def export_openai_tools(tools: Iterable[Tool]) -> str:
    """A pretty-printed JSON list that ``parse_openai_tools`` reads back to the same tools."""
    return json.dumps([tool_entry(t) for t in tools], indent=2, ensure_ascii=False) + "\n"
