"""Catalog importers (OpenAI tools JSON, OpenAPI 3, saved MCP tools/list, queries JSONL) and export."""
