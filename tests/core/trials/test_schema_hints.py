"""Hand-made cases, one per schema hint the offline planner reads: enum, const, format, pattern, examples,
default, minimum/maximum and the parameter's description (IANA zones, ISO dates and times, currency and
language codes, units), and the rule that a name, code or number slot never gets a free sentence."""

from datetime import date

import pytest

from core.models import Tool
from core.trials.shapes import examples, looks_like_sentence, slot_shape
from core.trials.slots import plan_arguments, tail_phrase
from core.trials.vocab import iana_zone, zones_in

TODAY = date(2026, 11, 23)  # a Monday


def _plan(query, props, required=None, name="tool", description=""):
    tool = Tool(name, name, description, {"type": "object", "properties": props,
                                          "required": list(props) if required is None else required})
    return plan_arguments(query, tool, today=TODAY)


# ---------------------------------------------------------------- enum and const


def test_enum_match_is_named_and_recorded():
    plan = _plan("Is it hot in Oslo? answer in celsius", {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}})
    assert plan.arguments == {"units": "celsius"} and plan.sources["units"] == "enum match 'celsius'"
    plan = _plan("How hot is it?", {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}})
    assert plan.missing == ("units",) and plan.sources["units"] == "no allowed value named"


def test_single_option_enum_and_const_need_no_words():
    plan = _plan("anything", {"mode": {"type": "string", "enum": ["json"]}, "v": {"const": 2}})
    assert plan.arguments == {"mode": "json", "v": 2}
    assert plan.sources == {"mode": "only allowed value", "v": "fixed by the schema"}


# ---------------------------------------------------------------- format


def test_format_date_date_time_and_time():
    props = {"day": {"type": "string", "format": "date"}, "at": {"type": "string", "format": "date-time"}}
    plan = _plan("Book it for 12 March at 4:30pm", props)
    assert plan.arguments == {"day": "2026-03-12", "at": "2026-03-12T16:30:00"}
    assert plan.sources == {"day": "date in request", "at": "date and time in request"}
    plan = _plan("Wake me at 7:05 pm", {"clock": {"type": "string", "format": "time"}})
    assert plan.arguments == {"clock": "19:05"} and plan.sources["clock"] == "time in request"
    plan = _plan("Remind me at 9am", {"at": {"type": "string", "format": "date-time"}})
    assert plan.arguments == {"at": "2026-11-23T09:00:00"} and plan.sources["at"] == "time in request, today"
    plan = _plan("Remind me tomorrow", {"at": {"type": "string", "format": "date-time"}})
    assert plan.missing == ("at",) and plan.sources["at"] == "no time of day in request"


def test_format_email_and_uri_take_only_what_is_written():
    props = {"to": {"type": "string", "format": "email"}, "link": {"type": "string", "format": "uri"}}
    plan = _plan("Send https://example.org/report.pdf to ana.silva@example.com please", props)
    assert plan.arguments == {"to": "ana.silva@example.com", "link": "https://example.org/report.pdf"}
    assert plan.sources == {"to": "e-mail in request", "link": "URL in request"}
    plan = _plan("Send the report to my boss", props)
    assert set(plan.missing) == {"to", "link"} and plan.arguments == {}


# ---------------------------------------------------------------- pattern, examples, default, bounds


def test_pattern_picks_the_piece_of_the_request_that_matches():
    props = {"flight": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2,4}$", "description": "Flight."}}
    plan = _plan("Is flight TP1234 to Lisbon on time?", props)
    assert plan.arguments == {"flight": "TP1234"} and plan.sources["flight"].startswith("matches pattern")
    plan = _plan("Is my flight to Lisbon on time?", props)
    assert plan.missing == ("flight",)


def test_examples_give_the_shape_when_name_and_description_do_not():
    spec = {"type": "string", "examples": ["Europe/Paris", "Asia/Tokyo"]}
    assert slot_shape("where", spec) == "timezone"
    assert _plan("What time is it in Lisbon?", {"where": spec}).arguments == {"where": "Europe/Lisbon"}
    assert examples({"description": "IANA name (e.g., 'America/New_York', 'Europe/London')."}) == \
        ["America/New_York", "Europe/London"]
    assert slot_shape("c", {"type": "string", "examples": ["EUR", "USD"]}) == "currency"


def test_default_fills_a_required_slot_the_request_is_silent_on():
    plan = _plan("Show the news", {"count": {"type": "integer", "default": 5}})
    assert plan.arguments == {"count": 5} and plan.sources["count"] == "schema default"


def test_minimum_and_maximum_skip_numbers_out_of_range():
    spec = {"type": "integer", "minimum": 1, "maximum": 20}
    plan = _plan("In 2026, roll 3 dice for 500 points", {"dice": spec})
    assert plan.arguments == {"dice": 3} and plan.sources["dice"] == "number in request"
    plan = _plan("Roll 500 dice", {"dice": spec})
    assert plan.missing == ("dice",) and plan.sources["dice"] == "no number in range 1–20"


# ---------------------------------------------------------------- the description: zones, codes, units


@pytest.mark.parametrize("words, zone, how", [
    ("Tokyo", "Asia/Tokyo", "city"), ("Berlin", "Europe/Berlin", "city"), ("New York", "America/New_York", "city"),
    ("Europe/Berlin", "Europe/Berlin", "zone"), ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires",
                                                "zone"),
    ("Japan", "Asia/Tokyo", "country"), ("Germany", "Europe/Berlin", "country"), ("São Paulo", "America/Sao_Paulo",
                                                                                  "city"),
])
def test_iana_zone_from_city_country_or_name(words, zone, how):
    assert iana_zone(words) == (zone, how)


def test_countries_with_several_zones_and_unknown_places_have_none():
    assert iana_zone("United States") is None and iana_zone("Australia") is None and iana_zone("Atlantis") is None


def test_iana_zone_slots_from_the_description():
    spec = {"type": "string", "description": "IANA timezone name (e.g., 'America/New_York')."}
    assert _plan("What time is it in Tokyo right now?", {"timezone": spec}).arguments == {"timezone": "Asia/Tokyo"}
    plan = _plan("Time in Europe/Berlin please", {"timezone": spec})
    assert plan.arguments == {"timezone": "Europe/Berlin"} and plan.sources["timezone"] == "IANA zone named in request"
    plan = _plan("What time is it in Japan?", {"timezone": spec})
    assert plan.arguments == {"timezone": "Asia/Tokyo"} and plan.sources["timezone"] == "main zone of Japan"
    plan = _plan("What time is it in the United States?", {"timezone": spec})
    assert plan.missing == ("timezone",) and "several time zones" in plan.sources["timezone"]
    # the city, never the sentence or a cut name
    assert _plan("What time is it in Atlantis?", {"timezone": spec}).missing == ("timezone",)


def test_conversion_reads_source_time_and_target():
    props = {"source_timezone": {"type": "string", "description": "Source IANA timezone name"},
             "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
             "target_timezone": {"type": "string", "description": "Target IANA timezone name"}}
    plan = _plan("Convert 4:30pm in Berlin to New York time", props)
    assert plan.arguments == {"source_timezone": "Europe/Berlin", "time": "16:30", "target_timezone": "America/New_York"}
    assert plan.sources["target_timezone"] == "IANA zone for 'New York'"
    assert zones_in("Time in the UK vs Japan")[0][1:] == ("Europe/London", "UK", "in")


def test_the_local_zone_a_description_names_is_used_only_when_no_place_is_named():
    spec = {"type": "string", "description": "IANA timezone name. Use 'Europe/Lisbon' as local timezone if no "
                                             "timezone provided by the user."}
    plan = _plan("What time is it?", {"timezone": spec})
    assert plan.arguments == {"timezone": "Europe/Lisbon"} and plan.sources["timezone"] == \
        "local zone the description names"
    assert _plan("What time is it in Atlantis?", {"timezone": spec}).missing == ("timezone",)


def test_currency_codes_iso_4217():
    props = {"from_currency": {"type": "string", "description": "ISO 4217 code of the currency to convert from"},
             "to_currency": {"type": "string", "description": "ISO 4217 code of the currency to convert to"},
             "amount": {"type": "number"}}
    plan = _plan("How many zloty is 50 euros? I mean PLN", props)
    assert plan.arguments["from_currency"] == "EUR" and plan.arguments["to_currency"] == "PLN"
    assert plan.arguments["amount"] == 50


def test_language_code_or_name_as_the_description_asks():
    code = {"type": "string", "description": "Target language as an ISO 639-1 code"}
    named = {"type": "string", "description": "Language to translate into."}
    plan = _plan("Translate 'good morning' into Japanese", {"target_language": code})
    assert plan.arguments == {"target_language": "ja"} and plan.sources["target_language"] == "ISO 639-1 code of Japanese"
    assert _plan("Translate 'good morning' into Japanese", {"language": named}).arguments == {"language": "Japanese"}
    assert _plan("Translate this for me", {"language": named}).missing == ("language",)


def test_country_name_or_code():
    assert _plan("Public holidays in Portugal", {"country": {"type": "string"}}).arguments == {"country": "Portugal"}
    plan = _plan("Public holidays in Portugal", {"country_code": {"type": "string", "description": "ISO 3166 alpha-2"}})
    assert plan.arguments == {"country_code": "PT"}


def test_units_follow_the_number_they_qualify():
    props = {"value": {"type": "number"}, "from_unit": {"type": "string"}, "to_unit": {"type": "string"}}
    plan = _plan("How many kilometres is 26.2 miles?", props)
    assert plan.arguments == {"value": 26.2, "from_unit": "miles", "to_unit": "kilometres"}
    assert plan.sources["from_unit"] == "unit named in request"


# ---------------------------------------------------------------- never a sentence where a name is asked


def test_a_name_slot_never_gets_the_request_sentence():
    """The demo bug: a physics question was passed whole as a transit stop's name."""
    query = "I'm revising for my maths exam tomorrow. A car starts at 5 m/s and accelerates at 2 m/s² for 10 seconds, " \
            "how fast is it going?"
    plan = _plan(query, {"stop_name": {"type": "string", "description": "Stop name."}})
    assert plan.missing == ("stop_name",) and plan.arguments == {}
    plan = _plan(query, {"dish": {"type": "string", "description": "Dish."}})
    assert plan.missing == ("dish",)
    # a formula slot takes a formula, not the question
    assert _plan("How do I get to the station?", {"expression": {"type": "string"}}).missing == ("expression",)


def test_name_slots_take_a_short_phrase_and_prose_slots_take_the_request():
    assert _plan("What wine goes with mushroom risotto?", {"dish": {"type": "string"}}).arguments == \
        {"dish": "mushroom risotto"}
    assert _plan("How many calories are in 150 grams of salmon?", {"food": {"type": "string"}}).arguments == \
        {"food": "salmon"}
    assert _plan("Next departures from Schiphol airport into Amsterdam", {"stop_name": {"type": "string"}}).arguments \
        == {"stop_name": "Schiphol"}
    plan = _plan("Any news about the electric car market this week?", {"query": {"type": "string"}})
    assert plan.arguments == {"query": "Any news about the electric car market this week"}
    assert plan.sources["query"] == "request text"


def test_sentence_rule_and_tail_phrase_by_hand():
    assert looks_like_sentence("A car starts at 5 m/s and accelerates at 2 m/s²")
    assert looks_like_sentence("how fast is it going?") and looks_like_sentence("could you find me one")
    assert not looks_like_sentence("mushroom risotto") and not looks_like_sentence("Europe/Berlin")
    assert tail_phrase("calories are in 150 grams of salmon") == "salmon"
    assert tail_phrase("A car starts at 5 m/s for 10 seconds, how fast is it going") is None
