import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.llm.base import LLMBadResponse
from core.llm.parsing import parse_blocks, parse_bool, parse_json_object, parse_score, parse_single


def test_blocks_tolerate_noise():
    text = ("Sure! {BEGIN} Description: Get the weather for a city {END}\n{begin}```Convert money\nbetween "
            "currencies```{end} {BEGIN} Get the weather for a city {END} {BEGIN} unfinished block")
    assert parse_blocks(text) == ["Get the weather for a city", "Convert money between currencies", "unfinished block"]
    assert parse_single("no markers here") == "no markers here"
    assert parse_single("   ") is None


def test_json_in_prose_and_fences():
    text = 'Here you go:\n```json\n{"intents": ["a", "b"], "note": "x {y}"}\n```'
    assert parse_json_object(text, {"intents": list})["intents"] == ["a", "b"]
    with pytest.raises(LLMBadResponse, match="lacks field 'verdict'"):
        parse_json_object('{"intents": []}', {"verdict": str})
    with pytest.raises(LLMBadResponse, match="wrong type"):
        parse_json_object('{"intents": "a"}', {"intents": list})
    with pytest.raises(LLMBadResponse, match="no JSON object"):
        parse_json_object("nothing")


def test_bool_and_score():
    assert parse_bool("Yes, they do.") is True and parse_bool("No.") is False
    assert parse_score("Score: 0.8") == 0.8 and parse_score("7/10") == 0.7 and parse_score("12") == 1.0
    with pytest.raises(LLMBadResponse):
        parse_bool("maybe")


@given(st.text(max_size=300))
def test_fuzz_only_bad_response(text):
    for fn in (parse_blocks, parse_single, parse_json_object, parse_bool, parse_score):
        try:
            fn(text)
        except LLMBadResponse:
            pass
