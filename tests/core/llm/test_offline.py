import json

import pytest

from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators, split_intents
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


def test_intent_split_drops_background():
    q = "I'm off to Rome next week — what's the weather there, and convert 200 dollars to euros"
    assert split_intents(q) == ["what's the weather there", "convert 200 dollars to euros"]
    assert split_intents("weather in Oslo") == ["weather in Oslo"]


def test_vocabulary_neighbours_come_from_cooccurrence():
    v = CatalogVocabulary.from_texts(DOCS)
    assert "temperature" in v.neighbours["weather"]
    assert v.idf("weather") < v.idf("email")


def test_deterministic_and_recorded(ops):
    a = ops.mutate("current weather temperature for a city", "x", temperature=1.5, nonce=1)
    b = ops.mutate("current weather temperature for a city", "x", temperature=1.5, nonce=1)
    c = ops.mutate("current weather temperature for a city", "x", temperature=1.5, nonce=2)
    assert a.value == b.value and a.ok and a.call_id == 1
    assert len(ops.ledger.records) == 3 and ops.ledger.records[0].backend == "offline"
    assert json.loads(ops.ledger.records[0].prompt)["nonce"] == 1
    assert isinstance(c.value, str)


def test_temperature_sets_mutation_rate(ops):
    text = "current weather temperature humidity forecast rain city"
    cold = ops.mutate(text, "x", temperature=0.0).value
    assert cold == text  # rate 0: nothing swapped


def test_roles_give_sensible_shapes(ops):
    assert len(ops.pseudo_tools("weather in Oslo and send an email to Ana").value) == 2
    refined = ops.refine("weather", "weather tool", ["get_weather: current weather temperature humidity wind"],
                         "how warm is it in Oslo").value
    assert "temperature" in refined or "humidity" in refined
    assert ops.judge_sufficiency("weather forecast", ["weather_forecast: daily weather forecast"]).value is True
    assert ops.judge_sufficiency("send email", ["weather_forecast: daily weather forecast"]).value is False
    kids = ops.seed_population("current weather for a city", DOCS[:2], 4, temperature=1.5).value
    assert 1 <= len(kids) <= 4 and kids[0] == "current weather for a city"
    qs = ops.synthetic_queries("convert_currency: Convert money. Parameters: amount, from_currency", 5).value
    assert len(qs) == 5 and len(set(qs)) == 5
    picked = ops.select_tools("weather in Oslo and send an email", [("get_weather", DOCS[0]), ("send_email", DOCS[4])])
    assert picked.value == ["get_weather", "send_email"]
    assert 0 <= ops.score_retrieval("weather oslo", DOCS[:2]).value <= 1
