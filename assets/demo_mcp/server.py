"""Tool Atlas demo MCP server: executable demo-catalog tools, some deliberately broken.

Run it over stdio with ``python assets/demo_mcp/server.py``. Every served tool is announced with the
name, description and input schema of its entry in ``assets/demo/tools.json``, read at start-up, so the
catalog and the server cannot drift apart. ``served.json`` says which tools are served and how each
broken one fails; the failures reproduce the ones GRETEL reports for semantically plausible tools
(§4.4, Tables 4–5): parameters the query cannot supply, refused authentication, server errors,
documented tools the server does not have, empty answers for valid input, and a tool too slow to wait for.

With ``TOOLATLAS_DEMO_MCP_FAULTS=1`` the server also offers ``_crash_server``, which kills the process in
the middle of the call, so tests can watch a client survive a dead server.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

HERE = Path(__file__).resolve().parent
# Started by path, not as a package: make the sibling module importable either way.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from demo_tools import RECIPE_IDS, RESTAURANT_IDS, WORKING, BadInput, hotel_ids, weather_cities  # noqa: E402

CATALOG_PATH = HERE.parent / "demo" / "tools.json"
SERVED_PATH = HERE / "served.json"
FAULTS_ENV = "TOOLATLAS_DEMO_MCP_FAULTS"
SLOW_SECONDS = 30.0


def load_catalog(path: Path = CATALOG_PATH) -> dict[str, dict[str, Any]]:
    """The catalog's function entries by name."""
    return {entry["function"]["name"]: entry["function"] for entry in json.loads(path.read_text("utf-8"))}


def load_served(path: Path = SERVED_PATH) -> dict[str, Any]:
    return json.loads(path.read_text("utf-8"))


class ToolFailure(Exception):
    """A deliberate tool-level failure, reported to the client as an ``isError`` result."""


# ---------------------------------------------------------------- argument handling


def _coerce(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Accept numbers and booleans written as strings, as a planner filling a form often does, and
    numbers in the catalog's string-typed lists (every list in the demo catalog holds strings)."""
    out = dict(arguments)
    for name, spec in (schema.get("properties") or {}).items():
        value, kind = out.get(name), spec.get("type") if isinstance(spec, dict) else None
        if kind == "array" and (spec.get("items") or {}).get("type") == "string":
            if isinstance(value, str):
                value = [part for part in re.split(r"[;\s]+|,\s+", value.strip()) if part]
            if isinstance(value, list):
                out[name] = [str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in value]
            continue
        if not isinstance(value, str):
            continue
        text = value.strip().replace(",", "")
        try:
            if kind == "integer" and float(text).is_integer():
                out[name] = int(float(text))
            elif kind == "number":
                out[name] = float(text)
            elif kind == "boolean" and text.lower() in ("true", "false"):
                out[name] = text.lower() == "true"
        except ValueError:
            pass  # left as is: the schema check below reports it
    return out


def check_arguments(name: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    arguments = _coerce(arguments, schema)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(arguments))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        raise ToolFailure(f"400 Bad Request: invalid parameters for {name}: "
                          f"{(where + ': ') if where else ''}{error.message}")
    return arguments


# ---------------------------------------------------------------- deliberately broken tools


def _known_id(tool: str, field: str, value: str, known: frozenset[str] | set[str], where: str) -> None:
    if value not in known:
        raise ToolFailure(f"400 Bad Request: invalid parameters for {tool}: {field} {value!r} is not a valid "
                          f"identifier (identifiers come from {where})")


def _needs_id(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Tools whose required id no user query carries: they work only with an id another tool issued."""
    if name == "book_hotel":
        issued = {hid for city in weather_cities() for hid in hotel_ids(city)}  # every weather city has hotels
        _known_id(name, "hotel_id", args["hotel_id"], issued, "search_hotels")
        reference = hashlib.sha256(args["hotel_id"].encode()).hexdigest()[:6].upper()
        return {"booking_reference": f"BK-{reference}", "status": "confirmed", **args}
    if name == "reserve_table":
        _known_id(name, "restaurant_id", args["restaurant_id"], RESTAURANT_IDS, "find_restaurants")
        return {"status": "reserved", **args}
    if name == "order_food_delivery":
        _known_id(name, "restaurant_id", args["restaurant_id"], RESTAURANT_IDS, "find_restaurants")
        order = hashlib.sha256(json.dumps(args, sort_keys=True).encode()).hexdigest()[:8].upper()
        return {"order_id": f"FD-{order}", "status": "confirmed", "estimated_delivery_minutes": 35, **args}
    _known_id(name, "recipe_id", args["recipe_id"], RECIPE_IDS, "search_recipes")
    return {"recipe_id": args["recipe_id"], "servings": args.get("servings"), "status": "ok"}


_EMPTY = {"findFlights": {"flights": []}, "flight_search": {"flights": []}, "recipe_search": {"recipes": []},
          "findRecipes": {"recipes": []}, "news.search": {"articles": []}, "parcel.track": {"events": []},
          "get_weather_news": {"articles": []}}


async def run_broken(name: str, mode: str, args: dict[str, Any]) -> dict[str, Any]:
    if mode == "unknown_id":
        return _needs_id(name, args)
    if mode == "auth":
        raise ToolFailure(f"401 Unauthorized: missing API key for the upstream service behind {name}")
    if mode == "forbidden":
        raise ToolFailure(f"403 Forbidden: the configured API key may not call {name}")
    if mode == "server_error":
        raise ToolFailure(f"500 Internal Server Error: the upstream service behind {name} failed")
    if mode == "empty":
        return dict(_EMPTY.get(name, {"results": []}))
    if mode == "slow":
        await anyio.sleep(SLOW_SECONDS)
        return WORKING["calculate"]({"expression": args.get("expr", "0")})
    raise ToolFailure(f"500 Internal Server Error: unknown failure mode {mode!r}")


# ---------------------------------------------------------------- the server


def _result(data: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=data)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def build_server(faults: bool = False) -> Server:
    catalog, served = load_catalog(), load_served()
    broken: dict[str, str] = {name: spec["mode"] for name, spec in served["broken"].items()}
    names = [*served["working"], *broken]
    unknown = [n for n in names if n not in catalog] + [n for n in served["working"] if n not in WORKING]
    if unknown:
        raise SystemExit(f"served.json names tools the catalog or the server lacks: {unknown}")
    tools = [types.Tool(name=n, description=catalog[n]["description"], input_schema=catalog[n]["parameters"])
             for n in names]
    if faults:
        tools.append(types.Tool(name="_crash_server", description="Test only: kills the server process mid-call.",
                                input_schema={"type": "object", "properties": {}}))
    schemas = {t.name: t.input_schema for t in tools}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        if name not in schemas:
            return _error(f"Unknown tool: {name} (404 Not Found: this server has no such tool)")
        if name == "_crash_server":
            os._exit(17)  # no clean-up on purpose: the client must cope with a vanished process
        try:
            args = check_arguments(name, dict(params.arguments or {}), schemas[name])
            data = await run_broken(name, broken[name], args) if name in broken else WORKING[name](args)
        except ToolFailure as exc:
            return _error(str(exc))
        except BadInput as exc:
            return _error(f"400 Bad Request: invalid parameters for {name}: {exc}")
        except Exception as exc:  # a bug in a demo tool must not take the server down
            return _error(f"500 Internal Server Error: {name} failed: {type(exc).__name__}")
        return _result(data)

    return Server("toolatlas-demo", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(faults: bool) -> None:
    server = build_server(faults)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    anyio.run(serve, os.environ.get(FAULTS_ENV) == "1")


if __name__ == "__main__":
    main()
