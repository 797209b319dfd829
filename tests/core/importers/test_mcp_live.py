"""Importing a live MCP server's tools: the demo server, a command that fails, and the CLI command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pytest

from core.cli.mcp import cmd_import_mcp, register
from core.importers.errors import CatalogImportError
from core.importers.mcp_live import load_mcp_server
from core.models import McpServer

REPO = Path(__file__).resolve().parents[3]
SERVER = [sys.executable, str(REPO / "assets" / "demo_mcp" / "server.py")]
SERVED = json.loads((REPO / "assets/demo_mcp/served.json").read_text())

pytestmark = pytest.mark.slow


def test_load_demo_server():
    tools = load_mcp_server(SERVER)
    names = {t.name for t in tools}
    assert names == set(SERVED["working"]) | set(SERVED["broken"])
    for tool in tools:
        assert tool.source == "mcp" and not tool.extra  # no launch field: the command is registered apart
        assert tool.parameters.get("type") == "object"


@pytest.mark.parametrize("command", [
    ["/nonexistent/mcp-server"],
    [sys.executable, "-c", "pass"],
])
def test_bad_command_raises_catalog_import_error(command):
    with pytest.raises(CatalogImportError) as info:
        load_mcp_server(command, timeout=5.0)
    assert " ".join(command) in str(info.value)


def test_empty_command_is_refused():
    with pytest.raises(CatalogImportError):
        load_mcp_server([])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolatlas")
    register(parser.add_subparsers(dest="command", required=True))
    return parser


def test_cli_import_mcp_stores_the_catalog(tmp_path, capsys):
    from core.settings import Settings, build_workspace
    from storage.catalogs import get_version

    db = f"sqlite:///{tmp_path / 'cli.db'}"
    args = _parser().parse_args(["import-mcp", "--name", "demo-mcp", "--json", "--db", db, "--", *SERVER])
    assert cmd_import_mcp(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["catalog"] == "demo-mcp" and out["version"] == 1 and out["command"] == SERVER
    assert out["tools"] == len(SERVED["working"]) + len(SERVED["broken"])

    ws = build_workspace(Settings.from_env().with_overrides(db_url=db, embedding_model=None))
    stored = ws.tools(get_version(ws.db, "demo-mcp", None).id)
    assert len(stored) == out["tools"]
    assert not any("mcp_command" in t.extra or "mcp_cwd" in t.extra for t in stored)
    # the operator's command line is registered with the catalog, with the directory it was run from
    assert ws.mcp_servers("demo-mcp") == (McpServer(tuple(SERVER), os.getcwd()),)

    # the same server again is the same catalog version
    assert cmd_import_mcp(args) == 0
    assert json.loads(capsys.readouterr().out)["reused"] is True
    assert len(ws.mcp_servers("demo-mcp")) == 1  # registered once


def test_cli_import_mcp_needs_a_command(tmp_path):
    args = _parser().parse_args(["import-mcp", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    with pytest.raises(ValueError):
        cmd_import_mcp(args)
