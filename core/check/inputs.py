"""BASE and NEW of a check, from what the operator typed: a catalog file in any importable format (OpenAI
tools, OpenAPI, a saved MCP ``tools/list``), a stored version (``NAME@v3``, ``NAME@3``, ``NAME@latest``) or a
live MCP server (``mcp:`` and the command line that starts it).

A server is started only because the operator typed its command here; catalog text never names one. Nothing
is written anywhere while resolving: a file is parsed, not imported into the store.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.models import Tool

MCP_PREFIX = "mcp:"
_STORED = re.compile(r"^(?P<name>[^@\s]+)@(?:v(?P<v>\d+)|(?P<n>\d+)|(?P<latest>latest))$")
USAGE = ("a catalog file (OpenAI tools JSON, OpenAPI, saved MCP tools/list), a stored version NAME@vN, or "
         "mcp:COMMAND to list a live MCP server's tools")


@dataclass(frozen=True)
class CatalogInput:
    """One side of a check: what to call it, its tools, and where they came from."""

    label: str
    tools: tuple[Tool, ...]
    kind: str  # "file", "stored" or "mcp"
    version_id: int | None = None  # the stored version's id (kind "stored")


# (catalog name, version number or None for the latest) -> (tools, label, version id)
StoredLoader = Callable[[str, int | None], tuple[Sequence[Tool], str, int]]


def parse_stored(spec: str) -> tuple[str, int | None] | None:
    """``NAME@v3`` -> ("NAME", 3); ``NAME@latest`` -> ("NAME", None); anything else -> None."""
    m = _STORED.match(spec.strip())
    if m is None:
        return None
    number = m["v"] or m["n"]
    return m["name"], int(number) if number else None


def is_stored(spec: str) -> bool:
    """Whether ``spec`` names a stored version (and is not an existing file)."""
    return not Path(spec).is_file() and parse_stored(spec) is not None


def _checked(label: str, tools: Sequence[Tool]) -> tuple[Tool, ...]:
    if not tools:
        raise ValueError(f"{label}: no tools")
    seen: set[str] = set()
    for t in tools:
        if t.key in seen:
            raise ValueError(f"{label}: duplicate tool key {t.key!r}")
        seen.add(t.key)
    return tuple(tools)


def resolve(spec: str, *, stored: StoredLoader | None = None, mcp_timeout: float = 30.0) -> CatalogInput:
    """The catalog ``spec`` names (see the module docstring). ValueError (or the importers'
    ``CatalogImportError``) when it names nothing usable, with what was expected."""
    spec = str(spec)
    if spec.startswith(MCP_PREFIX):
        from core.importers.mcp_live import load_mcp_server

        command = shlex.split(spec[len(MCP_PREFIX):])
        if not command:
            raise ValueError(f"{spec!r}: give the command that starts the server after 'mcp:'")
        tools = load_mcp_server(command, timeout=mcp_timeout)
        return CatalogInput(f"mcp: {shlex.join(command)}", _checked(spec, tools), "mcp")
    path = Path(spec)
    if path.is_file():
        from core.importers.detect import load_catalog_file

        return CatalogInput(path.name, _checked(path.name, load_catalog_file(path)), "file")
    parsed = parse_stored(spec)
    if parsed is not None:
        if stored is None:
            raise ValueError(f"{spec!r}: a stored version needs a store")
        tools, label, version_id = stored(*parsed)
        return CatalogInput(label, _checked(label, tools), "stored", version_id)
    if path.exists():
        raise ValueError(f"{spec!r} is not a file; expected {USAGE}")
    raise ValueError(f"{spec!r}: no such file; expected {USAGE}")


def workspace_loader(ws) -> StoredLoader:
    """Stored versions read through a :class:`core.workspace.Workspace` (the demo is loaded on demand)."""

    def load(name: str, number: int | None) -> tuple[Sequence[Tool], str, int]:
        if name == "demo":
            ws.ensure_demo()
        catalogs = {c.name: c for c in ws.catalogs()}
        if name not in catalogs:
            raise ValueError(f"no stored catalog {name!r}; stored: {', '.join(sorted(catalogs)) or 'none'}")
        info = catalogs[name]
        version = info.latest if number is None else next((v for v in info.versions if v.number == number), None)
        if version is None:
            raise ValueError(f"catalog {name!r} has no version {number} "
                             f"(versions: {', '.join(str(v.number) for v in info.versions)})")
        return ws.tools(version.id), f"{name} v{version.number}", version.id

    return load
