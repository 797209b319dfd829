"""Executors: run a planned tool call for real (MCP server over stdio, Python sandbox, HTTP/OpenAPI)."""
