"""Seal-Tools raw layout: tool.jsonl + split files (current and old layout), skips and errors."""

import json
from pathlib import Path

import pytest

from core.importers.benchmark import collect_files, load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError

FIXTURE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "seal_tools"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "datasets" / "seal_tools"


def test_fixture_tools_queries_and_skipped():
    result = load_benchmark("seal_tools", [FIXTURE])
    assert [t.key for t in result.tools] == ["analyzeEvidence", "getVolleyballScore", "getHealthWorkforce",
                                             "searchLegalTerms"]
    volley = result.tools[1]
    assert volley.description == "Retrieve the current score of a volleyball match"
    assert volley.category == "Sports/Volleyball"
    assert volley.parameters["properties"]["set_number"] == {
        "type": "integer", "description": "Specify the set number for the score (e.g., 1, 2, 3, ...)", "example": "1"}
    assert volley.parameters["required"] == ["match_id"]
    assert volley.extra["responses"]["score"]["type"] == "str"
    assert [(q.id, q.gold, q.split) for q in result.queries] == [("dev-easy-0", ("getHealthWorkforce",), "dev")]
    assert result.skipped == (
        "dataset_in_old_format/dev.jsonl: old-layout file ignored (a current-layout dev.jsonl is present)",
        "dev.jsonl: 1 queries calling an API missing from tool.jsonl",
    )


def test_old_layout_alone_is_read_with_positional_ids():
    files = collect_files([FIXTURE])
    del files["dev.jsonl"]
    result = parse_benchmark("seal_tools", files)
    assert [(q.id, q.text, q.gold) for q in result.queries] == [
        ("dev-0", "Retrieve information about the number of nurses in a specific country.", ("getHealthWorkforce",))]
    assert result.skipped == ()


def test_multi_call_gold_is_ordered_and_deduplicated():
    files = collect_files([FIXTURE])
    files["test_in_domain.jsonl"] = (json.dumps({"id": "t-1", "query": "Look up a term twice, then evidence.",
                                                 "calling": [{"api": "searchLegalTerms"}, {"api": "analyzeEvidence"},
                                                             {"api": "searchLegalTerms"}]}) + "\n").encode()
    (query,) = [q for q in parse_benchmark("seal_tools", files).queries if q.split == "test_in_domain"]
    assert query.gold == ("searchLegalTerms", "analyzeEvidence")


@pytest.mark.parametrize(("name", "data", "where"), [
    ("tool.jsonl", b'{"api_description": "x"}\n', "tool.jsonl: record 1: field 'api_name': missing"),
    ("tool.jsonl", b'{"api_name": "a", "parameters": {"p": "str"}}\n',
     "tool.jsonl: record 1: field 'parameters.p': must be an object"),
    ("tool.jsonl", b'{"api_name": "a", "parameters": {}, "required": ["q"]}\n',
     "tool.jsonl: record 1: field 'parameters.required'"),
    ("dev.jsonl", b'{"id": "d-1", "query": "q", "calling": [{"parameters": {}}]}\n',
     "dev.jsonl: record 1: field 'calling[0].api': missing"),
    ("dev.jsonl", b'{"id": "d-1", "calling": [{"api": "a"}]}\n', "dev.jsonl: record 1: field 'query': missing"),
    ("dev.jsonl", b'"just text"\n', "dev.jsonl: record 1: must be an object or a [calls, query] pair"),
])
def test_malformed_records_name_file_record_field(name, data, where):
    files = {"tool.jsonl": b'{"api_name": "a"}\n', "dev.jsonl": b'{"id": "d-0", "query": "q", "calling": [{"api": "a"}]}\n'}
    files[name] = data
    with pytest.raises(CatalogImportError) as err:
        parse_benchmark("seal_tools", files)
    assert where in str(err.value)


def test_missing_files_and_duplicate_ids():
    with pytest.raises(CatalogImportError, match="expected one tool.jsonl"):
        parse_benchmark("seal_tools", {"dev.jsonl": b"{}\n"})
    with pytest.raises(CatalogImportError, match="no query files"):
        parse_benchmark("seal_tools", {"tool.jsonl": b'{"api_name": "a"}\n', "notes.txt": b"x"})
    line = b'{"id": "d-0", "query": "q", "calling": [{"api": "a"}]}\n'
    with pytest.raises(CatalogImportError, match=r"test_in_domain.jsonl: record 1: field 'id': duplicate query id"):
        parse_benchmark("seal_tools", {"tool.jsonl": b'{"api_name": "a"}\n', "dev.jsonl": line,
                                       "test_in_domain.jsonl": line})


def test_same_tools_as_the_shared_converted_copy():
    if not (SHARED / "tools.json").exists():
        pytest.skip(f"shared datasets absent: {SHARED} not found")
    shared = {t["key"]: t for t in json.loads((SHARED / "tools.json").read_text())}
    queries = {q["id"]: q for q in map(json.loads, (SHARED / "queries.jsonl").read_text().splitlines())}
    result = load_benchmark("seal_tools", [FIXTURE])
    for tool in result.tools:
        ref = shared[tool.key]
        assert (tool.name, tool.description, tool.category) == (ref["function"]["name"],
                                                                ref["function"]["description"], ref["category"])
        assert {k: v["type"] for k, v in tool.parameters["properties"].items()} == {
            k: v["type"] for k, v in ref["function"]["parameters"]["properties"].items()}
    for q in result.queries:
        assert (q.text, list(q.gold), q.split) == (queries[q.id]["query"], queries[q.id]["gold"],
                                                   queries[q.id]["split"])
