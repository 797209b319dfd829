"""A live MCP server as a catalog: start it, list its tools, stop it.

Each tool keeps the command that started the server in ``extra["mcp_command"]`` (and the working
directory in ``extra["mcp_cwd"]``), so a trial can start the same server later and call the tool
(GRETEL §3.2.1 runs candidates against the real service).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from core.importers.errors import CatalogImportError
from core.models import Tool


def load_mcp_server(command: Sequence[str], *, timeout: float = 30.0) -> list[Tool]:
    """The tools a stdio MCP server lists. Raises :class:`CatalogImportError` naming the command when
    the server cannot be started, does not answer, or lists no tools."""
    from dataclasses import replace

    from core.execution.mcp import McpExecutor

    if isinstance(command, str) or not command:
        raise CatalogImportError("mcp", f"the server command must be a non-empty list of words, got {command!r}")
    label = " ".join(command)
    try:
        executor = McpExecutor(command, start_timeout=timeout)
    except ValueError as exc:
        raise CatalogImportError(label, str(exc)) from None
    with executor:
        try:
            tools = executor.list_tools()
        except Exception as exc:  # ConnectionError from a failed start, TimeoutError, protocol errors
            raise CatalogImportError(label, f"cannot list the server's tools: {exc}") from None
    if not tools:
        raise CatalogImportError(label, "the server lists no tools")
    cwd = os.getcwd()
    return [replace(t, extra={**t.extra, "mcp_cwd": cwd}) for t in tools]
