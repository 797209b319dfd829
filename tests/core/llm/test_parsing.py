import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.llm.base import LLMBadResponse
from core.llm.parsing import parse_blocks, parse_bool, parse_json_object, parse_score, parse_single


def test_blocks_tolerate_noise():
    text = ("Sure! {BEGIN} Description: Get the weather for a city {END}\n{begin}```Convert money\nbetween "
            "currencies```{end} {BEGIN} Get the weather for a city {END} {BEGIN} unfinished block")
    assert parse_blocks(text) == ["Get the weather for a city", "Convert money between currencies", "unfinished block"]


def test_blocks_fences_labels_and_open_blocks():
    text = "{ BEGIN }\n```text\n**Tool description 2:** Send an email\n```\n{BEGIN} Second open {BEGIN} third"
    assert parse_blocks(text) == ["Send an email", "Second open", "third"]
    assert parse_blocks("no markers at all") == []
    assert parse_blocks("{BEGIN}   {END}{BEGIN}{END}") == []


def test_single_falls_back_to_the_whole_answer():
    assert parse_single("{BEGIN} first {END} {BEGIN} second {END}") == "first"
    assert parse_single("no markers here") == "no markers here"
    assert parse_single("Description: a tool {END}") == "a tool"
    assert parse_single("   ") is None and parse_single("{BEGIN}{END}") is None


def test_json_in_prose_and_fences():
    text = 'Here you go:\n```json\n{"intents": ["a", "b"], "note": "x {y}"}\n```'
    assert parse_json_object(text, {"intents": list})["intents"] == ["a", "b"]
    # a brace-y preamble before the real object is skipped
    assert parse_json_object('Use {BEGIN} markers. {"tools": ["k1"]} ok', {"tools": list}) == {"tools": ["k1"]}
    assert parse_json_object("{'tools': ['k1'],}", {"tools": list}) == {"tools": ["k1"]}  # relaxed quoting


def test_json_fields_are_named_when_missing_or_wrong():
    with pytest.raises(LLMBadResponse, match="lacks field 'verdict'"):
        parse_json_object('{"intents": []}', {"verdict": str})
    with pytest.raises(LLMBadResponse, match="field 'intents' should be list, not str"):
        parse_json_object('{"intents": "a"}', {"intents": list})
    with pytest.raises(LLMBadResponse, match="field 'n' should be int, not bool"):
        parse_json_object('{"n": true}', {"n": int})
    assert parse_json_object('{"s": 1}', {"s": float}) == {"s": 1.0}
    with pytest.raises(LLMBadResponse, match="no JSON object"):
        parse_json_object("nothing [1, 2]")


def test_bool():
    assert parse_bool("Yes, they do.") is True and parse_bool("No.") is False
    assert parse_bool("**TRUE**") is True and parse_bool("The tools do not cover it") is False
    with pytest.raises(LLMBadResponse):
        parse_bool("maybe")


@pytest.mark.parametrize("text,value", [("Score: 0.8", 0.8), ("7/10", 0.7), ("7 out of 10", 0.7), ("85%", 0.85),
                                        ("12", 1.0), ("-3", 0.0), ("1", 1.0), (".25 overall", 0.25)])
def test_score_unit_range(text, value):
    assert parse_score(text) == pytest.approx(value)


def test_score_other_ranges_and_errors():
    assert parse_score("7", lo=0, hi=10) == 7.0 and parse_score("70", lo=0, hi=10) == 10.0
    with pytest.raises(LLMBadResponse, match="no number"):
        parse_score("excellent")
    with pytest.raises(ValueError, match="lo must be below hi"):
        parse_score("1", lo=1, hi=0)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300),
                 st.text(alphabet="{}[]\"':,BEGINENDbegin 0123456789.%/\n`-", max_size=200)))
def test_fuzz_only_bad_response(text):
    for fn in (parse_blocks, parse_single, parse_bool, parse_score,
               lambda t: parse_json_object(t, {"tools": list, "score": float})):
        try:
            fn(text)
        except LLMBadResponse:
            pass


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="{}`", blacklist_categories=("Cs",)),
                        min_size=1, max_size=40).filter(lambda s: s.strip()), min_size=1, max_size=4))
def test_blocks_round_trip(items):
    text = " ".join(f"{{BEGIN}} {i} {{END}}" for i in items)
    assert all(b.strip() == b and b for b in parse_blocks(text))
    assert len(parse_blocks(text)) <= len(items)
