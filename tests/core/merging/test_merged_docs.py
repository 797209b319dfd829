"""Merged descriptions written for a reader, and merged schemas that keep every member's parameters."""

import re

import pytest

from core.llm.framework import make_roles
from core.merging.docs import first_sentence, merged_description, merged_tool, purpose_sentence
from core.merging.integrity import MergeIntegrityError, check_parameters, parameter_losses
from core.models import Tool


def t(name, desc, props=(), required=(), **extra):
    return Tool(key=name, name=name, description=desc,
                parameters={"type": "object", "properties": {p: {"type": "string"} for p in props},
                            "required": list(required)}, extra=extra)


GCD = t("gcd", "Greatest common divisor of two integers. Uses Euclid's algorithm.")
MATH_GCD = t("math_gcd", "Computes the greatest common divisor of two whole numbers. Fast.")
GCD2 = t("gcd2", "GCD.")


def test_first_sentence_folds_whitespace_and_drops_the_full_stop():
    assert first_sentence("  Turns a  street address\ninto coordinates. Uses OSM.") == "Turns a street address into coordinates"
    assert first_sentence("e.g. this one") == "e.g. this one"
    assert first_sentence("") == ""


def test_merged_description_is_one_sentence_of_purpose_and_a_short_note():
    text = merged_description(GCD, [MATH_GCD, GCD2])
    assert text == ("Greatest common divisor of two integers. "
                    "It replaces math_gcd and gcd2, which did the same job.")
    # exactly two sentences, nothing quoted from the others, none of the old wording
    assert len(re.findall(r"[.!?](?:\s|$)", text)) == 2
    assert "Also described as" not in text and "Euclid" not in text and "Fast" not in text
    assert merged_description(GCD, [MATH_GCD], note=False) == "Greatest common divisor of two integers."
    assert merged_description(GCD, []) == GCD.description  # a tool merged with nothing keeps its text


def test_the_purpose_sentence_is_the_wording_the_members_share():
    terse = t("fx", "Money.")  # the representative's own text says little
    a = t("convert_currency", "Converts an amount of money from one currency to another at today's rate.")
    b = t("currency_converter", "Currency conversion: an amount of money into another currency.")
    assert purpose_sentence([terse, a, b]) == "Converts an amount of money from one currency to another at today's rate."
    # a question is no description, when there is another sentence to use
    parcel = t("parcel.track", "Where is my parcel? Status history for a tracking number.")
    track = t("track_package", "tracks a parcel by carrier and tracking number")
    assert purpose_sentence([parcel, track]) == "Tracks a parcel by carrier and tracking number."
    # no description at all: the name, readable
    assert purpose_sentence([t("get_weather", "")]) == "Get weather."


def test_a_long_list_of_replaced_tools_is_shortened():
    others = [t(f"dup_{i}", "Greatest common divisor.") for i in range(5)]
    assert merged_description(GCD, others).endswith("It replaces dup_0, dup_1, dup_2 and 2 more, which did the "
                                                    "same job.")


def test_offline_judge_writes_the_reader_description():
    doc = make_roles("merge", "offline").merged_doc(GCD, [MATH_GCD]).value
    assert doc == "Greatest common divisor of two integers. It replaces math_gcd, which did the same job."


MOVIE_POPULAR = t("movie_popular", "Movies ordered by popularity.", ["language", "page", "region"], [],
                  method="GET", path="/3/movie/popular", server="https://api.example.org",
                  parameter_in={"language": "query", "page": "query", "region": "query"})
TV_POPULAR = t("tv_popular", "TV series ordered by popularity.", ["language", "page"], [],
               method="GET", path="/3/tv/popular", server="https://api.example.org",
               parameter_in={"language": "query", "page": "query"})


def test_a_merge_that_would_drop_a_parameter_is_refused():
    losses = parameter_losses(TV_POPULAR, [MOVIE_POPULAR])
    assert losses == ("'region' of movie_popular (GET /3/movie/popular): GET /3/tv/popular does not take it",)
    with pytest.raises(MergeIntegrityError, match="cluster c001: merging into tv_popular drops 'region'"):
        check_parameters("c001", TV_POPULAR, [MOVIE_POPULAR])
    # the same endpoint listed twice (an alias with one more optional parameter) loses nothing: the merged
    # tool carries the parameter, and the HTTP executor learns where it goes
    alias = t("popular_movies", "Alias of the popular movies list.", ["language", "page", "region", "year"], [],
              method="GET", path="/3/movie/popular", server="https://api.example.org",
              parameter_in={"language": "query", "page": "query", "region": "query", "year": "query"})
    assert parameter_losses(MOVIE_POPULAR, [alias]) == ()
    merged = merged_tool(MOVIE_POPULAR, [alias], "x")
    assert merged.extra["parameter_in"]["year"] == "query"
    assert set(merged.parameter_names) == {"language", "page", "region", "year"}
    # tools without endpoints: every parameter of every member is in the merged schema
    assert parameter_losses(GCD, [t("math_gcd", "", ["a", "b"], ["a", "b"])]) == ()
