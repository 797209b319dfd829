"""One hand-made edit per rule: each fires exactly its rule; an unchanged catalog fires none."""

from __future__ import annotations

import dataclasses

import pytest

from core.check.service import CheckConfig, parse_rules, run_check
from tests.core.check.conftest import BASE, QUERIES, replace, side, tool

CONFIG = CheckConfig(k=1, threshold=0.8, fail_on=parse_rules("all"))


def check(new_tools, hashing_embedder, queries=()):
    return run_check(side("base.json", BASE), side("new.json", new_tools), embedder=hashing_embedder,
                     queries=queries, config=CONFIG)


def test_an_unchanged_catalog_passes(hashing_embedder):
    result = check(BASE, hashing_embedder, QUERIES)
    assert result.fired == () and result.exit_code == 0 and result.verdict == "PASS"
    assert result.retrieval.before == result.retrieval.after
    assert result.retrieval.before["success"] == 1.0  # the queries are solved, so a regression could show


def test_a_duplicate_added_fires_overlap_only(hashing_embedder):
    twin = tool("current_weather", "Current weather conditions such as temperature and wind for one city",
                {"city": ("string", "Name of the town or place to report on")}, ["city"], "Weather")
    result = check((*BASE, twin), hashing_embedder, QUERIES[1:])
    assert result.fired == ("overlap",)
    same = [o for o in result.overlaps if o.same]
    assert [(o.key, o.other, o.nearest_existing) for o in same] == [("current_weather", "get_weather", "get_weather")]
    assert result.changes.diff.added == ("current_weather",)
    assert result.exit_code == 1 and result.failed == ("overlap",)


def test_a_new_required_parameter_fires_breaking_only(hashing_embedder):
    weather = BASE[0]
    params = {**weather.parameters, "properties": {**weather.parameters["properties"],
                                                   "units": {"type": "string", "description": "metric or imperial"}},
              "required": ["city", "units"]}
    result = check(replace(BASE, "get_weather", parameters=params), hashing_embedder)
    assert result.fired == ("breaking",)
    assert [(b.key, b.kind, b.parameter) for b in result.changes.breaking] == [
        ("get_weather", "parameter newly required", "units")]


def test_a_rename_fires_renamed_only(hashing_embedder):
    result = check(replace(BASE, "play_music", key="play_song", name="play_song"), hashing_embedder)
    assert result.fired == ("renamed",)
    assert result.changes.diff.renamed == (("play_music", "play_song"),)
    assert result.changes.diff.removed == () and result.changes.breaking == ()


def test_an_emptied_description_fires_docs_only(hashing_embedder):
    result = check(replace(BASE, "stock_quote", description=""), hashing_embedder)
    assert result.fired == ("docs",)
    (finding,) = result.docs
    assert (finding.key, finding.base_score, finding.score, finding.fires) == ("stock_quote", 5, 3, True)
    assert "no description" in finding.issues


def test_a_query_regressing_fires_regression_only_with_its_cause(hashing_embedder):
    reworded = "Exchange a sum between two monetary units at the market rate of the day"
    result = check(replace(BASE, "convert_currency", description=reworded), hashing_embedder, QUERIES)
    assert result.fired == ("regression",)
    (shift,) = result.retrieval.regressions
    assert shift.query_id == "q-money" and shift.before == ("convert_currency",)
    assert shift.after != ("convert_currency",) and shift.gold_rank_before == (1,)
    (cause,) = shift.causes
    assert cause.kind == "doc changed" and cause.gold == "convert_currency"
    assert result.retrieval.forget == pytest.approx(1 / 3)
    assert result.retrieval.after["recall@1"] == pytest.approx(2 / 3)


def test_a_removed_gold_tool_is_a_breaking_change_and_the_cause_of_its_regression(hashing_embedder):
    result = check(BASE[1:], hashing_embedder, QUERIES)
    assert result.fired == ("breaking", "regression")
    (shift,) = result.retrieval.regressions
    assert [c.kind for c in shift.causes] == ["gold removed"]


def test_the_default_rules_leave_renames_and_docs_out_of_the_verdict(hashing_embedder):
    new = replace(replace(BASE, "play_music", key="play_song", name="play_song"), "stock_quote", description="")
    result = run_check(side("b", BASE), side("n", new), embedder=hashing_embedder,
                       config=dataclasses.replace(CONFIG, fail_on=parse_rules(None)))
    assert result.fired == ("renamed", "docs") and result.failed == () and result.exit_code == 0
    assert result.verdict == "PASS (also found, not failing: renamed, docs)"


def test_rules_are_named_or_refused():
    assert parse_rules("breaking, overlap") == ("breaking", "overlap")
    assert parse_rules("none") == () and "docs" in parse_rules("all")
    with pytest.raises(ValueError, match="unknown --fail-on rule 'speed'; valid rules: breaking, overlap"):
        parse_rules("breaking,speed")
