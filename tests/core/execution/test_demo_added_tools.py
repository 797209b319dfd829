"""The tools the demo catalog adds in v2–v5, served by the real demo MCP server (started over stdio, no mocks):
listed with their v5 schema, working ones answer informatively and repeatably, broken ones fail as declared."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from core.execution.mcp import McpExecutor

REPO = Path(__file__).resolve().parents[3]
SERVER = [sys.executable, str(REPO / "assets" / "demo_mcp" / "server.py")]
SERVED = json.loads((REPO / "assets/demo_mcp/served.json").read_text())
VERSIONS = [json.loads((REPO / f"assets/demo/versions/v{i}.json").read_text()) for i in range(1, 6)]
V5 = {e["key"]: e["function"] for e in VERSIONS[-1]}


def _added() -> list[str]:
    """Keys added from one version to the next, v1→v2 … v4→v5, in order."""
    out: list[str] = []
    for before, after in zip(VERSIONS, VERSIONS[1:], strict=False):
        known = {e["key"] for e in before}
        out += [e["key"] for e in after if e["key"] not in known]
    return out


ADDED = _added()
BROKEN = {name: SERVED["broken"][name] for name in ADDED if name in SERVED["broken"]}
WORKING = [name for name in ADDED if name not in BROKEN]

# Values for arguments by parameter name: what a user's request would plausibly carry.
_STRINGS = {
    "code": "THB", "date": "2025-03-14", "birth_date": "1990-05-03", "on_date": "2025-06-02", "dish": "pad thai",
    "domain": "example.org", "title": "Budget sync", "city": "Lisbon", "location": "Lisbon",
    "check_in": "2025-08-02", "check_out": "2025-08-09", "value": "1700000000", "timezone": "Europe/Lisbon",
    "restaurant_id": "luigis-pizza", "address": "12 Rua Augusta, Lisbon", "text": "I think we're gonna need more "
    "time. The report isn't ready yet, but it will be done by Friday.", "activity": "swimming",
    "old": "Payment is due in 30 days.\nLate fees apply.", "new": "Payment is due in 14 days.\nLate fees apply.\n"
    "Disputes go to arbitration.", "stop_name": "Central Station", "center": "Chicago", "body": "The laundry is done",
    "message_id": "msg-20250601-0042", "event_id": "evt-dentist-7", "start": "2025-06-06T15:00",
    "end": "2025-06-06T15:45", "file_id": "file-budget-2025", "artist": "Nina Simone", "region": "Valencia",
    "exchange": "NYSE", "open_at": "22:00", "email": "tom@example.com", "path": "/home/me/report.pdf",
    "folder": "Finance", "voice": "en-GB-female", "language": "en", "genre": "jazz", "country": "France",
    "expression": "0 9 * * 1-5",
}
_NUMBERS = {"angle": 30, "low": 1, "high": 50, "count": 5, "guests": 4, "minutes": 45, "weight_kg": 70, "limit": 5,
            "length": 20, "month": 4, "zoom": 12, "hours": 12, "year": 2026}
_LISTS = {"x": ["1", "2", "3", "4"], "y": ["2", "4", "5", "8"], "items": ["margherita pizza", "margherita pizza"],
          "participants": ["ana@example.com", "tom@example.com"], "markers": ["41.8827,-87.6233"]}
_PER_TOOL = {("salary_benchmark", "title"): "data engineer", ("salary_benchmark", "city"): "Berlin",
             ("climate_normals", "city"): "Kyoto", ("hourly_forecast", "location"): "Dublin"}


def arguments_for(name: str) -> dict[str, Any]:
    """Arguments for every parameter of the tool's v5 schema, chosen by type and parameter name."""
    out: dict[str, Any] = {}
    for prop, spec in V5[name]["parameters"]["properties"].items():
        kind = spec.get("type")
        if (name, prop) in _PER_TOOL:
            out[prop] = _PER_TOOL[(name, prop)]
        elif "enum" in spec:
            out[prop] = spec["enum"][0]
        elif kind == "string":
            out[prop] = _STRINGS[prop]
        elif kind in ("integer", "number"):
            out[prop] = _NUMBERS[prop]
        elif kind == "boolean":
            out[prop] = True
        elif kind == "array":
            out[prop] = _LISTS[prop]
        else:
            raise AssertionError(f"no test value for {name}.{prop} ({kind})")
    return out


@pytest.fixture(scope="module")
def mcp():
    with McpExecutor(SERVER) as executor:
        yield executor


@pytest.fixture(scope="module")
def tools(mcp):
    return {t.name: t for t in mcp.list_tools()}


def test_the_added_tools_are_the_36_of_the_version_files():
    assert len(ADDED) == len(set(ADDED)) == 36
    assert all(V5[name]["name"] == name for name in ADDED)
    assert len(BROKEN) == 4 and len(WORKING) == 32
    assert set(WORKING) <= set(SERVED["working"])
    assert {spec["error_kind"] for spec in BROKEN.values()} == {"invalid_params", "auth", "server", None}


@pytest.mark.slow
def test_every_added_tool_is_listed_with_its_v5_schema(tools):
    for name in ADDED:
        assert name in tools, name
        assert tools[name].parameters == V5[name]["parameters"], name  # required list included
        assert tools[name].description == V5[name]["description"], name


def _informative(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(value) and any(_informative(v) for v in value.values())
    if isinstance(value, list):
        return bool(value)
    return value not in (None, "")


@pytest.mark.slow
@pytest.mark.parametrize("name", WORKING)
def test_working_added_tool_answers_informatively_and_repeatably(mcp, tools, name):
    arguments = arguments_for(name)
    first = mcp.call(tools[name], arguments)
    assert first.ok, (name, first.error)
    assert isinstance(first.data, dict) and _informative(first.data), first.data
    empty_lists = [key for key, value in first.data.items() if isinstance(value, list) and not value]
    assert not empty_lists, (name, empty_lists)  # the answer's collections are filled for a sensible request
    again = mcp.call(tools[name], dict(arguments))
    assert again.ok and again.data == first.data


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_added_tool_fails_as_declared(mcp, tools, name):
    result = mcp.call(tools[name], arguments_for(name))
    kind = BROKEN[name]["error_kind"]
    if kind is None:  # answers, but with nothing in it
        assert result.ok and result.data and all(v == [] for v in result.data.values()), result
    else:
        assert not result.ok and result.error_kind == kind, result
        assert result.error


@pytest.mark.slow
def test_food_delivery_works_with_an_id_find_restaurants_issued(mcp, tools):
    found = mcp.call(tools["find_restaurants"], {"location": "Lisbon"})
    restaurant_id = found.data["restaurants"][0]["restaurant_id"]
    arguments = {**arguments_for("order_food_delivery"), "restaurant_id": restaurant_id}
    order = mcp.call(tools["order_food_delivery"], arguments)
    assert order.ok and order.data["status"] == "confirmed" and order.data["order_id"].startswith("FD-")
    assert mcp.call(tools["order_food_delivery"], arguments).data == order.data


@pytest.mark.slow
def test_seeded_tools_depend_on_their_arguments(mcp, tools):
    draw = mcp.call(tools["random_number"], {"low": 1, "high": 50, "count": 5}).data
    assert len(draw["numbers"]) == 5 and all(1 <= n <= 50 for n in draw["numbers"])
    other = mcp.call(tools["random_number"], {"low": 1, "high": 1000, "count": 5}).data
    assert other["numbers"] != draw["numbers"]
    password = mcp.call(tools["generate_password"], {"length": 20, "symbols": False}).data["password"]
    assert len(password) == 20 and password.isalnum()
