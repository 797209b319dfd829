import pytest

from core.importers.openai_tools import load_openai_tools
from core.importers.queries import parse_queries_jsonl
from tests.conftest import dataset_dir

pytestmark = pytest.mark.dataset


@pytest.mark.parametrize("name,n_tools,n_queries", [("bfcl", 1437, 2501), ("seal_tools", 4076, 2054)])
def test_public_benchmarks_import_whole(name, n_tools, n_queries):
    folder = dataset_dir(name)
    tools = load_openai_tools(folder / "tools.json")
    queries = parse_queries_jsonl((folder / "queries.jsonl").read_bytes(), "queries.jsonl",
                                  known_keys={t.key for t in tools})
    assert (len(tools), len(queries)) == (n_tools, n_queries)
    assert all(t.parameters.get("type") == "object" for t in tools)
