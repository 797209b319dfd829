from core.importers.queries import load_queries_jsonl, parse_queries_jsonl
from tests.core.importers.helpers import check_error, error_of


def lines(*objs) -> str:
    import json

    return "".join(json.dumps(o) + "\n" for o in objs)


def fails(text, known_keys=None):
    return error_of(parse_queries_jsonl, text, "q.jsonl", known_keys)


def test_happy_path():
    text = ('{"id": 1, "query": " weather? ", "gold": "get_weather", "split": "test"}\r\n'
            "\n   \n"
            '{"id": "b", "query": "x", "gold": ["a", "b", "a"], "gold_alternatives": [["c"]], "note": 1}\n')
    qs = parse_queries_jsonl(text.encode(), "q.jsonl", known_keys={"get_weather", "a", "b"})
    assert [(q.id, q.text, q.gold, q.split) for q in qs] == [
        ("1", "weather?", ("get_weather",), "test"), ("b", "x", ("a", "b"), "")]


def test_missing_gold_means_no_gold():
    assert parse_queries_jsonl('{"id": "a", "query": "q"}', "q.jsonl")[0].gold == ()


def test_line_separator_characters_inside_strings_are_not_line_breaks():
    (q,) = parse_queries_jsonl('{"id": "a", "query": "one\u2028two\x85three"}\n', "q.jsonl")
    assert q.text == "one\u2028two\x85three"


def test_load_from_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(lines({"id": 1, "query": "q", "gold": ["k"]}))
    assert load_queries_jsonl(path, known_keys=["k"])[0].gold == ("k",)


def test_missing_id():
    check_error(fails(lines({"id": 1, "query": "a"}, {"query": "b"})), "q.jsonl", 2, "id", "missing")


def test_id_of_the_wrong_type():
    for bad in (True, 1.5, ["a"]):
        check_error(fails(lines({"id": bad, "query": "a"})), "q.jsonl", 1, "id", "string or an integer")


def test_blank_id():
    check_error(fails(lines({"id": " ", "query": "a"})), "q.jsonl", 1, "id", "empty")


def test_duplicate_ids_name_both_lines():
    err = fails(lines({"id": 1, "query": "q"}, {"id": 2, "query": "r"}, {"id": "1", "query": "s"}))
    check_error(err, "q.jsonl", 3, "id", "duplicate id '1'", "also line 1")


def test_missing_query():
    check_error(fails(lines({"id": 1})), "q.jsonl", 1, "query", "missing")


def test_blank_query():
    check_error(fails(lines({"id": 1, "query": "  "})), "q.jsonl", 1, "query", "empty")


def test_query_not_a_string():
    check_error(fails(lines({"id": 1, "query": ["a"]})), "q.jsonl", 1, "query", "string")


def test_gold_not_a_list():
    check_error(fails(lines({"id": 1, "query": "q", "gold": {"a": 1}})), "q.jsonl", 1, "gold", "list")


def test_gold_item_not_a_string():
    check_error(fails(lines({"id": 1, "query": "q", "gold": ["a", 2]})), "q.jsonl", 1, "gold", "item 2")


def test_gold_key_not_in_the_catalog():
    text = lines({"id": 1, "query": "q", "gold": ["a"]}, {"id": 2, "query": "q", "gold": ["a", "nope", "zz"]})
    err = fails(text, known_keys={"a"})
    check_error(err, "q.jsonl", 2, "gold", "'nope' is not a tool of the catalog", "1 more")


def test_gold_with_nul():
    check_error(fails(lines({"id": 1, "query": "q", "gold": ["a\x00"]})), "q.jsonl", 1, "gold", "NUL")


def test_split_not_a_string():
    check_error(fails(lines({"id": 1, "query": "q", "split": 3})), "q.jsonl", 1, "split", "string")


def test_line_not_an_object():
    check_error(fails(lines({"id": 1, "query": "q"}, ["id", 2])), "q.jsonl", 2, None, "object")


def test_invalid_json_line():
    check_error(fails('{"id": 1, "query": "q"}\n\n{"id": 2,\n'), "q.jsonl", 3, None, "invalid JSON")


def test_gold_calls_round_trip_through_the_interchange_format():
    from core.models import GoldCall

    call = {"tool": "w", "arguments": {"city": ["Paris", "Paris, FR"], "unit": ["C"], "opts": [{"days": 2}]},
            "optional": ["unit"]}
    (q,) = parse_queries_jsonl(lines({"id": "a", "query": "q", "gold": ["w", "x"], "gold_calls": [call]}), "q.jsonl")
    assert q.gold_calls == (GoldCall("w", {"city": ("Paris", "Paris, FR"), "unit": ("C",), "opts": ({"days": 2},)},
                                     ("unit",)),)
    assert q.gold_calls[0].to_json() == call
    assert parse_queries_jsonl(lines({"id": "a", "query": "q", "gold": ["w"]}), "q.jsonl")[0].gold_calls == ()


def test_bad_gold_calls_name_line_and_field():
    def bad(calls):
        return fails(lines({"id": "a", "query": "q", "gold": ["w"]}, {"id": "b", "query": "q", "gold": ["w"],
                                                                      "gold_calls": calls}))

    check_error(bad({"tool": "w"}), "q.jsonl", 2, "gold_calls", "must be a list of calls")
    check_error(bad([{"tool": "v", "arguments": {}}]), "q.jsonl", 2, "gold_calls[0].tool", "not one of the line's gold")
    check_error(bad([{"tool": "w", "arguments": {"city": "Paris"}}]), "q.jsonl", 2, "gold_calls[0].arguments",
                "list of accepted values")
    check_error(bad([{"tool": "w", "arguments": {"city": ["P"]}, "optional": ["unit"]}]), "q.jsonl", 2,
                "gold_calls[0].optional", "argument names of the call")
