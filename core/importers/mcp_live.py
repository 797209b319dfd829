"""A live MCP server as a catalog: start it, list its tools, stop it.

The tools carry nothing about how to start the server: the caller (``toolatlas import-mcp``, the operator's
own command line) registers the command with the catalog (:meth:`core.workspace.Workspace.register_mcp_server`),
so a trial can start the same server later and call the tool (GRETEL §3.2.1 runs candidates against the real
service) while a catalog file can never name a process.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.importers.errors import CatalogImportError
from core.models import Tool


def load_mcp_server(command: Sequence[str], *, timeout: float = 30.0) -> list[Tool]:
    """The tools a stdio MCP server lists. Raises :class:`CatalogImportError` naming the command when
    the server cannot be started, does not answer, or lists no tools."""
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
    return list(tools)
