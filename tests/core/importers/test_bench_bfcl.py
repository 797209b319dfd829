"""BFCL raw layout: pooling, gold, splits, skipped categories, schema conversion, errors."""

import json
from pathlib import Path

import pytest

from core.importers.benchmark import collect_files, load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError

FIXTURE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "bfcl"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "datasets" / "bfcl"


def test_fixture_tools_queries_and_skipped():
    result = load_benchmark("bfcl", [FIXTURE])
    assert [t.key for t in result.tools] == ["calculate_triangle_area", "calculate_area_under_curve", "math.gcd",
                                             "math_toolkit.sum_of_multiples", "math_toolkit.product_of_primes"]
    gcd = next(t for t in result.tools if t.key == "math.gcd")
    assert gcd.description == "Compute the greatest common divisor of two numbers"  # first doc wins
    assert gcd.extra == {"bfcl_questions": 2}
    assert gcd.category == "simple_python" and gcd.source == "bfcl:BFCL_v4_simple_python.json"
    curve = next(t for t in result.tools if t.key == "calculate_area_under_curve")
    assert curve.parameters["type"] == "object"
    assert curve.parameters["properties"]["interval"]["items"] == {"type": "number", "x-original-type": "float"}
    assert curve.parameters["required"] == ["function", "interval"]
    by_id = {q.id: q for q in result.queries}
    assert list(by_id) == ["simple_python_0", "simple_python_13", "simple_python_19", "simple_python_22",
                           "parallel_multiple_0"]
    assert by_id["parallel_multiple_0"].gold == ("math_toolkit.sum_of_multiples", "math_toolkit.product_of_primes")
    assert by_id["parallel_multiple_0"].split == "parallel_multiple"
    assert by_id["simple_python_19"].text == "Calculate the greatest common divisor of two numbers: 40 and 50"
    assert result.skipped == (
        "BFCL_v4_irrelevance.json: 1 questions with no possible_answer file (no gold)",
        "BFCL_v4_multi_turn_base.json: 1 questions without function docs in the question (multi-turn/agentic layout)",
    )


def test_order_of_files_does_not_change_first_doc():
    files = collect_files([FIXTURE])
    reversed_files = dict(reversed(list(files.items())))
    assert parse_benchmark("bfcl", reversed_files).tools == parse_benchmark("bfcl", files).tools


def _line(obj):
    return (json.dumps(obj) + "\n").encode()


def _question(fn_type="dict", **extra):
    q = {"id": "simple_0", "question": [[{"role": "system", "content": "Be brief."},
                                         {"role": "user", "content": "What is 2+2?"}]],
         "function": [{"name": "Calc.add", "description": "Adds.",
                       "parameters": {"type": fn_type, "properties": {
                           "nums": {"type": "tuple", "items": {"type": "long"}},
                           "opts": {"type": "HashMap", "properties": {"x": {"type": "any"}}}}}}]}
    q.update(extra)
    return q


def test_v3_names_system_turns_and_java_types():
    files = {"BFCL_v3_java.json": _line(_question()),
             "possible_answer/BFCL_v3_java.json": _line({"id": "simple_0", "ground_truth": [{"Calc.add": {}}]}),
             "README.md": b"not data", "eval.py": b"print()"}
    result = parse_benchmark("bfcl", files)
    (query,) = result.queries
    assert (query.text, query.gold, query.split) == ("What is 2+2?", ("Calc.add",), "java")
    props = result.tools[0].parameters["properties"]
    assert props["nums"] == {"type": "array", "x-original-type": "tuple",
                             "items": {"type": "integer", "x-original-type": "long"}}
    assert props["opts"]["type"] == "object" and props["opts"]["properties"]["x"] == {"x-original-type": "any"}


def test_gold_not_among_functions_is_skipped():
    files = {"BFCL_v3_simple.json": _line(_question()),
             "possible_answer/BFCL_v3_simple.json": _line({"id": "simple_0", "ground_truth": [{"other": {}}]})}
    with pytest.raises(CatalogImportError, match="hold no tools"):
        parse_benchmark("bfcl", files)
    files["BFCL_v3_multiple.json"] = _line(_question(id="multiple_0"))
    files["possible_answer/BFCL_v3_multiple.json"] = _line({"id": "multiple_0", "ground_truth": [{"Calc.add": {}}]})
    result = parse_benchmark("bfcl", files)
    assert [q.id for q in result.queries] == ["multiple_0"]
    assert result.skipped == ("BFCL_v3_simple.json: 1 questions whose gold function is not among the "
                              "question's functions",)


@pytest.mark.parametrize(("question", "answer", "where"), [
    ({"id": "simple_0", "question": "hi", "function": []}, None, "BFCL_v3_simple.json: record 1: field 'question'"),
    (_question(function=[{"description": "no name"}]), None, "record 1: field 'function[0].name': missing"),
    (_question(fn_type="string"), None, "field 'function[0].parameters'"),
    (_question(), {"id": "simple_0", "ground_truth": ["cd('x')"]},
     "possible_answer/BFCL_v3_simple.json: record 1: field 'ground_truth[0]'"),
])
def test_malformed_records_name_file_record_field(question, answer, where):
    answer = answer or {"id": "simple_0", "ground_truth": [{"Calc.add": {}}]}
    files = {"BFCL_v3_simple.json": _line(question), "possible_answer/BFCL_v3_simple.json": _line(answer)}
    with pytest.raises(CatalogImportError) as err:
        parse_benchmark("bfcl", files)
    assert where in str(err.value)


def test_bad_json_line_and_no_question_files():
    files = {"BFCL_v3_simple.json": b'{"id": "a"}\n{oops\n', "possible_answer/BFCL_v3_simple.json": b'{"id": "a"}\n'}
    with pytest.raises(CatalogImportError, match=r"BFCL_v3_simple.json: record 2: invalid JSON"):
        parse_benchmark("bfcl", files)
    with pytest.raises(CatalogImportError, match="no BFCL question files"):
        parse_benchmark("bfcl", {"README.md": b"hello"})


def test_same_tools_as_the_shared_converted_copy():
    if not (SHARED / "tools.json").exists():
        pytest.skip(f"shared datasets absent: {SHARED} not found")
    shared = {t["key"]: t["function"] for t in json.loads((SHARED / "tools.json").read_text())}
    queries = {q["id"]: q for q in map(json.loads, (SHARED / "queries.jsonl").read_text().splitlines())}
    result = load_benchmark("bfcl", [FIXTURE])
    for tool in result.tools:
        assert (tool.name, tool.description) == (shared[tool.key]["name"], shared[tool.key]["description"])
    for q in result.queries:
        assert (q.text, list(q.gold), q.split) == (queries[q.id]["query"], queries[q.id]["gold"],
                                                   queries[q.id]["split"])


def test_gold_calls_carry_every_accepted_value_and_what_may_be_left_out():
    from core.models import GoldCall

    by_id = {q.id: q for q in load_benchmark("bfcl", [FIXTURE]).queries}
    # "unit": ["units", ""] — "units", or left out
    assert by_id["simple_python_0"].gold_calls == (
        GoldCall("calculate_triangle_area", {"base": (10,), "height": (5,), "unit": ("units",)}, ("unit",)),)
    (curve,) = by_id["simple_python_13"].gold_calls
    assert curve.arguments == {"function": ("x**2", "lambda x: x**2", "y=x**2"), "interval": ([1.0, 3.0],),
                               "method": ("trapezoidal",)}
    assert curve.optional == ("method",)
    assert [c.tool for c in by_id["parallel_multiple_0"].gold_calls] == ["math_toolkit.sum_of_multiples",
                                                                         "math_toolkit.product_of_primes"]
    assert by_id["parallel_multiple_0"].gold_calls[0].arguments["multiples"] == ([3, 5],)


def test_nested_possible_answers_resolve_to_one_value_and_none_means_may_be_left_out():
    question = _question(id="live_0")
    answer = {"id": "live_0", "ground_truth": [
        {"Calc.add": {"opts": [{"x": ["", "a", "b"], "y": [""]}], "nums": [[1, 2]], "z": ["", None]}},
        {"Calc.add": {"opts": [[{"x": ["c"]}, {"x": ["d", "e"]}]], "nums": [[3]]}}]}
    files = {"BFCL_v4_live_simple.json": _line(question), "possible_answer/BFCL_v4_live_simple.json": _line(answer)}
    (query,) = parse_benchmark("bfcl", files).queries
    first, second = query.gold_calls  # the same function called twice keeps both calls
    # an object's alternatives: first accepted value per key; a key that may only be left out is dropped
    assert first.arguments == {"opts": ({"x": "a"},), "nums": ([1, 2],), "z": ()}
    assert first.optional == ("z",)
    assert second.arguments["opts"] == ([{"x": "c"}, {"x": "d"}],) and second.optional == ()


def test_gold_calls_of_the_real_release():
    raw = SHARED.parent / "bfcl_raw"
    if not (raw / "possible_answer").is_dir():
        pytest.skip(f"shared datasets absent: {raw} not found")
    result = load_benchmark("bfcl", [raw])
    calls = [c for q in result.queries for c in q.gold_calls]
    assert len(result.queries) == 2501 and len(calls) >= len(result.queries)
    assert all(q.gold_calls and {c.tool for c in q.gold_calls} == set(q.gold) for q in result.queries)
    by_id = {q.id: q for q in result.queries}
    assert by_id["simple_python_1"].gold_calls[0].arguments == {"number": (5,)}
