"""Catalog files are data: a field that would tell Tool Atlas how to start a process, open a file or run code
from a path is dropped when the catalog is imported, and listed in the import report.

How to reach a tool's MCP server is recorded only by ``toolatlas import-mcp`` (the operator's own command
line, stored in its own table, see :func:`storage.catalogs.register_mcp_server`). The importers of files keep
unknown fields in a tool's free ``extra``; executors never read a launch from there, and this module keeps
such fields out of the store altogether so that no later code can be tempted to.

Which names count is our own rule (no paper covers it): MCP-style launch fields (``mcp_command``,
``mcp_cwd``, ``mcpServers`` …), generic process fields (``command``, ``args``, ``cwd``, ``env``,
``executable``, ``shell`` …) at a tool's top level or under ``function.``, and a ``path`` inside a tool's
Python entry (inline ``source`` stays: tool code from a catalog runs only in the sandbox, when asked for).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from core.models import Tool

_LAUNCH_NAME = re.compile(
    r"(mcp[\W_].*|mcp_?servers?|command|commands|cmd|args|argv|arguments_cli|cwd|workdir|working_dir(ectory)?|"
    r"env|environment|executable|exec|shell|script|launch|launcher|spawn|run|stdio|transport|server_command|"
    r"entry_?point|binary|interpreter|pre_?exec|hooks?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DroppedField:
    """A field left out of an imported tool because it named a process, a path or a launch."""

    tool: str  # the tool's key
    field: str  # the field's name as the file spelled it (``python.path`` for a nested one)


def is_launch_field(name: str) -> bool:
    """Whether a tool's free field ``name`` (optionally ``function.``-prefixed) is a launch field."""
    return bool(_LAUNCH_NAME.fullmatch(name.removeprefix("function.")))


def drop_launch_fields(tools: Sequence[Tool]) -> tuple[tuple[Tool, ...], tuple[DroppedField, ...]]:
    """``tools`` without launch fields in their ``extra``, and what was dropped (in tool order)."""
    kept: list[Tool] = []
    dropped: list[DroppedField] = []
    for tool in tools:
        extra = dict(tool.extra) if isinstance(tool.extra, Mapping) else {}
        gone = [name for name in extra if is_launch_field(name)]
        for name in gone:
            del extra[name]
        python = extra.get("python")
        if isinstance(python, Mapping) and "path" in python:
            extra["python"] = {k: v for k, v in python.items() if k != "path"}
            gone.append("python.path")
        dropped += [DroppedField(tool.key, name) for name in gone]
        kept.append(replace(tool, extra=extra) if gone else tool)
    return tuple(kept), tuple(dropped)


def describe_dropped(dropped: Sequence[DroppedField], *, limit: int = 12) -> str:
    """One line for an import report: how many launch fields were dropped, from which tools, and why."""
    if not dropped:
        return ""
    tools = {d.tool for d in dropped}
    shown = ", ".join(f"{d.tool}.{d.field}" for d in dropped[:limit])
    more = f" and {len(dropped) - limit} more" if len(dropped) > limit else ""
    return (f"Dropped {len(dropped)} launch field{'s' * (len(dropped) != 1)} from {len(tools)} "
            f"tool{'s' * (len(tools) != 1)}: {shown}{more}. Catalog files are data: nothing in them is started, "
            f"opened or called; MCP servers are registered only with the command toolatlas import-mcp.")
