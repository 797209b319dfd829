"""ToolRet raw layout (fixture: tests/assets/benchmarks/toolret)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.importers.benchmark import load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError

FIXTURE = Path(__file__).parents[2] / "assets" / "benchmarks" / "toolret"


@pytest.fixture(scope="module")
def result():
    return load_benchmark("toolret", [FIXTURE])


def test_tools_from_each_documentation_shape(result):
    by_key = {t.key: t for t in result.tools}
    assert list(by_key) == ["gorilla_huggingface_tool_9", "apigen_tool_272", "toolbench_tool_2857"]
    growth = by_key["apigen_tool_272"]
    assert (growth.name, growth.category, growth.source) == ("bacterial_growth", "web", "toolret:tools/web.jsonl")
    assert growth.description.startswith("Calculates the bacterial population")
    assert growth.parameters["required"] == ["initial_population", "growth_rate", "time"]
    assert growth.parameters["properties"]["doubling_time"]["type"] == "number"
    assert growth.parameters["properties"]["initial_population"] == {
        "description": "The initial bacterial population.", "default": 20, "type": "integer"}
    hf = by_key["gorilla_huggingface_tool_9"]
    assert (hf.name, hf.description, hf.category) == ("text-classification", "Classify the sentiment of a sentence.",
                                                      "code")
    assert hf.parameters == {"type": "object", "properties": {"text": {"type": "string", "description": "The sentence."}},
                             "required": ["text"]}
    assert hf.extra == {"domain": "Natural Language Processing"}
    tb = by_key["toolbench_tool_2857"]
    assert tb.parameters == {"type": "object", "properties": {"q": {
        "type": "string", "description": "The user's search query string.", "default": "cyberia game review"}},
        "required": ["q"]}
    assert tb.extra == {"category_name": "Data", "tool_name": "Keyword Analysis", "api_name": "QueryKeywords",
                        "method": "GET"}


def test_queries_gold_split_and_skipped(result):
    assert [(q.id, q.gold, q.split) for q in result.queries] == [
        ("apigen_query_5", ("apigen_tool_272",), "apigen"),
        ("toolbench_query_1", ("toolbench_tool_2857",), "toolbench"),
    ]
    assert result.queries[0].text.startswith("Given an initial population of 500 bacteria")
    assert result.skipped == (
        "2 gold tool ids missing from the tool files (dropped from their query)",
        "1 queries whose gold tools are all missing from the tool files",
        "1 queries with no relevant tool",
    )


def _files(tool=None, query=None):
    tool = tool or {"id": "t1", "documentation": json.dumps({"name": "n", "description": "d"})}
    query = query or {"id": "q1", "query": "hello", "labels": [{"id": "t1", "relevance": 1}]}
    return {"web.jsonl": (json.dumps(tool) + "\n").encode(), "queries/apibank/queries.jsonl": json.dumps(query).encode()}


def test_labels_as_list_json_array_files_and_folder_named_subset():
    files = _files()
    files["web.jsonl"] = json.dumps([json.loads(files["web.jsonl"])]).encode()
    got = parse_benchmark("toolret", files)
    assert [(q.id, q.gold, q.split) for q in got.queries] == [("q1", ("t1",), "apibank")]
    assert got.tools[0].category == "web"


def test_parquet_export(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    (tmp_path / "web").mkdir()
    pq.write_table(pa.Table.from_pylist([{"id": "t1", "documentation": '{"name": "n"}'}]),
                   tmp_path / "web" / "tools-00000-of-00001.parquet")
    (tmp_path / "q.jsonl").write_text(json.dumps({"id": "q1", "query": "x", "labels": '[{"id": "t1", "relevance": 1}]'}))
    got = load_benchmark("toolret", [tmp_path])
    assert got.tools[0].category == "web" and got.queries[0].gold == ("t1",)


@pytest.mark.parametrize(("tool", "query", "message"), [
    ({"id": "t1", "documentation": "{broken"}, None, r"web.jsonl: record 1: invalid JSON"),
    ({"id": "t1", "documentation": "[1]"}, None, r"web.jsonl: record 1: field 'documentation': must be a JSON object"),
    ({"documentation": "{}"}, None, r"web.jsonl: record 1: field 'id': missing"),
    (None, {"id": "q1", "query": "", "labels": []}, r"queries.jsonl: record 1: field 'query': is empty"),
    (None, {"id": "q1", "query": "x", "labels": "{}"}, r"queries.jsonl: record 1: field 'labels': must be a list"),
    (None, {"id": "q1", "query": "x", "labels": [{"id": "t1", "relevance": "1"}]},
     r"record 1: field 'labels\[0\].relevance': must be a number"),
])
def test_malformed_records_name_file_record_and_field(tool, query, message):
    with pytest.raises(CatalogImportError, match=message):
        parse_benchmark("toolret", _files(tool, query))


def test_no_tool_file_is_an_error():
    with pytest.raises(CatalogImportError, match="no ToolRet tool file found"):
        parse_benchmark("toolret", {"q.jsonl": b'{"id": "q", "query": "x", "labels": []}\n'})
