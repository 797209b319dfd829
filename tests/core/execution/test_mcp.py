"""McpExecutor against the real demo MCP server (started by the tests over stdio, no mocks)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.execution.base import Executor
from core.execution.mcp import McpExecutor
from core.models import Tool

REPO = Path(__file__).resolve().parents[3]
SERVER = [sys.executable, str(REPO / "assets" / "demo_mcp" / "server.py")]
CATALOG = {e["function"]["name"]: e["function"] for e in json.loads((REPO / "assets/demo/tools.json").read_text())}
SERVED = json.loads((REPO / "assets/demo_mcp/served.json").read_text())
FAULTS = {"TOOLATLAS_DEMO_MCP_FAULTS": "1"}


def _children() -> set[int]:
    """Live (non-zombie) child processes of this test process."""
    me, found = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == me:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.fixture(scope="module")
def mcp():
    with McpExecutor(SERVER) as executor:
        yield executor


@pytest.fixture(scope="module")
def tools(mcp):
    return {t.name: t for t in mcp.list_tools()}


def _tool(name: str) -> Tool:
    return Tool(key=name, name=name)


# ---------------------------------------------------------------- pure functions


def test_bad_command_is_rejected_before_start():
    with pytest.raises(ValueError):
        McpExecutor("python server.py")
    with pytest.raises(ValueError):
        McpExecutor([])


# ---------------------------------------------------------------- the real server


@pytest.mark.slow
def test_lists_served_tools_with_the_catalog_schemas(mcp, tools):
    assert isinstance(mcp, Executor)
    assert len(tools) >= 40
    assert set(tools) == set(SERVED["working"]) | set(SERVED["broken"])
    for name, tool in tools.items():
        assert tool.key == name and tool.source == "mcp" and "mcp_command" not in tool.extra
        assert tool.description == CATALOG[name]["description"]
        assert tool.parameters == CATALOG[name]["parameters"]  # required list included
    missing = {m["name"] for m in SERVED["missing"]}
    assert missing and missing <= set(CATALOG) and not missing & set(tools)
    assert mcp.covers(tools["convert_units"]) and not mcp.covers(_tool("fx.convert"))


@pytest.mark.slow
@pytest.mark.parametrize("name, arguments, expected", [
    ("convert_units", {"value": 26.2, "from_unit": "miles", "to_unit": "kilometres"}, ("result", 42.1648128)),
    ("convert_units", {"value": 5, "from_unit": "km", "to_unit": "m"}, ("result", 5000)),
    ("convert_currency", {"amount": 1200, "from_currency": "usd", "to_currency": "euros"}, ("converted", 1104.0)),
    ("convert_temperature", {"value": 100, "from_scale": "C", "to_scale": "F"}, ("result", 212.0)),
    ("calculate", {"expression": "17.5% of 2,340"}, ("result", 409.5)),
    ("calculate", {"expression": "(2+3)^2"}, ("result", 25)),
    ("days_between", {"start_date": "2025-01-01", "end_date": "2025-03-01"}, ("days", 59)),
    ("add_to_date", {"date": "2025-02-01", "amount": 90, "unit": "days"}, ("result", "2025-05-02")),
    ("day_of_week", {"date": "1990-03-14"}, ("weekday", "Wednesday")),
    ("prime_factorization", {"number": 360}, ("factors", [2, 2, 2, 3, 3, 5])),
    ("gcd_lcm", {"numbers": [12, 18]}, ("lcm", 36)),
    ("solve_quadratic", {"a": 1, "b": -3, "c": 2}, ("roots", [1.0, 2.0])),
    ("calculate_velocity", {"initial_velocity": 5, "acceleration": 2, "time": 10}, ("final_velocity", 25.0)),
    ("calculate_free_fall_distance", {"time": 3}, ("distance", 44.145)),
    ("percentage_change", {"old_value": 950, "new_value": "1,100"}, ("percentage_change", 15.7895)),
    ("get_weather", {"city": "lisbon, PT"}, ("temperature", 24.0)),
    ("calculate_age", {"birth_date": "1990-06-15", "on_date": "2025-06-14"}, ("years", 34)),
])
def test_working_tools_compute_real_answers(mcp, tools, name, arguments, expected):
    result = mcp.call(tools[name], arguments)
    assert result.ok, result.error
    field, value = expected
    assert result.data[field] == value
    assert result.executor == "mcp" and result.seconds >= 0


@pytest.mark.slow
@pytest.mark.parametrize("name, arguments, kind", [
    ("book_hotel", {"hotel_id": "HTL-000001", "check_in": "2025-05-03", "check_out": "2025-05-06", "guest_name": "A"},
     "invalid_params"),
    ("reserve_table", {"party_size": 2, "datetime": "2025-06-02T19:00", "name": "A"}, "invalid_params"),
    ("convert_units", {"value": "lots", "from_unit": "km", "to_unit": "m"}, "invalid_params"),
    ("weather.current", {"location": "Lisbon"}, "auth"),
    ("crypto.quote", {"coin": "bitcoin"}, "auth"),
    ("fetchCurrentWeather", {"cityName": "Lisbon"}, "server"),
    ("currency_converter", {"value": 10, "source": "USD", "target": "EUR"}, "server"),
    ("fx.convert", {"amount": 10, "from": "USD", "to": "EUR"}, "not_found"),
])
def test_broken_tools_fail_with_the_right_kind(mcp, tools, name, arguments, kind):
    result = mcp.call(tools.get(name) or _tool(name), arguments)
    assert not result.ok and result.error_kind == kind, result
    assert result.error


@pytest.mark.slow
def test_empty_result_tool_answers_with_nothing(mcp, tools):
    arguments = {"originCode": "JFK", "destinationCode": "LHR", "travelDate": "2025-03-12"}
    result = mcp.call(tools["findFlights"], arguments)
    assert result.ok and result.data == {"flights": []}
    working = mcp.call(tools["search_flights"], {"origin": "JFK", "destination": "LHR", "date": "2025-03-12"})
    assert working.ok and len(working.data["flights"]) == 3


@pytest.mark.slow
def test_timeout_is_reported_and_the_next_call_works(mcp, tools):
    started = time.perf_counter()
    result = mcp.call(tools["math.evaluate"], {"expr": "1+1"}, timeout=1.0)
    assert result.error_kind == "timeout" and time.perf_counter() - started < 6.0
    after = mcp.call(tools["calculate"], {"expression": "6*7"})
    assert after.ok and after.data["result"] == 42


@pytest.mark.slow
def test_concurrent_calls_from_eight_threads(mcp, tools):
    barrier = threading.Barrier(8)

    def work(i: int):
        barrier.wait()
        return mcp.call(tools["calculate"], {"expression": f"{i}*{i}+1"})

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(8)))
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert [r.data["result"] for r in results] == [i * i + 1 for i in range(8)]


@pytest.mark.slow
def test_crash_is_detected_and_the_server_restarts():
    with McpExecutor(SERVER, env=FAULTS) as mcp:
        tools = {t.name: t for t in mcp.list_tools()}
        assert "_crash_server" in tools
        started = time.perf_counter()
        crashed = mcp.call(tools["_crash_server"], {}, timeout=20.0)
        assert crashed.error_kind == "crash" and time.perf_counter() - started < 5.0
        after = mcp.call(tools["convert_temperature"], {"value": 0, "from_scale": "C", "to_scale": "K"})
        assert after.ok and after.data["result"] == 273.15


@pytest.mark.slow
def test_close_leaves_no_child_process():
    before = _children()
    mcp = McpExecutor(SERVER)
    assert mcp.call(_tool("count_words"), {"text": "one two three"}).data["words"] == 3
    spawned = _children() - before
    assert spawned, "the server should run as a child process"
    mcp.close()
    mcp.close()  # idempotent
    assert not any(_alive(pid) for pid in spawned)
    assert mcp.call(_tool("count_words"), {"text": "x"}).error_kind == "unavailable"


@pytest.mark.slow
def test_close_during_a_call_ends_the_call():
    mcp = McpExecutor(SERVER)
    results = []
    caller = threading.Thread(target=lambda: results.append(
        mcp.call(_tool("math.evaluate"), {"expr": "1"}, timeout=20.0)))
    caller.start()
    time.sleep(1.0)
    started = time.perf_counter()
    mcp.close()
    caller.join(15.0)
    assert not caller.is_alive() and time.perf_counter() - started < 10.0
    assert results[0].error_kind == "unavailable"
    assert mcp.call(_tool("calculate"), {"expression": "1"}, timeout=0).error_kind == "refused"


@pytest.mark.slow
def test_server_that_cannot_start_is_unavailable(tmp_path):
    with McpExecutor(["/nonexistent/mcp-server"]) as missing:
        result = missing.call(_tool("anything"), {})
        assert result.error_kind == "unavailable" and "/nonexistent/mcp-server" in result.error
        assert not missing.covers(_tool("anything"))
    with McpExecutor([sys.executable, "-c", "import sys; print('boom', file=sys.stderr)"]) as quits:
        result = quits.call(_tool("anything"), {})
        assert result.error_kind == "unavailable"
    started = time.perf_counter()
    with McpExecutor([sys.executable, "-c", "import time; time.sleep(60)"], start_timeout=1.0) as mute:
        assert mute.call(_tool("anything"), {}).error_kind == "unavailable"
    assert time.perf_counter() - started < 15.0
