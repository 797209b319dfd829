import json

import pytest

from core.llm.base import ChatReply, LLMTimeout
from core.llm.ledger import MemoryLedger
from core.llm.prompted import PromptedOperators


class Scripted:
    """A ChatBackend answering from a list; an exception in the list is raised instead."""

    name = "scripted"
    model = "m1"

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = []

    def chat(self, messages, *, temperature, max_tokens=None, seed=None):
        self.calls.append({"messages": messages, "temperature": temperature, "seed": seed,
                           "max_tokens": max_tokens})
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return ChatReply(answer, self.model, 10, 3)


def ops(*answers, **kw):
    return PromptedOperators(Scripted(*answers), MemoryLedger(), seed=kw.pop("seed", 7), **kw)


def test_descriptions_come_from_blocks_and_every_call_is_recorded():
    o = ops("Ideas: {BEGIN} Weather lookup for a city {END} {BEGIN} Currency converter {END} {BEGIN} x {END}")
    call = o.pseudo_tools("weather and money", max_tools=2)
    assert call.ok and call.value == ["Weather lookup for a city", "Currency converter"]
    assert call.role == "pseudo_tools" and call.call_id == 1
    rec = o.ledger.records[0]
    assert (rec.role, rec.backend, rec.model, rec.temperature, rec.tokens_in, rec.tokens_out, rec.error) == \
        ("pseudo_tools", "scripted", "m1", 0.7, 10, 3, None)
    messages = json.loads(rec.prompt)
    assert messages[0]["role"] == "system" and "weather and money" in messages[1]["content"]
    assert "{BEGIN}" in messages[1]["content"] and rec.response.startswith("Ideas:")


def test_malformed_answers_become_failed_calls_not_exceptions():
    o = ops("I cannot help with that.", "no json here", '{"tools": "k1"}', "perhaps", "great")
    results = [o.pseudo_tools("q"), o.extract_intents("q"), o.select_tools("q", [("k1", "b")]),
               o.judge_sufficiency("q", ["b"]), o.score_retrieval("q", ["b"])]
    assert [r.ok for r in results] == [False] * 5 and all(r.value is None for r in results)
    assert "no {BEGIN}" in results[0].error and "no JSON object" in results[1].error
    assert "field 'tools' should be list" in results[2].error
    assert [r.call_id for r in results] == [1, 2, 3, 4, 5]
    assert all(r.error for r in o.ledger.records) and o.ledger.records[0].response == "I cannot help with that."


def test_transport_errors_and_unexpected_exceptions_are_recorded():
    o = ops(LLMTimeout("no answer within 1 s"), RuntimeError("driver bug"))
    a, b = o.mutate("d", "a"), o.crossover("x", "y", "a")
    assert not a.ok and a.error == "LLMTimeout: no answer within 1 s"
    assert not b.ok and b.error == "RuntimeError: driver bug"
    assert [r.error for r in o.ledger.records] == [a.error, b.error]


def test_single_description_roles_accept_answers_without_markers():
    o = ops("Description: Converts an amount between currencies.", "{BEGIN} child {END}")
    assert o.refine("a", "b", ["e"], "q").value == "Converts an amount between currencies."
    assert o.scatter("a", ["e"], nonce=3).value == "child"


def test_structured_roles():
    o = ops('```json\n{"intents": ["book a flight", " ", "find a hotel", "book a flight"]}\n```',
            '{"tools": ["send_email", "nope", "send_email"]}', "No, a currency tool is missing.", "0.75",
            "{BEGIN} a {END}{BEGIN} b {END}{BEGIN} c {END}", "{BEGIN} q1 {END}{BEGIN} q2 {END}")
    assert o.extract_intents("x").value == ["book a flight", "find a hotel"]
    assert o.select_tools("x", [("send_email", "b"), ("k2", "c")]).value == ["send_email"]
    assert o.judge_sufficiency("x", []).value is False
    assert o.score_retrieval("x", []).value == 0.75
    assert o.seed_population("a", [], 2).value == ["a", "b"]
    assert o.synthetic_queries("doc", 5).value == ["q1", "q2"]


def test_temperatures_seeds_and_overrides():
    o = ops("{BEGIN} a {END}", "{BEGIN} b {END}", "yes", "{BEGIN} c {END}", temperatures={"mutate": 0.2})
    o.mutate("d", "a", temperature=1.5, nonce=4)
    o.crossover("x", "y", "a", temperature=1.3, nonce=4)
    o.judge_sufficiency("q", [])
    o.scatter("a", [], nonce=5)
    calls = o.backend.calls
    assert [c["temperature"] for c in calls] == [0.2, 1.3, 0.0, 1.5]  # override, argument, verdict default
    assert calls[0]["seed"] == calls[1]["seed"] != calls[3]["seed"]  # the nonce decides the seed
    assert [r.temperature for r in o.ledger.records] == [0.2, 1.3, 0.0, 1.5]
    assert PromptedOperators(Scripted("{BEGIN} a {END}")).mutate("d", "a").ok  # no ledger: fine


def test_constructor_validation_names_the_field():
    with pytest.raises(ValueError, match="unknown role 'mutation'"):
        PromptedOperators(Scripted(), temperatures={"mutation": 1.0})
    with pytest.raises(ValueError, match=r"temperatures\['mutate'\]"):
        PromptedOperators(Scripted(), temperatures={"mutate": 5})
    with pytest.raises(ValueError, match="seed"):
        PromptedOperators(Scripted(), seed="1")
    with pytest.raises(ValueError, match="max_tokens"):
        PromptedOperators(Scripted(), max_tokens=0)


def test_a_failing_ledger_does_not_lose_the_answer():
    class Broken:
        def record(self, record):
            raise OSError("disk full")

        def find(self, h):
            return None

    call = PromptedOperators(Scripted("{BEGIN} a {END}"), Broken()).mutate("d", "a")
    assert call.ok and call.value == "a" and call.call_id is None


def test_variation_prompts_carry_the_request_the_ancestor_and_the_seed_exemplars():
    o = ops("{BEGIN} a {END}", "{BEGIN} b {END}", "{BEGIN} c {END}", "{BEGIN} d {END}")
    query, ancestor, exemplars = "how fast is the car going after 10 s?", "Tool that computes final velocity", [
        "calculate_velocity: final velocity from initial velocity, acceleration and time"]
    o.crossover("one", "two", ancestor, query=query, exemplars=exemplars)
    o.mutate("one", ancestor, query=query, exemplars=exemplars)
    o.guided_mutate("one", ["unit_convert: convert units"], ancestor=ancestor, query=query, exemplars=exemplars)
    for call in o.backend.calls[:3]:
        prompt = call["messages"][1]["content"]
        assert query in prompt and ancestor in prompt and "calculate_velocity: final velocity" in prompt
        assert "serves the user's request" in prompt  # told to keep the request
    o.mutate("one", ancestor)  # without them: the prompt names neither
    assert "User request" not in o.backend.calls[3]["messages"][1]["content"]
