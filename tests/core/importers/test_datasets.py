"""The public benchmarks in ../shared/datasets import whole, with every gold key known."""

from pathlib import Path

import pytest

from core.importers.openai_tools import load_openai_tools
from core.importers.queries import load_queries_jsonl

# tests/core/importers/<this file> -> parents[3] is the repository root; datasets sit beside it.
DATASETS = Path(__file__).resolve().parents[3] / ".." / "shared" / "datasets"

pytestmark = pytest.mark.dataset


@pytest.mark.parametrize("name,n_tools,n_queries", [("bfcl", 1_437, 2_501), ("seal_tools", 4_076, 2_054)])
def test_public_benchmark_imports_whole(name, n_tools, n_queries):
    folder = DATASETS / name
    if not (folder / "tools.json").is_file() or not (folder / "queries.jsonl").is_file():
        pytest.skip(f"../shared/datasets not present: {folder} has no tools.json/queries.jsonl")
    tools = load_openai_tools(folder / "tools.json")
    keys = {t.key for t in tools}
    queries = load_queries_jsonl(folder / "queries.jsonl", known_keys=keys)
    assert (len(tools), len(keys), len(queries)) == (n_tools, n_tools, n_queries)
    assert all(q.gold and set(q.gold) <= keys for q in queries)
    assert all(t.parameters["type"] == "object" and t.source == "tools.json" for t in tools)
