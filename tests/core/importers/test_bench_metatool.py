"""MetaTool (ToolE) raw layout: plugin descriptions + single-tool CSV + multi-tool JSON."""

from pathlib import Path

import pytest

from core.importers.benchmark import collect_files, load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError

FIXTURE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "metatool"


def test_fixture_tools_queries_and_skipped():
    result = load_benchmark("metatool", [FIXTURE])
    assert [t.key for t in result.tools] == ["timeport", "FinanceTool", "NewsTool", "ResearchFinder", "SEOTool"]
    seo = result.tools[-1]
    assert seo.description == "Tool that provides users with SEO analytics content."
    assert seo.parameters == {"type": "object", "properties": {}}
    assert seo.source == "metatool:plugin_des.json"
    by_id = {q.id: q for q in result.queries}
    assert list(by_id) == ["single-2", "single-3", "single-4", "multi-1", "multi-3"]
    assert by_id["single-3"].gold == ("SEOTool",) and by_id["single-3"].split == "single"
    assert by_id["single-4"].text.startswith("Can you help me find recent research papers, preferably")
    assert by_id["multi-1"].gold == ("FinanceTool", "NewsTool") and by_id["multi-1"].split == "multi"
    # the literal quotes around many released queries are removed
    assert by_id["multi-3"].text == "What are the recent economic trends and how are they impacting the stock market?"
    assert result.skipped == (
        "all_clean_data.csv: 1 queries whose gold tool is not in plugin_des.json (ResearchHelper)",
        "multi_tool_query_golden.json: 1 queries whose gold tool is not in plugin_des.json (CourseTool)",
    )


def test_big_tool_des_is_the_fallback_and_extra_files_are_ignored():
    files = collect_files([FIXTURE])
    files["dataset/big_tool_des.json"] = files.pop("dataset/plugin_des.json")
    files["src/run.py"] = b"print('x')"
    result = parse_benchmark("metatool", files)
    assert len(result.tools) == 5 and result.tools[0].source == "metatool:big_tool_des.json"


@pytest.mark.parametrize(("name", "data", "where"), [
    ("dataset/data/all_clean_data.csv", b"Question,Label\na,b\n", "all_clean_data.csv: record 1: expected the header"),
    ("dataset/data/all_clean_data.csv", b"Query,Tool\nhello,\n", "all_clean_data.csv: record 2: field 'Tool': is empty"),
    ("dataset/data/multi_tool_query_golden.json", b'[{"query": "q", "tool": "NewsTool"}, {"query": "q"}]',
     "multi_tool_query_golden.json: record 2: field 'tool': must be a non-empty list"),
    ("dataset/data/multi_tool_query_golden.json", b'{"query": "q"}', "expected a list of {query, tool} objects"),
    ("dataset/plugin_des.json", b'["NewsTool"]', "plugin_des.json: expected an object of tool name"),
])
def test_malformed_input_names_file_record_field(name, data, where):
    files = collect_files([FIXTURE])
    files[name] = data
    with pytest.raises(CatalogImportError) as err:
        parse_benchmark("metatool", files)
    assert where in str(err.value)


def test_missing_files():
    with pytest.raises(CatalogImportError, match="no tool description file"):
        parse_benchmark("metatool", {"all_clean_data.csv": b"Query,Tool\n"})
    with pytest.raises(CatalogImportError, match="no query file"):
        parse_benchmark("metatool", {"plugin_des.json": b'{"a": "b"}'})
