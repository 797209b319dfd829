"""Fixtures of the ``toolatlas`` command tests."""

import json

import pytest


@pytest.fixture
def tiny_files(tmp_path, tiny_tools, tiny_queries):
    """The tiny catalog and its queries as files, and a fresh SQLite store's URL."""
    tools = tmp_path / "tiny.json"
    tools.write_text(json.dumps([t.to_openai() for t in tiny_tools]))
    queries = tmp_path / "tiny_q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": q.id, "query": q.text, "gold": list(q.gold), "split": q.split})
                                 for q in tiny_queries))
    return tools, queries, f"sqlite:///{tmp_path / 'cli.db'}"
