"""Import a catalog file without being told its format.

OpenAPI when the top level has ``openapi`` or ``swagger``; a saved MCP ``tools/list`` when
it is a JSON-RPC envelope or its tool entries carry ``inputSchema``; OpenAI tools otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.importers import _common, mcp_saved, openai_tools, openapi
from core.importers._common import check_catalog_size, decode, guarded, load_json_or_yaml, read_file
from core.models import Tool

_PARSERS = {
    "openapi": openapi.tools_from_document,
    "mcp": mcp_saved.tools_from_document,
    "openai": openai_tools.tools_from_document,
}


def detect_format(doc: Any) -> str:
    """``"openapi"``, ``"mcp"`` or ``"openai"`` for a parsed document."""
    if isinstance(doc, dict):
        if "openapi" in doc or "swagger" in doc:
            return "openapi"
        if "tools" not in doc and ("jsonrpc" in doc or "result" in doc or "error" in doc):
            return "mcp"
        entries = doc.get("tools")
    else:
        entries = doc
    if isinstance(entries, list):
        dicts = [e for e in entries if isinstance(e, dict)]
        if any("inputSchema" in e for e in dicts) and not any("function" in e or "parameters" in e for e in dicts):
            return "mcp"
    return "openai"


def load_catalog_bytes(data: bytes | str, path: str, source: str = "") -> tuple[Tool, ...]:
    """Tools of an uploaded catalog in any supported format (JSON, or YAML for any of them)."""
    if isinstance(data, bytes | bytearray | memoryview):
        check_catalog_size(len(data), path)
    elif isinstance(data, str) and len(data) > _common.MAX_CATALOG_BYTES // 4:  # short text skips the encode
        check_catalog_size(len(data.encode("utf-8", "surrogatepass")), path)
    with guarded(path):
        doc = load_json_or_yaml(decode(data, path), path)
        return _PARSERS[detect_format(doc)](doc, path, source)


def read_catalog_file(path: str | Path) -> bytes:
    """The bytes of a catalog file, its size checked against ``MAX_CATALOG_BYTES`` before reading."""
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = 0  # read_file reports the problem
    check_catalog_size(size, str(path), _common.MAX_CATALOG_BYTES)
    return read_file(path)


def load_catalog_file(path: str | Path, source: str | None = None) -> tuple[Tool, ...]:
    """Read a catalog file in any supported format; ``source`` defaults to the file's name."""
    return load_catalog_bytes(read_catalog_file(path), str(path), Path(path).name if source is None else source)
