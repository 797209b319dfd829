"""Catalog importers (OpenAI tools JSON, OpenAPI 3, saved MCP tools/list, queries JSONL) and export.

Only the standard library is imported here; PyYAML loads when a YAML file is read.
"""

from core.importers.detect import detect_format, load_catalog_bytes, load_catalog_file
from core.importers.errors import CatalogImportError
from core.importers.export import export_openai_tools
from core.importers.mcp_saved import load_mcp_tools_list, parse_mcp_tools_list
from core.importers.openai_tools import load_openai_tools, parse_openai_tools
from core.importers.openapi import load_openapi, parse_openapi
from core.importers.queries import load_queries_jsonl, parse_queries_jsonl

__all__ = [
    "CatalogImportError",
    "detect_format",
    "export_openai_tools",
    "load_catalog_bytes",
    "load_catalog_file",
    "load_mcp_tools_list",
    "load_openai_tools",
    "load_openapi",
    "load_queries_jsonl",
    "parse_mcp_tools_list",
    "parse_openai_tools",
    "parse_openapi",
    "parse_queries_jsonl",
]
