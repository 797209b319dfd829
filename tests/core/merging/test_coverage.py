"""TCCR / UCC over gold calls with argument values (ToolScope App. K.1; value checking is ours), the merged
signature's conflicts (App. G.3) and TCCR/UCC "not measured" when a query set has no gold calls."""

import pytest

from core.merging.docs import merged_tool, parameter_conflicts
from core.merging.measures import coverage, gold_calls, relabel_queries, serves
from core.merging.pipeline import MergeResult
from core.models import GoldCall, Query, Tool


def weather(key: str, units: list[str], *, days: bool = False) -> Tool:
    props = {"city": {"type": "string"}, "unit": {"type": "string", "enum": units}}
    if days:
        props["days"] = {"type": "integer"}
    return Tool(key=key, name=key, description="Current weather for a city.",
                parameters={"type": "object", "properties": props, "required": ["city"]})


NOW = weather("weather_now", ["C", "F"])  # the representative: the shorter name (ToolScope §3.2)
CURRENT = weather("current_weather", ["celsius", "kelvin"], days=True)
PHI = {"weather_now": "weather_now", "current_weather": "weather_now"}
CALLS = [
    GoldCall("weather_now", {"city": ("Oslo",), "unit": ("C",)}),
    GoldCall("current_weather", {"city": ("Oslo",), "unit": ("kelvin",)}),
    GoldCall("current_weather", {"city": ("Rome",), "days": (3,)}),
    GoldCall("current_weather", {"city": ("Rome",), "days": ("three",)}),  # refused by its own tool already
]


def test_the_merged_signature_lists_the_conflicting_parameter():
    merged = merged_tool(NOW, [CURRENT], "Current weather.")
    # App. G.3: the representative's parameters first (its enum wins), the other's unique one added, optional
    assert list(merged.parameters["properties"]) == ["city", "unit", "days"]
    assert merged.parameters["properties"]["unit"]["enum"] == ["C", "F"] and merged.required == ("city",)
    conflict = {"parameter": "unit", "kept": 'string, one of "C", "F"', "from": "current_weather",
                "theirs": 'string, one of "celsius", "kelvin"'}
    assert parameter_conflicts(NOW, [CURRENT]) == (conflict,)
    assert merged.extra["merge_conflicts"] == [conflict] and merged.extra["merged_from"] == ["current_weather"]
    # same types and enums (in another order): no conflict; a type change is one
    assert parameter_conflicts(NOW, [weather("w2", ["F", "C"])]) == ()
    as_number = Tool("w3", "w3", parameters={"type": "object", "properties": {"city": {"type": "number"}}})
    assert [c["theirs"] for c in parameter_conflicts(NOW, [as_number])] == ["number"]
    assert "merge_conflicts" not in merged_tool(NOW, [weather("w2", ["F", "C"])], "x").extra


def test_a_merge_of_conflicting_tools_scores_below_one_by_hand():
    merged = [merged_tool(NOW, [CURRENT], "Current weather.")]
    cov = coverage(CALLS, merged, PHI, original=[NOW, CURRENT])
    # call 4 ("days": "three") does not fit current_weather itself: left out (unserved_before = 1).
    # Of the other three, through φ to weather_now's merged schema (unit ∈ {C, F}, days optional integer):
    #   1 weather_now  Oslo, C       → served
    #   2 current_w.   Oslo, kelvin  → refused: "kelvin" is not one of C, F
    #   3 current_w.   Rome, days 3  → served (days came along, optional)
    # TCCR 2/3. Capabilities (tool, argument names): (weather_now, city+unit) ✓, (current_weather, city+unit) ✗,
    # (current_weather, city+days) ✓ → UCC 2/3.
    assert (cov.tccr, cov.ucc, cov.calls, cov.capabilities, cov.unserved_before) == (0.6667, 0.6667, 3, 3, 1)
    assert len(cov.failures) == 1 and "'kelvin' is not one of ['C', 'F']" in cov.failures[0]
    # the paper's name-only check cannot see the conflict: every name is in the merged schema
    assert coverage(CALLS, merged, PHI, check="names", original=[NOW, CURRENT]).tccr == 1.0
    # counting every gold call (no original catalog): call 4 is refused too → 2/4
    assert coverage(CALLS, merged, PHI).tccr == 0.5
    # nothing merged: every call that fits its own tool still does
    assert coverage(CALLS, [NOW, CURRENT], {k: k for k in PHI}, original=[NOW, CURRENT]).tccr == 1.0


def test_serves_checks_names_values_and_required_parameters():
    search = Tool("search", "search", parameters={"type": "object", "required": ["q"], "properties": {
        "q": {"type": "string"}, "limit": {"type": "integer"}, "filter": {
            "type": "object", "properties": {"lang": {"type": "string", "enum": ["en", "fr"]}}}}})
    assert serves(search, GoldCall("s", {"q": ("a",), "limit": (5,)})) is None
    assert "no parameter 'lang'" in serves(search, GoldCall("s", {"q": ("a",), "lang": ("fr",)}))
    assert "'q' is a required property" in serves(search, GoldCall("s", {"limit": (5,)}))
    # the first accepted value that fits is used; nested objects are validated too
    assert serves(search, GoldCall("s", {"q": ("a",), "limit": ("five", 5)})) is None
    assert "is not one of" in serves(search, GoldCall("s", {"q": ("a",), "filter": ({"lang": "de"},)}))
    # an optional argument whose values do not fit, or that the tool lacks, is left out
    assert serves(search, GoldCall("s", {"q": ("a",), "limit": ("many",), "x": (1,)}, ("limit", "x"))) is None
    # names only (no values recorded): checked by name, and they count as present for "required"
    assert serves(search, GoldCall("s", {"q": ()})) is None
    with pytest.raises(ValueError, match="valid checks: values, names"):
        serves(search, GoldCall("s", {}), check="types")


def test_no_gold_calls_means_not_measured_never_one():
    cov = coverage([], [NOW])
    assert (cov.tccr, cov.ucc, cov.measured) == (None, None, False)
    only_broken = coverage(CALLS[3:], [NOW, CURRENT], original=[NOW, CURRENT])
    assert (only_broken.tccr, only_broken.unserved_before) == (None, 1)


def test_measure_leaves_tccr_unmeasured_without_gold_calls(hashing_embedder):
    from core.merging.service import measure
    from core.search.engine import SearchEngine

    before = SearchEngine.build([NOW, CURRENT], hashing_embedder)
    merged = [merged_tool(NOW, [CURRENT], "Current weather.")]
    result = MergeResult(config=None, pairs=(), clusters=(), phi=PHI)
    plain = [Query("1", "weather in Oslo", ("current_weather",))]
    m = measure(before, merged, result, plain, k=1, silhouette_ks=())
    assert m.coverage is None and (m.as_dict()["tccr"], m.as_dict()["ucc"]) == (None, None)
    with_calls = [Query("1", "weather in Oslo", ("current_weather",), "", (CALLS[1],)),
                  Query("2", "weather in Rome", ("current_weather",), "", (CALLS[2],))]
    m = measure(before, merged, result, with_calls, k=1, silhouette_ks=())
    assert (m.coverage.tccr, m.as_dict()["tccr"], m.as_dict()["gold_calls"]) == (0.5, 0.5, 2)
    names = measure(before, merged, result, with_calls, k=1, silhouette_ks=(), coverage_check="names")
    assert names.coverage.tccr == 1.0


def test_gold_calls_follow_relabelling_and_must_name_a_gold_tool():
    q = Query("1", "weather", ("current_weather",), "", (CALLS[1],))
    (moved,) = relabel_queries([q], PHI)
    assert moved.gold == ("weather_now",) and moved.gold_calls[0].tool == "weather_now"
    assert gold_calls([q, Query("2", "x", ("weather_now",))]) == [CALLS[1]]
    with pytest.raises(ValueError, match="not a gold tool"):
        Query("3", "x", ("weather_now",), "", (CALLS[1],))
    assert GoldCall.from_json(CALLS[2].to_json()) == CALLS[2] and hash(CALLS[2]) == hash(GoldCall.from_json(
        CALLS[2].to_json()))
