import random

import pytest

from core.llm.vocabulary import CatalogVocabulary

DOCS = [
    "get_weather: current weather temperature humidity wind for a city",
    "weather_forecast: daily weather forecast temperature rain for a location",
    "convert_currency: convert an amount of money between currencies at the exchange rate",
    "exchange_rate_history: exchange rate history between two currencies",
    "send_email: send an email message to a recipient",
]


def test_neighbours_come_from_cooccurrence():
    v = CatalogVocabulary.from_texts(DOCS)
    assert v.n_docs == 5 and v.df["weather"] == 2
    assert "temperature" in v.neighbours_of("Weather") and "exchange" in v.neighbours_of("currencies")
    assert "email" not in v.neighbours_of("weather")  # never in the same doc
    assert v.idf("weather") < v.idf("email") < v.idf("unseen")


def test_empty_and_validation():
    v = CatalogVocabulary.from_texts([])
    assert v.n_docs == 0 and v.neighbours_of("x") == () and v.idf("x") == 1.0
    with pytest.raises(ValueError, match="neighbours"):
        CatalogVocabulary.from_texts(DOCS, neighbours=0)


def test_neighbour_lists_stay_bounded_on_a_large_catalog():
    rng = random.Random(0)
    words = [f"term{i}" for i in range(4000)]
    docs = [f"tool_{i}: " + " ".join(rng.choice(words) for _ in range(18)) for i in range(5000)]
    v = CatalogVocabulary.from_texts(docs)
    assert v.n_docs == 5000
    assert max(len(n) for n in v.neighbours.values()) == 8
