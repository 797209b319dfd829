"""An answer that does not serve the request is not a success: the rule in classify (a sentence in a name slot)
and the offline relevance judge (core.trials.relevance: entities, then overlap of needs and answer)."""

from datetime import date

from core.llm.framework import make_roles
from core.llm.ledger import MemoryLedger
from core.models import Tool
from core.trials.evidence import TrialOutcome, classify
from core.trials.relevance import added_text, judge_answer, needs, request_entities

TRANSIT = Tool("public_transit_departures", "public_transit_departures", "Next departures from a stop.",
               {"type": "object", "properties": {"stop_name": {"type": "string", "description": "Stop name."}},
                "required": ["stop_name"]})
COUNT = Tool("count_words", "count_words", "Counts words.",
             {"type": "object", "properties": {"text": {"type": "string", "description": "The text to work on."}},
              "required": ["text"]})


def test_the_demo_case_a_physics_question_as_a_stop_name_is_not_a_success():
    """Stored from the demo run before the fix: classed FUNCTIONAL_SUCCESS and promoted from #8 to #4."""
    stop = "A car starts at 5 m/s and accelerates at 2 m/s² for 10 seconds, how fast is it going"
    answer = {"stop": stop, "as_of": "2025-06-02T08:00 local",
              "departures": [{"line": "21", "mode": "tram", "destination": "Old Town", "scheduled": "08:00"}]}
    assert classify(True, answer)[0] == TrialOutcome.FUNCTIONAL_SUCCESS  # without the tool, nothing to check against
    outcome, reason = classify(True, answer, tool=TRANSIT, arguments={"stop_name": stop})
    assert outcome == TrialOutcome.PARAMETER_MISMATCH and "'stop_name' was given a sentence" in reason
    # prose slots may hold the request
    query = "How many words is my essay, roughly, if I paste it here?"
    assert classify(True, {"words": 11}, tool=COUNT, arguments={"text": query})[0] == TrialOutcome.FUNCTIONAL_SUCCESS


def test_an_answer_about_another_place_fails_the_entity_rule():
    # arguments invented by a planner (nothing from the request) and an answer that never names Oslo
    verdict = judge_answer("Is it cold in Oslo today?", {"city": "London"}, {"city": "London", "temp_c": 12})
    assert not verdict.relevant and "Oslo" in verdict.reason
    assert judge_answer("Is it cold in London today?", {"city": "London"}, {"city": "London", "temp_c": 12}).relevant
    # an IANA zone derived from a country counts as naming the place
    assert judge_answer("What time is it in Japan?", {"city": "Asia/Tokyo"},
                        {"timezone": "Asia/Tokyo", "time": "09:00"}).relevant
    assert request_entities("Split the bill of 90 between 3 people") == []
    assert request_entities("Is Miles Davis on the radio in Tokyo?") == [("Miles Davis",), ("Tokyo", "Asia/Tokyo")]


def test_needs_are_content_word_stems_asked_quantities_units_and_request_values():
    # "fast" asks for a speed; "m/s" is a unit written in the request; "accelerates" is kept as "accel"
    got = needs("A car starts at 5 m/s and accelerates for 10 seconds, how fast is it going?", {"time": 10})
    assert {"accel", "secon", "fast", "speed", "veloc", "m/s"} <= got
    assert "going" not in got  # a weak word
    # a value the planner took from the request adds its words; one it made up adds nothing
    assert {"mushr", "risot"} <= needs("Wine for a mushroom risotto?", {"dish": "mushroom risotto"})
    assert needs("What wine goes with it?", {"dish": "mushroom risotto"}) == {"wine", "goes"}


def test_echoed_numbers_do_not_count_but_named_things_do():
    assert added_text({"timer_id": "t-1", "minutes": 3.0, "status": "running"}, {"minutes": 3}) == \
        ["timer_id", "t-1", "minutes", "status", "running"]
    assert added_text({"city": "Lisbon", "temp": 24}, {"city": "Lisbon"}) == ["city", "Lisbon", "temp", "24"]


def test_hand_worked_overlap_verdicts():
    # a timer answering a falling-stone question: it shares only the echoed 3, so it is off-topic
    stone = "How far does a stone fall in 3 seconds?"
    timer = judge_answer(stone, {"minutes": 3.0}, {"timer_id": "timer-1", "minutes": 3.0, "label": "timer",
                                                   "status": "running"})
    assert not timer.relevant and "nothing" in timer.reason
    # the free-fall tool says "distance", which "far" asks for
    fall = judge_answer(stone, {"time": 3.0}, {"distance": 44.145, "unit": "m"})
    assert fall.relevant and fall.shared == ("dista",)
    # a weather answer for the city the request names serves it through the name, echoed or not
    assert judge_answer("What's the weather like in Lisbon right now?", {"city": "Lisbon"},
                        {"city": "Lisbon", "temperature": 24.0, "conditions": "sunny"}).relevant
    # a BMI from an age and a weight is about nothing the request asks (calories, rest, woman, ...)
    bmi = judge_answer("How many calories do I burn a day at rest, I'm a 35 year old woman, 65 kg, 170 cm?",
                       {"weight_kg": 35.0, "height_cm": 65.0}, {"bmi": 82.8, "category": "obese"})
    assert not bmi.relevant
    # an answer that only repeats the numbers it was given shows nothing
    assert not judge_answer("Add 2 and 3", {"a": 2, "b": 3}, [2, 3]).relevant


def test_the_offline_judge_is_a_trials_role_recorded_in_the_ledger():
    ledger = MemoryLedger()
    ops = make_roles("trials", "offline", ledger=ledger)
    call = ops.judge_answer("How far does a stone fall in 3 seconds?", COUNT, {"minutes": 3}, {"minutes": 3})
    assert call.ok and call.value.relevant is False
    assert [r.role for r in ledger.records] == ["judge_answer"]
    assert ops.plan_call("x", COUNT, today=date(2026, 1, 1)).ok


def test_a_unit_symbol_answers_a_unit_name():
    verdict = judge_answer("convert 26.2 miles to kilometres", {"value": 26.2}, {"km": 42.165})
    assert verdict.relevant and verdict.shared == ("km",)
