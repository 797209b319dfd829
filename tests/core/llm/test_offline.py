import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.concurrency import map_concurrent
from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators, mutation_rate
from core.llm.vocabulary import CatalogVocabulary

DOCS = [
    "get_weather: current weather temperature humidity wind for a city",
    "weather_forecast: daily weather forecast temperature rain for a location",
    "convert_currency: convert an amount of money between currencies at the exchange rate",
    "exchange_rate_history: exchange rate history between two currencies",
    "send_email: send an email message to a recipient",
]


@pytest.fixture
def ops():
    return OfflineOperators(CatalogVocabulary.from_texts(DOCS), seed=3, ledger=MemoryLedger())


def test_pseudo_tools_one_per_intent_from_action_and_object(ops):
    call = ops.pseudo_tools("weather in Oslo and send an email to Ana")
    assert call.ok and call.role == "pseudo_tools"
    assert call.value == ["Tool that provides weather in Oslo. Example request: weather in Oslo.",
                          "Tool that sends an email to Ana. Example request: send an email to Ana."]
    assert ops.pseudo_tools("convert 100 dollars to euros").value[0].startswith("Tool that converts dollars to euros.")
    assert len(ops.pseudo_tools("a and send b, then translate c", max_tools=1).value) == 1


def test_every_call_is_recorded_as_offline_with_json_io(ops):
    call = ops.extract_intents("book a flight and find a hotel")
    rec = ops.ledger.records[-1]
    assert call.call_id == rec.id and (rec.backend, rec.role, rec.error) == ("offline", "extract_intents", None)
    assert json.loads(rec.prompt) == {"query": "book a flight and find a hotel"}
    assert json.loads(rec.response) == call.value == ["book a flight", "find a hotel"]
    assert ops.name == "offline" and "llm" not in ops.model.lower()


def test_deterministic_given_seed_and_inputs_whatever_the_order(ops):
    jobs = [("current weather temperature for a city", n) for n in range(12)]
    serial = [ops.mutate(d, "x", temperature=1.5, nonce=n).value for d, n in jobs]
    shuffled = jobs[:]
    random.Random(1).shuffle(shuffled)
    parallel = map_concurrent(lambda j: (j, ops.mutate(j[0], "x", temperature=1.5, nonce=j[1]).value), shuffled, 6)
    assert dict(o.value for o in parallel) == dict(zip(jobs, serial, strict=True))
    other_seed = OfflineOperators(ops.vocab, seed=4)
    assert [other_seed.mutate(d, "x", temperature=1.5, nonce=n).value for d, n in jobs] != serial


def test_mutation_rate_follows_temperature(ops):
    assert (mutation_rate(0), mutation_rate(1.5), mutation_rate(10)) == (0.0, pytest.approx(0.225), 0.9)
    text = "current weather temperature humidity forecast rain city"
    assert ops.mutate(text, "x", temperature=0.0).value == text  # rate 0: nothing swapped
    hot = ops.mutate(text, "x", temperature=6.0).value
    assert hot != text and len(hot.split()) == len(text.split())  # swaps, never deletions


def test_refine_pulls_exemplar_terms_and_drops_drift(ops):
    refined = ops.refine("weather in Oslo", "weather zorblax in Oslo", [DOCS[0], DOCS[4]], "how warm is it in Oslo",
                         temperature=0.7).value
    assert "zorblax" not in refined  # in neither the request nor any exemplar
    assert "current weather temperature humidity wind" in refined  # phrasing of the closest exemplar
    assert "email" not in refined  # the exemplar that shares nothing with the request adds nothing
    again = ops.refine("weather in Oslo", refined, [DOCS[0]], "how warm is it in Oslo").value
    assert again.count("Related:") == 1 and len(again.split()) <= 60  # turns do not pile up
    assert ops.refine("a", "unchanged", ["send_email: send mail"], "weather").value == "unchanged"


def test_refine_all_judge_and_score(ops):
    out = ops.refine_all(["weather tool", "money tool"], DOCS, "weather in Oslo and convert money").value
    assert len(out) == 2 and "currencies" in out[1]
    assert len(ops.ledger.records) == 1  # one role call, one record
    assert ops.judge_sufficiency("weather forecast", ["weather_forecast: daily weather forecast"]).value is True
    assert ops.judge_sufficiency("send email", ["weather_forecast: daily weather forecast"]).value is False
    assert ops.score_retrieval("weather oslo", DOCS[:2]).value == 0.5  # each blurb covers 1 of 2 terms
    assert ops.score_retrieval("weather", []).value == 0.0


def test_population_roles(ops):
    kids = ops.seed_population("current weather for a city", DOCS[:2], 4, temperature=1.5).value
    assert kids[0] == "current weather for a city" and 2 <= len(kids) <= 4 and len(set(kids)) == len(kids)
    child = ops.scatter("current weather for a city", DOCS[:2], nonce=1).value
    assert child != "current weather for a city" and child.endswith(".")
    assert {ops.scatter("current weather for a city", DOCS[:2], nonce=n).value for n in range(6)} != {child}
    mixed = ops.crossover("get weather for a city", "convert money between currencies", "x", nonce=2).value
    assert ("weather" in mixed) and ("money" in mixed or "currencies" in mixed)


def test_guided_mutation_moves_away_from_weak_tools(ops):
    weak = ["weather_forecast: daily weather forecast temperature rain"]
    child = ops.guided_mutate("daily weather forecast for a city", weak, temperature=1.5).value
    assert child != "daily weather forecast for a city" and "daily" not in child


def test_synthetic_queries_from_name_description_and_schema(ops):
    qs = ops.synthetic_queries("convert_currency: Convert money. Parameters: amount, from_currency", 10).value
    assert len(qs) == 10 and len(set(qs)) == 10
    # every request names the action, through the tool's name or its description
    assert all("convert currency" in q.lower() or "convert money" in q.lower() for q in qs)
    assert any("convert money" in q.lower() for q in qs) and any("convert currency" in q.lower() for q in qs)
    assert any("amount" in q or "from currency" in q for q in qs)
    doc = json.dumps({"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                      "parameters": {"properties": {"unit": {"type": "string", "enum": ["celsius", "kelvin"]}}}}})
    qs = ops.synthetic_queries(doc, 15).value
    assert len(qs) == 15 and any("celsius" in q or "kelvin" in q for q in qs)
    assert all("get_weather" not in q for q in qs)


def test_select_tools_top_one_per_intent(ops):
    cands = [("get_weather", DOCS[0]), ("send_email", DOCS[4]), ("convert_currency", DOCS[2])]
    assert ops.select_tools("weather in Oslo and send an email", cands).value == ["get_weather", "send_email"]
    assert ops.select_tools("xyzzy", cands).value == ["get_weather"]  # nothing matches: the top candidate
    assert ops.select_tools("anything", []).value == []


def test_constructor_validation():
    with pytest.raises(TypeError, match="vocabulary"):
        OfflineOperators(["not", "a", "vocabulary"])
    with pytest.raises(ValueError, match="seed"):
        OfflineOperators(CatalogVocabulary.from_texts([]), seed="0")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120), st.text(max_size=80))
def test_heuristics_never_fail_on_arbitrary_text(text, other):
    ops = OfflineOperators(CatalogVocabulary.from_texts(DOCS + [text]), seed=0)
    results = [ops.pseudo_tools(text), ops.extract_intents(text), ops.refine(other, text, [text, other], text),
               ops.refine_all([text], [other], text), ops.scatter(text, [other]), ops.seed_population(text, [other], 3),
               ops.crossover(text, other, text), ops.mutate(text, other), ops.guided_mutate(text, [other]),
               ops.synthetic_queries(text, 3), ops.select_tools(text, [("k", other)]),
               ops.judge_sufficiency(text, [other]), ops.score_retrieval(text, [other])]
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert 0.0 <= results[-1].value <= 1.0
