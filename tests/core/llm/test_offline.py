import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.concurrency import map_concurrent
from core.llm.heuristics import terms
from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators, mutation_rate, request_terms, split_related
from core.llm.vocabulary import CatalogVocabulary

DOCS = [
    "get_weather: current weather temperature humidity wind for a city",
    "weather_forecast: daily weather forecast temperature rain for a location",
    "convert_currency: convert an amount of money between currencies at the exchange rate",
    "exchange_rate_history: exchange rate history between two currencies",
    "send_email: send an email message to a recipient",
]


CATALOG = DOCS + [
    "calculate_velocity: final velocity of an object from initial velocity acceleration and time",
    "calculate_acceleration: acceleration from a change in velocity over time",
    "free_fall: distance an object falls under gravity in a given time",
    "unit_convert: convert kilometers miles pounds kilograms between units",
]
ANCESTOR = "Tool that provides car velocity acceleration time. Example request: car acceleration over time."
QUERY = "I have an exam tomorrow. A car accelerates for some time, what is its final velocity?"


@pytest.fixture
def ops():
    return OfflineOperators(CatalogVocabulary.from_texts(DOCS), seed=3, ledger=MemoryLedger())


@pytest.fixture
def free():
    """The free rules (``keep_request=False``): words of the request may be swapped, exemplar clauses copied."""
    return OfflineOperators(CatalogVocabulary.from_texts(DOCS), seed=3, ledger=MemoryLedger(), keep_request=False)


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


@pytest.mark.parametrize("keep_request", [True, False])
def test_deterministic_given_seed_and_inputs_whatever_the_order(keep_request):
    ops = OfflineOperators(CatalogVocabulary.from_texts(CATALOG), seed=3, keep_request=keep_request)
    jobs = [("velocity of a car over time", n) for n in range(12)]
    serial = [ops.mutate(d, "x", temperature=1.5, nonce=n).value for d, n in jobs]
    shuffled = jobs[:]
    random.Random(1).shuffle(shuffled)
    parallel = map_concurrent(lambda j: (j, ops.mutate(j[0], "x", temperature=1.5, nonce=j[1]).value), shuffled, 6)
    assert dict(o.value for o in parallel) == dict(zip(jobs, serial, strict=True))
    other_seed = OfflineOperators(ops.vocab, seed=4, keep_request=keep_request)
    assert [other_seed.mutate(d, "x", temperature=1.5, nonce=n).value for d, n in jobs] != serial


def test_mutation_rate_follows_temperature(free):
    assert (mutation_rate(0), mutation_rate(1.5), mutation_rate(10)) == (0.0, pytest.approx(0.225), 0.9)
    text = "current weather temperature humidity forecast rain city"
    assert free.mutate(text, "x", temperature=0.0).value == text  # rate 0: nothing swapped
    hot = free.mutate(text, "x", temperature=6.0).value
    assert hot != text and len(hot.split()) == len(text.split())  # swaps, never deletions


def test_refine_pulls_exemplar_terms_and_drops_drift(free):
    ops = free
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
    assert len(out) == 2 and "currenc" in out[1] and "currenc" not in out[0] and "temperature" in out[0]
    assert len(ops.ledger.records) == 1  # one role call, one record
    assert ops.judge_sufficiency("weather forecast", ["weather_forecast: daily weather forecast"]).value is True
    assert ops.judge_sufficiency("send email", ["weather_forecast: daily weather forecast"]).value is False
    assert ops.score_retrieval("weather oslo", DOCS[:2]).value == 0.5  # each blurb covers 1 of 2 terms
    assert ops.score_retrieval("weather", []).value == 0.0


def test_population_roles(free):
    ops = free
    kids = ops.seed_population("current weather for a city", DOCS[:2], 4, temperature=1.5).value
    assert kids[0] == "current weather for a city" and 2 <= len(kids) <= 4 and len(set(kids)) == len(kids)
    child = ops.scatter("current weather for a city", DOCS[:2], nonce=1).value
    assert child != "current weather for a city" and child.endswith(".")
    assert {ops.scatter("current weather for a city", DOCS[:2], nonce=n).value for n in range(6)} != {child}
    mixed = ops.crossover("get weather for a city", "convert money between currencies", "x", nonce=2).value
    assert ("weather" in mixed) and ("money" in mixed or "currencies" in mixed)


def test_guided_mutation_moves_away_from_weak_tools(free):
    weak = ["weather_forecast: daily weather forecast temperature rain"]
    child = free.guided_mutate("daily weather forecast for a city", weak, temperature=1.5).value
    assert child != "daily weather forecast for a city" and "daily" not in child


# -- keeping the request (the default) -------------------------------------------------------------------------



@pytest.fixture
def keep():
    return OfflineOperators(CatalogVocabulary.from_texts(CATALOG), seed=5, ledger=MemoryLedger())


def test_request_terms_are_the_ancestors_words_the_query_uses():
    assert request_terms(ANCESTOR, QUERY) == {"car", "time", "velocity"}  # no "exam", no "provides"
    assert request_terms(ANCESTOR) >= {"car", "velocity", "acceleration", "provides"}  # no query: all but frame
    assert "tool" not in request_terms(ANCESTOR) and "example" not in request_terms(ANCESTOR)
    assert request_terms("weather in Oslo", "send an email") == {"weather", "oslo"}  # nothing shared: the ancestor's


def test_kept_request_operators_never_drop_request_words(keep):
    words = request_terms(ANCESTOR, QUERY)
    exemplars = CATALOG[5:]
    children = []
    for n in range(25):
        children += [
            keep.mutate(ANCESTOR, ANCESTOR, query=QUERY, exemplars=exemplars, temperature=3.0, nonce=n).value,
            keep.crossover(ANCESTOR + " Related: miles.", "Velocity of a car; free fall.", ANCESTOR, query=QUERY,
                           exemplars=exemplars, temperature=1.5, nonce=n).value,
            keep.guided_mutate(ANCESTOR + " Related: kilometers, gravity.", [CATALOG[-1]], ancestor=ANCESTOR,
                               query=QUERY, temperature=1.5, nonce=n).value,
            keep.scatter(ANCESTOR, exemplars, nonce=n).value,
            *keep.seed_population(ANCESTOR, exemplars, 6, temperature=1.5).value,
        ]
    for child in children:
        assert words <= set(terms(child)), child
        core, _ = split_related(child)
        assert core == split_related(ANCESTOR)[0] or words <= set(terms(core))  # catalog words only as additions
    assert len(set(children)) > 10  # still a varied population


def test_kept_request_mutation_varies_only_the_additions(keep):
    free = OfflineOperators(keep.vocab, seed=5, keep_request=False)
    child = keep.mutate(ANCESTOR, ANCESTOR, query=QUERY, temperature=1.5, nonce=1).value
    core, extra = split_related(child)
    assert core == split_related(ANCESTOR)[0] and extra  # the text kept, catalog words added after it
    assert set(extra) <= set(keep.vocab.df)  # every addition is a catalog word
    swapped = [free.mutate(ANCESTOR, ANCESTOR, temperature=6.0, nonce=n).value for n in range(10)]
    assert any(not request_terms(ANCESTOR, QUERY) <= set(terms(c)) for c in swapped)  # the free rule drifts


def test_kept_request_guided_mutation_drops_additions_of_weak_tools(keep):
    child = keep.guided_mutate(ANCESTOR + " Related: kilometers, gravity.", [CATALOG[-1]], ancestor=ANCESTOR,
                               query=QUERY, temperature=1.5).value
    _, extra = split_related(child)
    assert "kilometers" not in extra and not set(extra) & set(terms(CATALOG[-1]))


def test_kept_request_seeds_add_terms_only_from_exemplars_that_share_request_words(keep):
    seeds = keep.seed_population(ANCESTOR, [CATALOG[4], CATALOG[5]], 3, temperature=0.0).value
    assert seeds[0] == ANCESTOR
    added = {t for s in seeds[1:] for t in split_related(s)[1]}
    assert not added & set(terms(CATALOG[4])) - set(terms(ANCESTOR))  # send_email shares no request word
    assert "final" in added or "initial" in added  # calculate_velocity shares "velocity"


def test_kept_request_refine_adds_terms_not_clauses(keep, free):
    exemplars = [CATALOG[5], CATALOG[6]]
    kept = keep.refine(ANCESTOR, ANCESTOR, exemplars, QUERY).value
    assert split_related(kept)[0] == split_related(ANCESTOR)[0] and split_related(kept)[1]
    assert "final velocity of an object" not in kept.lower()
    assert "final velocity of an object" in free.refine(ANCESTOR, ANCESTOR, exemplars, QUERY).value.lower()


def test_query_and_exemplars_reach_the_ledger_and_the_draw(keep):
    a = keep.mutate(ANCESTOR, ANCESTOR, nonce=1).value
    b = keep.mutate(ANCESTOR, ANCESTOR, query=QUERY, exemplars=CATALOG[5:6], nonce=1)
    assert json.loads(keep.ledger.records[-1].prompt)["query"] == QUERY
    assert json.loads(keep.ledger.records[-1].prompt)["exemplars"] == CATALOG[5:6]
    assert keep.model != OfflineOperators(keep.vocab, keep_request=False).model  # the ledger tells them apart
    assert isinstance(a, str) and b.ok
    with pytest.raises(ValueError, match="keep_request"):
        OfflineOperators(keep.vocab, keep_request="yes")


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
    ops = OfflineOperators(CatalogVocabulary.from_texts(DOCS + [text]), seed=0, keep_request=len(text) % 2 == 0)
    results = [ops.mutate(text, other, query=other, exemplars=[text]), ops.crossover(other, text, other, query=text),
               ops.guided_mutate(text, [other], ancestor=other, query=text),ops.pseudo_tools(text), ops.extract_intents(text), ops.refine(other, text, [text, other], text),
               ops.refine_all([text], [other], text), ops.scatter(text, [other]), ops.seed_population(text, [other], 3),
               ops.crossover(text, other, text), ops.mutate(text, other), ops.guided_mutate(text, [other]),
               ops.synthetic_queries(text, 3), ops.select_tools(text, [("k", other)]),
               ops.judge_sufficiency(text, [other]), ops.score_retrieval(text, [other])]
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert 0.0 <= results[-1].value <= 1.0
