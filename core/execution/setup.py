"""Which executors a catalog's trials use, planned before anything starts: the MCP servers the operator
registered for the catalog with ``toolatlas import-mcp`` (never a command from catalog data), the demo MCP
server for the demo catalog, servers the operator names on the command line, the HTTP executor for OpenAPI
tools when it is switched on with an allow-list, and the Python sandbox when asked for.

:func:`plan_executors` says exactly which processes would start; the Trials and Timeline pages show that
plan and ask before :func:`build_router` starts any of them, and the CLI prints it first."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.execution.base import ExecutionResult
from core.models import McpServer, Tool

DEMO_SERVER = Path(__file__).resolve().parents[2] / "assets" / "demo_mcp" / "server.py"


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


@dataclass(frozen=True)
class ExecutorPlan:
    """What a trial or timeline run may start or reach, decided before anything starts.

    ``servers`` are the exact MCP command lines that will be started (the demo server first when ``demo``),
    ``http_hosts`` the hosts the HTTP executor may call, ``sandbox`` whether Python tools run in the sandbox."""

    servers: tuple[McpServer, ...] = ()
    demo: bool = False
    http_hosts: tuple[str, ...] = ()
    sandbox: bool = False

    def without_servers(self) -> ExecutorPlan:
        """The same plan with no MCP server started (what runs when the user declines them)."""
        return ExecutorPlan((), False, self.http_hosts, self.sandbox)

    def lines(self) -> list[str]:
        """Every process and host the plan reaches, one line each, for the page and the CLI to show."""
        out = [f"start MCP server: {s.describe()}" for s in self.servers]
        out += [f"call HTTP host: {h}" for h in self.http_hosts]
        if self.sandbox:
            out.append("run Python tools in the sandbox")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"servers": [{"command": list(s.command), "cwd": s.cwd} for s in self.servers],
                "http_hosts": list(self.http_hosts), "sandbox": self.sandbox}


def python_tools(tools: Sequence[Tool]) -> list[Tool]:
    """The tools that carry inline Python code the sandbox would run (``PythonFunction.of_tool``)."""
    from core.execution.sandbox import PythonFunction

    return [t for t in tools if PythonFunction.of_tool(t) is not None]


def demo_mcp_server() -> McpServer:
    """The demo MCP server shipped with the app (not catalog data), as a planned launch."""
    return McpServer(tuple(demo_server_command()))


def plan_executors(registered: Sequence[McpServer] = (), *, demo: bool = False, mcp: Sequence[Sequence[str]] = (),
                   http_hosts: Collection[str] = (), sandbox: bool = False) -> ExecutorPlan:
    """The plan for a catalog: the demo server when ``demo``, the operator's ``mcp`` command lines (CLI), then
    the servers ``registered`` for the catalog by ``import-mcp`` (:meth:`Workspace.mcp_servers`)."""
    servers: list[McpServer] = [demo_mcp_server()] if demo else []
    for server in [*(McpServer(tuple(c)) for c in mcp), *registered]:
        if server not in servers:
            servers.append(server)
    return ExecutorPlan(tuple(servers), demo, tuple(http_hosts), sandbox)


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


def build_router(plan: ExecutorPlan, *, timeout: float = 10.0):
    """An :class:`core.execution.router.ExecutorRouter` carrying out ``plan``. Servers start lazily, on the
    first question about a tool, and are stopped by the router's ``close()``.

    Python tools (``extra["python"]``, inline source only) run only when the plan asks for the sandbox: a
    catalog file is untrusted input, and running its code, even sandboxed, must be the user's choice."""
    from core.execution.mcp import McpExecutor
    from core.execution.router import ExecutorRouter

    executors: list[Any] = []
    servers = list(plan.servers)
    if plan.demo:
        demo = demo_mcp_server()
        executors.append(ClaimingExecutor(McpExecutor(list(demo.command), name="mcp-demo"),
                                          demo_missing_endpoints()))
        servers = [s for s in servers if s != demo]
    executors += [McpExecutor(list(s.command), cwd=s.cwd, name=f"mcp-{i + 1}") for i, s in enumerate(servers)]
    if plan.http_hosts:
        from core.execution.http import HttpExecutor

        executors.append(HttpExecutor(list(plan.http_hosts), enabled=True, timeout=timeout))
    if plan.sandbox:
        from core.execution.sandbox import SandboxExecutor

        executors.append(SandboxExecutor(timeout=timeout))
    return ExecutorRouter(executors)
