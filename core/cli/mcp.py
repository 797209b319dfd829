"""``toolatlas import-mcp -- COMMAND...``: import the tools a live MCP server lists as a catalog."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

from core.cli.common import add_common, open_workspace


def _default_name(command: list[str]) -> str:
    stem = Path(command[-1]).stem or Path(command[0]).name
    digest = hashlib.sha256("\0".join(command).encode()).hexdigest()[:10]
    return f"mcp-{stem}-{digest}"


def cmd_import_mcp(args) -> int:
    from core.importers.mcp_live import load_mcp_server
    from core.models import McpServer

    command = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise ValueError("import-mcp needs the server command after --, e.g. -- python assets/demo_mcp/server.py")
    tools = load_mcp_server(command, timeout=args.timeout)
    name = args.name or _default_name(command)
    ws = open_workspace(args)
    report = ws.import_tools(name, tools, label=args.label or "", source="mcp: " + " ".join(command))
    # The operator's own command line, run from here: the one way a catalog learns how to start a server.
    ws.register_mcp_server(report.version.catalog_name, McpServer(tuple(command), os.getcwd()))
    out = {"catalog": report.version.catalog_name, "version": report.version.number,
           "tools": report.version.n_tools, "reused": report.reused, "command": command, "cwd": os.getcwd()}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"imported {out['tools']} tools from {' '.join(command)!r} into {out['catalog']} v{out['version']}"
              + (" (unchanged)" if report.reused else ""))
    return 0


def register(sub) -> None:
    """Add ``import-mcp`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser("import-mcp", help="start an MCP server over stdio and import the tools it lists",
                       description="Example: toolatlas import-mcp --name demo-mcp -- python assets/demo_mcp/server.py")
    p.add_argument("--name", help="catalog name (default: mcp- + the server's file name + a hash of the command)")
    p.add_argument("--label", help="version label")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the server to start")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.add_argument("server_command", nargs=argparse.REMAINDER, help="the command that starts the server, after --")
    p.set_defaults(func=cmd_import_mcp)
