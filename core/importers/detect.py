"""Pick the importer from the content: OpenAPI, a saved MCP tools/list, or OpenAI tools JSON."""

from __future__ import annotations

from pathlib import Path

from core.importers._common import decode, load_json, read_bytes
from core.importers.mcp_saved import parse_mcp_tools_list
from core.importers.openai_tools import parse_openai_tools
from core.importers.openapi import parse_openapi
from core.models import Tool


def sniff(text: str, path: str) -> str:
    """``openapi``, ``mcp`` or ``openai`` for the decoded text."""
    stripped = text.lstrip()
    if not (stripped.startswith("{") or stripped.startswith("[")):
        return "openapi"  # YAML: only OpenAPI documents come as YAML
    doc = load_json(text, path)
    if isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc):
        return "openapi"
    if isinstance(doc, dict) and ("jsonrpc" in doc or "result" in doc):
        return "mcp"
    entries = doc.get("tools") if isinstance(doc, dict) else doc
    if isinstance(entries, list) and entries and all(isinstance(e, dict) for e in entries):
        if any("inputSchema" in e for e in entries) and not any("function" in e for e in entries):
            return "mcp"
    return "openai"


def load_catalog_bytes(data: bytes, path: str, source: str = "") -> tuple[Tool, ...]:
    text = decode(data, path)
    kind = sniff(text, path)
    parser = {"openapi": parse_openapi, "mcp": parse_mcp_tools_list, "openai": parse_openai_tools}[kind]
    return parser(text, path, source)


def load_catalog_file(path: str | Path, source: str = "") -> tuple[Tool, ...]:
    path = Path(path)
    return load_catalog_bytes(read_bytes(path), str(path), source or path.name)
