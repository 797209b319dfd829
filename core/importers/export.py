"""Export a catalog as OpenAI tools JSON (with ``key`` and ``category`` kept)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from core.models import Tool


def export_openai_tools(tools: Iterable[Tool]) -> str:
    return json.dumps([t.to_openai() for t in tools], indent=2, ensure_ascii=False) + "\n"
