"""An answer that does not address the request is not a success (our relevance check, evidence.irrelevance)."""

from core.models import Tool
from core.trials.evidence import TrialOutcome, classify, request_entities

TRANSIT = Tool("public_transit_departures", "public_transit_departures", "Next departures from a stop.",
               {"type": "object", "properties": {"stop_name": {"type": "string", "description": "Stop name."}},
                "required": ["stop_name"]})
WEATHER = Tool("get_weather", "get_weather", "Current weather in a city.",
               {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
COUNT = Tool("count_words", "count_words", "Counts words.",
             {"type": "object", "properties": {"text": {"type": "string", "description": "The text to work on."}},
              "required": ["text"]})
SPLIT = Tool("split_bill", "split_bill", "Split a bill.",
             {"type": "object", "properties": {"amount": {"type": "number"}, "people": {"type": "integer"}},
              "required": ["amount", "people"]})


def test_the_demo_case_a_physics_question_as_a_stop_name_is_not_a_success():
    """Stored from the demo run before the fix: classed FUNCTIONAL_SUCCESS and promoted from #8 to #4."""
    query = ("I'm revising for my maths exam tomorrow. A car starts at 5 m/s and accelerates at 2 m/s² for 10 "
             "seconds, how fast is it going?")
    stop = "A car starts at 5 m/s and accelerates at 2 m/s² for 10 seconds, how fast is it going"
    answer = {"stop": stop, "as_of": "2025-06-02T08:00 local",
              "departures": [{"line": "21", "mode": "tram", "destination": "Old Town", "scheduled": "08:00"}]}
    assert classify(True, answer)[0] == TrialOutcome.FUNCTIONAL_SUCCESS  # without the request, nothing to check against
    outcome, reason = classify(True, answer, query=query, tool=TRANSIT, arguments={"stop_name": stop})
    assert outcome == TrialOutcome.PARAMETER_MISMATCH and "'stop_name' was given a sentence" in reason


def test_a_stop_name_that_is_a_name_passes():
    answer = {"stop": "Schiphol", "departures": [{"line": "397", "destination": "Amsterdam Centraal"}]}
    outcome, _ = classify(True, answer, query="How do I get from Schiphol airport into Amsterdam?", tool=TRANSIT,
                          arguments={"stop_name": "Schiphol"})
    assert outcome == TrialOutcome.FUNCTIONAL_SUCCESS


def test_prose_slots_may_hold_the_request():
    query = "How many words is my essay, roughly, if I paste it here?"
    outcome, _ = classify(True, {"words": 11}, query=query, tool=COUNT, arguments={"text": query})
    assert outcome == TrialOutcome.FUNCTIONAL_SUCCESS


def test_an_answer_about_something_else_is_a_semantic_mismatch():
    # arguments invented by a planner (nothing from the request) and an answer that never names Oslo
    outcome, reason = classify(True, {"city": "London", "temp_c": 12}, query="Is it cold in Oslo today?",
                               tool=WEATHER, arguments={"city": "London"})
    assert outcome == TrialOutcome.SEMANTIC_MISMATCH and "Oslo" in reason
    # the same answer for a request that names London is fine
    assert classify(True, {"city": "London", "temp_c": 12}, query="Is it cold in London today?", tool=WEATHER,
                    arguments={"city": "London"})[0] == TrialOutcome.FUNCTIONAL_SUCCESS
    # an IANA zone or country-derived zone counts as naming the place
    assert classify(True, {"timezone": "Asia/Tokyo", "time": "09:00"}, query="What time is it in Japan?",
                    tool=WEATHER, arguments={"city": "Asia/Tokyo"})[0] == TrialOutcome.FUNCTIONAL_SUCCESS


def test_a_request_naming_nothing_specific_is_not_held_to_entities():
    outcome, _ = classify(True, {"per_person": 30.0}, query="Split the bill of 90 between 3 people", tool=SPLIT,
                          arguments={"amount": 90, "people": 3})
    assert outcome == TrialOutcome.FUNCTIONAL_SUCCESS
    assert request_entities("Split the bill of 90 between 3 people") == []
    assert request_entities("Is Miles Davis on the radio in Tokyo?") == [("Miles Davis",), ("Tokyo", "Asia/Tokyo")]
