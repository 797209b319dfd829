"""Trials against a real third-party MCP server: ``mcp-server-time`` from PyPI (the ``dev`` extra installs it).

The server is registered exactly as an operator would (``toolatlas import-mcp -- python -m mcp_server_time
--local-timezone UTC``), our own queries about current times and conversions between cities are run with
``toolatlas trials``, and the stored evidence is read back. Before the fix, 0 % of the real calls
succeeded: the planner sent ``timezone="Tokyo"`` and cut "Europe/Berlin" to "Europe", and the server's
"Invalid timezone" answer was bridged with a simulated one.
"""

from __future__ import annotations

import json
import sys
import zoneinfo
from datetime import date

import pytest

pytest.importorskip("mcp_server_time", reason="mcp-server-time is not installed (pip install -e '.[dev]' "
                                              "installs it): the real-server trials test is skipped")

from core.cli import main  # noqa: E402
from core.execution.setup import build_router, plan_executors  # noqa: E402
from core.llm.base import RoleCall  # noqa: E402
from core.trials.evidence import TrialOutcome  # noqa: E402
from core.trials.offline import OfflineTrialOperators  # noqa: E402
from core.trials.pipeline import TrialConfig, run_trial  # noqa: E402
from core.trials.roles import PlanAnswer  # noqa: E402

pytestmark = pytest.mark.slow

SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
# (id, query, gold tool, the arguments a person would send)
QUERIES = [
    ("t1", "What time is it in Tokyo right now?", "get_current_time", {"timezone": "Asia/Tokyo"}),
    ("t2", "Convert 16:30 in Berlin to New York time", "convert_time",
     {"source_timezone": "Europe/Berlin", "time": "16:30", "target_timezone": "America/New_York"}),
    ("t3", "What's the current time in Europe/Lisbon?", "get_current_time", {"timezone": "Europe/Lisbon"}),
    ("t4", "If it is 9:15 in Sydney, what time is it then in London?", "convert_time",
     {"source_timezone": "Australia/Sydney", "time": "09:15", "target_timezone": "Europe/London"}),
    ("t5", "What time is it in Japan at the moment?", "get_current_time", {"timezone": "Asia/Tokyo"}),
    ("t6", "My call with São Paulo is at 4:30pm Paris time, when is that for them?", "convert_time",
     {"source_timezone": "Europe/Paris", "time": "16:30", "target_timezone": "America/Sao_Paulo"}),
]


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    """A store with the time server imported and registered by ``import-mcp``, and a query file."""
    root = tmp_path_factory.mktemp("time")
    db = f"sqlite:///{root / 'atlas.db'}"
    assert main(["import-mcp", "--name", "time", "--db", db, "--json", "--", *SERVER]) == 0
    queries = root / "queries.jsonl"
    queries.write_text("".join(json.dumps({"id": i, "query": q, "gold": [g]}) + "\n" for i, q, g, _ in QUERIES))
    return db, queries


def _items(db: str, run_id: int) -> dict:
    from storage.db import make_engine
    from storage.runs import load_items

    return load_items(make_engine(db), run_id)


def test_real_calls_succeed_with_iana_names_and_nothing_is_simulated(registered, capsys):
    db, queries = registered
    capsys.readouterr()
    assert main(["trials", "time", "--db", db, "--queries", str(queries), "-K", "2", "--timeout", "20",
                 "--today", date.today().isoformat(), "--json"]) == 0
    captured = capsys.readouterr()
    run = json.loads(captured.out)
    assert "start MCP server: " + " ".join(SERVER) in captured.err  # the operator's own command, announced
    assert run["simulated"] == 0
    assert run["after"]["pass@2"] == 1.0
    items = _items(db, run["run_id"])
    zones = zoneinfo.available_timezones()
    for qid, query, gold, expected in QUERIES:
        report = items[qid]
        trial = next(t for t in report["trials"] if t["key"] == gold)
        assert trial["outcome"] == TrialOutcome.FUNCTIONAL_SUCCESS, (query, trial["reason"])
        assert not trial["simulation_used"] and trial["executor"] == "mcp-1"
        steps = {s["name"]: s for s in trial["steps"]}
        assert "simulate" not in steps
        assert steps["plan"]["output"]["arguments"] == expected, query
        assert all(v in zones for k, v in expected.items() if k.endswith("timezone"))
        answer = steps["execute"]["output"]
        assert answer["timezone" if gold == "get_current_time" else "source"]  # a real answer from the server
        # where each value came from, in words
        assert all(isinstance(s, str) and s for s in steps["plan"]["output"]["sources"].values())
        # the other candidate: a current-time question gives no time to convert, so convert_time is not called
        other = next(t for t in report["trials"] if t["key"] != gold)
        if gold == "get_current_time":
            assert other["outcome"] == "PLANNING_FAILED" and "time" in other["reason"]


def test_text_output_is_readable(registered, capsys):
    db, queries = registered
    capsys.readouterr()
    assert main(["trials", "time", "--db", db, "--queries", str(queries), "-K", "2", "--timeout", "20",
                 "--today", date.today().isoformat(), "--details", "2"]) == 0
    text = capsys.readouterr().out
    assert "{'" not in text and "': " not in text  # no Python dict reprs
    assert "plan: timezone=Asia/Tokyo" in text
    assert "plan: source_timezone=Europe/Berlin time=16:30 target_timezone=America/New_York" in text
    assert "timezone: IANA zone for 'Tokyo'" in text
    assert "FUNCTIONAL_SUCCESS" in text and "pass@2" in text


class _CutZonePlanner(OfflineTrialOperators):
    """The planner before the fix: "Europe/Berlin" cut to "Europe"."""

    def plan_call(self, query, tool, *, today):
        return RoleCall(value=PlanAnswer({"timezone": "Europe"}, (), "", {"timezone": "cut zone name"}),
                        call_id=None, ok=True, error=None, role="plan_call")


def test_a_permanent_server_error_is_a_parameter_mismatch_and_never_simulated(registered):
    db, _ = registered
    from storage import catalogs as store
    from storage.db import make_engine

    engine = make_engine(db)
    version = store.get_version(engine, "time")
    tool = next(t for t in store.load_tools(engine, version.id) if t.name == "get_current_time")
    servers = store.list_mcp_servers(engine, "time")  # what import-mcp registered
    assert [s.command for s in servers] == [tuple(SERVER)]
    with build_router(plan_executors(servers)) as router:
        trial = run_trial("What time is it in Europe/Berlin?", tool, 1, router, _CutZonePlanner(),
                          TrialConfig(k=1, timeout=20.0))
    execute = trial.step("execute")
    assert execute.status == "failed" and execute.output["kind"] == "invalid_params"
    assert "Invalid timezone" in execute.output["error"]
    assert trial.outcome == TrialOutcome.PARAMETER_MISMATCH
    assert not trial.simulation_used and trial.step("simulate") is None
