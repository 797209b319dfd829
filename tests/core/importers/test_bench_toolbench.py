"""ToolBench / StableToolBench raw layouts (fixture: tests/assets/benchmarks/toolbench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.importers.benchmark import load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError

FIXTURE = Path(__file__).parents[2] / "assets" / "benchmarks" / "toolbench"


@pytest.fixture(scope="module")
def result():
    return load_benchmark("toolbench", [FIXTURE])


def test_tools_are_pooled_keyed_and_named_like_toolbench(result):
    keys = [t.key for t in result.tools]
    assert keys == [
        "squake::checkhealth", "squake::projects",
        "transportistas_de_argentina::cities_states_stateisocode",
        "transportistas_de_argentina::quotes_postcode_correo_argentino_weight_postcodesrc_postcodedst",
        "olato_quotes::love_quote", "olato_quotes::success_quote",
        "theclique::transfermarkt_search", "theclique::transfermarkt_details",
        "keyword_analysis::popularsitesforquery", "keyword_analysis::querykeywords",
    ]
    by_key = {t.key: t for t in result.tools}
    # ToolBench keeps the last 64 characters of "<api>_for_<tool>".
    long = by_key["transportistas_de_argentina::quotes_postcode_correo_argentino_weight_postcodesrc_postcodedst"]
    assert long.name == "o_weight_postcodesrc_postcodedst_for_transportistas_de_argentina"
    assert len(long.name) == 64
    assert long.parameters == {"type": "object", "properties": {
        "postCodeDst": {"type": "number", "description": "Postcode Destination"},
        "postCodeSrc": {"type": "number", "description": "Postcode Source"},
        "weight": {"type": "number", "description": "Weight in KG"}},
        "required": ["postCodeDst", "postCodeSrc", "weight"]}
    assert long.category == "Logistics" and long.source == "toolbench:data/instruction/G1_query.json"


def test_toolenv_file_replaces_the_query_file_copy(result):
    projects = next(t for t in result.tools if t.key == "squake::projects")
    assert projects.name == "projects_for_squake"
    assert projects.description == "List the climate projects."
    assert projects.parameters == {"type": "object", "properties": {
        "locale": {"type": "string", "description": "Language of the texts", "default": "en"}}}
    assert projects.source == "toolbench:data/toolenv/tools/Logistics/squake.json"
    assert projects.extra == {"tool_name": "SQUAKE", "api_name": "Projects", "method": "GET",
                              "tool_description": "SQUAKE helps businesses to build sustainable products."}


def test_lowercase_stabletoolbench_types_and_optional_defaults(result):
    by_key = {t.key: t for t in result.tools}
    assert by_key["theclique::transfermarkt_search"].parameters == {
        "type": "object", "properties": {"name": {"type": "string", "default": "messi"}}, "required": ["name"]}
    assert by_key["olato_quotes::love_quote"].parameters == {
        "type": "object", "properties": {"quotes": {"type": "string", "default": "random quotes"}}}


def test_queries_gold_splits_and_skips(result):
    got = {q.id: (q.gold, q.split) for q in result.queries}
    assert got == {
        "G1_query/1": (("squake::checkhealth", "squake::projects"), "G1_query"),
        "G1_query/5": (("transportistas_de_argentina::cities_states_stateisocode",), "G1_query"),
        "G1/test/3": (("olato_quotes::love_quote", "olato_quotes::success_quote"), "G1/test"),
        "G1_instruction/588": (("theclique::transfermarkt_search", "theclique::transfermarkt_details"),
                               "G1_instruction"),
        "G1_instruction/1073": (("keyword_analysis::popularsitesforquery", "keyword_analysis::querykeywords"),
                                "G1_instruction"),
    }
    assert next(q for q in result.queries if q.id == "G1/test/3").text.startswith("I'm planning a surprise party")
    assert result.skipped == (
        "2 qrels rows naming a query or document id that is not in the files",
        "1 gold APIs missing from the tool list (dropped from their query)",
        "2 queries with no relevant API",
    )


def _query_file(**changes):
    record = {"api_list": [{"category_name": "Data", "tool_name": "T", "api_name": "A", "api_description": "d",
                            "required_parameters": [], "optional_parameters": [], "method": "GET"}],
              "query": "q", "relevant APIs": [["T", "A"]], "query_id": 1}
    record.update(changes)
    return {"instruction/G1_query.json": json.dumps([record]).encode()}


def test_minimal_query_file_without_query_id_uses_position():
    files = _query_file()
    record = json.loads(files["instruction/G1_query.json"])[0]
    del record["query_id"]
    got = parse_benchmark("toolbench", {"instruction/G1_query.json": json.dumps([record]).encode(),
                                        "notes.txt": b"unrelated"})
    assert [(q.id, q.gold) for q in got.queries] == [("G1_query/0", ("t::a",))]


@pytest.mark.parametrize(("changes", "message"), [
    ({"query": ""}, "G1_query.json: record 1: field 'query': is empty"),
    ({"relevant APIs": [["T"]]}, "record 1: field 'relevant APIs[0]': must be a [tool_name, api_name] pair"),
    ({"api_list": [{"tool_name": "T"}]}, "record 1: field 'api_list[0].api_name': missing"),
    ({"api_list": [{"tool_name": "T", "api_name": "A", "required_parameters": [{"type": "STRING"}]}]},
     "record 1: field 'api_list[0].required_parameters[0].name': missing"),
    ({"api_list": [{"tool_name": "T", "api_name": "A", "optional_parameters": "x"}]},
     "record 1: field 'api_list[0].optional_parameters': must be a list"),
    ({"query_id": [1]}, "record 1: field 'query_id': must be a string or an integer"),
])
def test_malformed_query_records_name_file_record_and_field(changes, message):
    with pytest.raises(CatalogImportError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_benchmark("toolbench", _query_file(**changes))


def test_malformed_toolenv_and_retrieval_files():
    with pytest.raises(CatalogImportError, match=r"tools/Data/t.json: field 'api_list': must be a list"):
        parse_benchmark("toolbench", {"tools/Data/t.json": b'{"tool_name": "T", "api_list": 3}'})
    with pytest.raises(CatalogImportError, match=r"G1/corpus.tsv: record 1: expected a header row"):
        parse_benchmark("toolbench", {"G1/corpus.tsv": b"1\t{}\n"})
    with pytest.raises(CatalogImportError, match=r"G1/corpus.tsv: record 2: invalid JSON"):
        parse_benchmark("toolbench", {"G1/corpus.tsv": b"docid\tdocument_content\n1\t{oops\n"})
    with pytest.raises(CatalogImportError, match="no ToolBench files found"):
        parse_benchmark("toolbench", {"readme.md": b"hello"})
