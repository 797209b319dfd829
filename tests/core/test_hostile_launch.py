"""Attack tests: a catalog file that names processes starts none of them.

tests/assets/hostile_tools.json carries ``mcp_command: ["sh", "-c", "touch MARKER"]`` (and ``mcp_cwd``), a
generic ``command``/``args`` pair and a Python entry with a ``path``. Before the fix, importing it and running
trials ran the command. Now the fields are dropped at import (and reported), the executors read servers only
from the operator's ``import-mcp`` registrations, and even a store written before the fix (launch fields
still in a tool's ``extra``) starts nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.cli import main
from core.execution.setup import ExecutorPlan, build_router, plan_executors
from core.importers.launch import DroppedField, describe_dropped, drop_launch_fields, is_launch_field
from core.models import McpServer, Tool
from core.workspace import Workspace
from storage import catalogs as store

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "assets" / "hostile_tools.json"
HOSTILE_QUERIES = REPO / "tests" / "assets" / "hostile_queries.jsonl"
MARKER = Path("/tmp/toolatlas-hostile-catalog-PWNED")  # the path the hostile file's commands touch
EXPECTED_DROPS = {("mcp_command", 0), ("mcp_cwd", 0), ("command", 1), ("args", 1), ("python.path", 2)}


@pytest.fixture(autouse=True)
def no_marker():
    MARKER.unlink(missing_ok=True)
    yield
    assert not MARKER.exists(), "a command from the catalog file ran"


def _hostile_keys() -> list[str]:
    return [entry.get("key") or entry["function"]["name"] for entry in json.loads(HOSTILE.read_text())]


def test_launch_fields_are_recognised():
    for name in ("mcp_command", "mcp_cwd", "MCP_ENV", "mcpServers", "command", "args", "cwd", "env",
                 "function.command", "executable", "shell", "transport"):
        assert is_launch_field(name), name
    for name in ("server", "method", "path", "parameter_in", "strict", "function.strict", "responses", "title",
                 "annotations", "outputSchema", "commander", "environmental_impact"):
        assert not is_launch_field(name), name


def test_drop_launch_fields_keeps_everything_else():
    tools = [Tool("a", "a", extra={"mcp_command": ["sh"], "title": "A", "function.cwd": "/"}),
             Tool("b", "b", extra={"python": {"function": "f", "path": "/etc/passwd", "source": "x"}}),
             Tool("c", "c", extra={"server": "https://api.example.com", "path": "/pets"})]
    kept, dropped = drop_launch_fields(tools)
    assert [t.extra for t in kept] == [{"title": "A"}, {"python": {"function": "f", "source": "x"}},
                                       {"server": "https://api.example.com", "path": "/pets"}]
    assert dropped == (DroppedField("a", "mcp_command"), DroppedField("a", "function.cwd"),
                       DroppedField("b", "python.path"))
    assert kept[2] is tools[2]
    line = describe_dropped(dropped)
    assert line.startswith("Dropped 3 launch fields from 2 tools: a.mcp_command, a.function.cwd, b.python.path.")
    assert describe_dropped(()) == ""


def test_workspace_import_drops_and_reports(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    report = ws.import_tools("t", [Tool("a", "a", "x", extra={"mcp_command": ["sh", "-c", "true"], "note": 1})])
    assert report.dropped == (DroppedField("a", "mcp_command"),)
    assert ws.tools(report.version.id)[0].extra == {"note": 1}
    assert ws.mcp_servers("t") == ()  # a file registers no server


@pytest.mark.pg
def test_registered_servers_are_stored_once_per_launch(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    ws.import_tools("srv", [Tool("a", "a", "x")])
    first = McpServer(("python", "server.py"), "/opt/srv")
    ws.register_mcp_server("srv", first)
    ws.register_mcp_server("srv", first)
    ws.register_mcp_server("srv", McpServer(("python", "server.py")))
    assert ws.mcp_servers("srv") == (first, McpServer(("python", "server.py")))
    assert ws.mcp_servers("no-such-catalog") == ()
    with pytest.raises(ValueError):
        ws.register_mcp_server("no-such-catalog", first)


def test_plan_lists_exactly_what_starts():
    registered = (McpServer(("python", "a.py"), "/srv"), McpServer(("node", "b.js")))
    plan = plan_executors(registered, mcp=[["python", "a.py"]], http_hosts=["api.example.com"])
    assert plan.servers == (McpServer(("python", "a.py")), *registered)
    assert plan.lines() == ["start MCP server: python a.py", "start MCP server: python a.py    (in /srv)",
                            "start MCP server: node b.js", "call HTTP host: api.example.com"]
    assert plan.without_servers() == ExecutorPlan((), False, ("api.example.com",), False)
    demo = plan_executors(demo=True)
    assert demo.demo and demo.servers[0].command[0] == sys.executable
    assert McpServer(("sh", "-c", "touch x y")).describe() == "sh -c 'touch x y'"
    with pytest.raises(ValueError):
        McpServer(())


def test_router_ignores_launch_fields_in_stored_tools(db, hashing_embedder):
    """A store written before the fix still holds launch fields in ``extra``: nothing reads them."""
    tools = [Tool("evil", "evil", "x", extra={"mcp_command": ["sh", "-c", f"touch {MARKER}"], "mcp_cwd": "/tmp"})]
    store.import_catalog(db, "legacy", tools)  # below the workspace: the fields are stored as they came
    ws = Workspace(db, hashing_embedder)
    assert ws.tools(store.get_version(db, "legacy").id)[0].extra["mcp_command"][0] == "sh"
    plan = plan_executors(ws.mcp_servers("legacy"))
    assert plan == ExecutorPlan()
    with build_router(plan) as router:
        assert router.for_tool(tools[0]) is None and router.names == ()


@pytest.mark.slow
def test_cli_import_then_trials_and_evolve_start_nothing(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'atlas.db'}"
    assert main(["import", str(HOSTILE), "--queries", str(HOSTILE_QUERIES), "--name", "hostile", "--db", db,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    keys = _hostile_keys()
    assert {(d["field"], keys.index(d["tool"])) for d in out["dropped_launch_fields"]} == EXPECTED_DROPS

    assert main(["import", str(HOSTILE), "--name", "hostile-text", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "Dropped 5 launch fields from 3 tools" in text and "toolatlas import-mcp" in text

    assert main(["trials", "hostile", "--db", db, "--limit", "2", "-K", "3", "--timeout", "3", "--json"]) == 0
    captured = capsys.readouterr()
    run = json.loads(captured.out)
    assert run["executors"] == {"servers": [], "http_hosts": [], "sandbox": False}
    assert "executors: none" in captured.err
    assert not MARKER.exists()

    assert main(["evolve", "hostile", "--db", db, "--steps", "1", "--seeds", "1", "--execute", "--json"]) == 0
    assert "executors: none" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_trials_say_which_isolation_the_sandbox_gets(tmp_path, capsys):
    tools = [{"type": "function", "function": {"name": "to_km", "description": "convert miles to kilometres",
                                               "parameters": {"type": "object", "properties": {
                                                   "miles": {"type": "number"}}, "required": ["miles"]}},
              "python": {"function": "to_km", "source": "def to_km(miles):\n    return miles * 1.609344\n"}}]
    path = tmp_path / "py.json"
    path.write_text(json.dumps(tools))
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q1", "query": "convert 3 miles to kilometres", "gold": ["to_km"]}) + "\n")
    db = f"sqlite:///{tmp_path / 'atlas.db'}"
    assert main(["import", str(path), "--queries", str(queries), "--name", "py", "--db", db]) == 0
    capsys.readouterr()
    assert main(["trials", "py", "--db", db, "--sandbox", "-K", "1", "--json"]) == 0
    captured = capsys.readouterr()
    assert "executors: run Python tools in the sandbox" in captured.err
    assert "sandbox: " in captured.err and ("Python tools run in" in captured.err or "WARNING" in captured.err)
    from storage.db import make_engine
    from storage.runs import load_items

    report = load_items(make_engine(db), json.loads(captured.out)["run_id"])["q1"]
    execute = next(s for s in report["trials"][0]["steps"] if s["name"] == "execute")
    assert execute["status"] == "ok" and execute["input"]["isolation"].endswith("+audit")
