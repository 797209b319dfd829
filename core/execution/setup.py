"""Which executors a catalog's trials use: the MCP servers its tools were imported from (the command is
kept in each tool's ``extra["mcp_command"]``, its working directory in ``extra["mcp_cwd"]``), the demo MCP
server for the demo catalog, the HTTP executor for OpenAPI tools when it is switched on with an
allow-list, and the Python sandbox when asked for."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.execution.base import ExecutionResult
from core.models import Tool

DEMO_SERVER = Path(__file__).resolve().parents[2] / "assets" / "demo_mcp" / "server.py"
Server = tuple[tuple[str, ...], str | None]  # (command line, working directory)


def demo_server_command() -> list[str]:
    """The demo MCP server, started with this interpreter over stdio."""
    if not DEMO_SERVER.is_file():
        raise FileNotFoundError(f"demo MCP server missing at {DEMO_SERVER}")
    return [sys.executable, str(DEMO_SERVER)]


def demo_missing_endpoints() -> frozenset[str]:
    """Demo tools documented in the catalog that the demo server does not serve (GRETEL's endpoints that
    deviate from their documentation): calling them must reach the server and fail there."""
    served = json.loads((DEMO_SERVER.parent / "served.json").read_text(encoding="utf-8"))
    return frozenset(m["name"] if isinstance(m, dict) else str(m) for m in served.get("missing", ()))


def mcp_servers(tools: Sequence[Tool]) -> list[Server]:
    """The distinct servers recorded on ``tools``, in first-seen order."""
    seen: list[Server] = []
    for tool in tools:
        extra = tool.extra if isinstance(tool.extra, Mapping) else {}
        command = extra.get("mcp_command")
        cwd = extra.get("mcp_cwd") if isinstance(extra.get("mcp_cwd"), str) else None
        if isinstance(command, list | tuple) and command and all(isinstance(c, str) for c in command):
            if (tuple(command), cwd) not in seen:
                seen.append((tuple(command), cwd))
    return seen


class ClaimingExecutor:
    """An executor that also takes the named tools its server does not list, so a call to a documented
    but missing endpoint is made and fails at the server ("not_found") instead of never being tried."""

    def __init__(self, inner: Any, names: Collection[str]) -> None:
        self.inner = inner
        self.names = frozenset(names)
        self.name = inner.name

    def covers(self, tool: Tool) -> bool:
        return tool.name in self.names or self.inner.covers(tool)

    def call(self, tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 10.0) -> ExecutionResult:
        return self.inner.call(tool, arguments, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


def build_router(tools: Sequence[Tool], *, demo: bool = False, mcp: Sequence[Sequence[str]] = (),
                 http_hosts: Collection[str] = (), sandbox: bool = False, timeout: float = 10.0):
    """An :class:`core.execution.router.ExecutorRouter` for ``tools``. Servers start lazily, on the first
    question about a tool, and are stopped by the router's ``close()``.

    Python tools (``extra["python"]``) run only when ``sandbox`` is asked for: a catalog file is untrusted
    input, and running its code, even sandboxed, must be the user's choice."""
    from core.execution.mcp import McpExecutor
    from core.execution.router import ExecutorRouter

    servers: list[Server] = [(tuple(c), None) for c in mcp]
    executors: list[Any] = []
    if demo:
        executors.append(ClaimingExecutor(McpExecutor(demo_server_command(), name="mcp-demo"),
                                          demo_missing_endpoints()))
    servers += [s for s in mcp_servers(tools) if s not in servers]
    executors += [McpExecutor(list(command), cwd=cwd, name=f"mcp-{i + 1}") for i, (command, cwd) in enumerate(servers)]
    if http_hosts:
        from core.execution.http import HttpExecutor

        executors.append(HttpExecutor(list(http_hosts), enabled=True, timeout=timeout))
    if sandbox:
        from core.execution.sandbox import SandboxExecutor

        executors.append(SandboxExecutor(timeout=timeout))
    return ExecutorRouter(executors)
