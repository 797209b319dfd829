"""AppTest of the Strategy playground: after a run, the richest strategy opens first with its search map,
ranking, votes, fitness and lineage; one generation numbering on every figure; the gold star drawn on top;
legends in words; the vote-ordered ranking shows its votes instead of an out-of-order score."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def _figures(at: AppTest) -> dict[str, dict]:
    """Every plotly figure on the page by its title (or its first trace's name when untitled)."""
    out = {}
    for chart in at.get("plotly_chart"):
        fig = json.loads(chart.proto.spec)
        title = (fig["layout"].get("title") or {}).get("text") or fig["data"][0].get("name", "")
        out.setdefault(title, fig)
    return out


def test_a_run_opens_on_the_evolving_strategy_with_one_generation_numbering(db_url):
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("pages/playground.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Strategy playground"
    assert "Start here" in at.caption[0].value  # one line on what the page is for and what to do first
    at.multiselect(key="play_strategies").set_value(["query", "memetic"]).run()
    at.button(key="play_run").click().run()
    assert not at.exception, at.exception

    # the outcome table is best first
    outcome = next(d.value for d in at.dataframe if "nDCG@5" in d.value.columns)
    assert list(outcome["nDCG@5"]) == sorted(outcome["nDCG@5"], reverse=True)
    # the detail opens on the strategy with a population, whatever its place in the outcome
    detail = next(w.proto for w in at.get("button_group") if "play_detail" in w.proto.id)
    options = [o.content for o in detail.options]
    assert options == list(outcome["strategy"])  # in the outcome's order
    assert [options[i] for i in detail.default] == ["memetic"]
    figures = _figures(at)
    fitness = figures["Fitness per generation"]
    lineage = figures["Lineage: parents → children, by operator"]
    votes = figures["Votes per tool (★ gold)"]
    search = next(f for f in figures.values() if f["data"][0].get("name") == "catalog tool")

    # one numbering: the slider's generations are the fitness chart's, and the lineage's columns after "ancestors"
    slider = [step["label"] for step in search["layout"]["sliders"][0]["steps"]]
    fitness_x = sorted({x for trace in fitness["data"] for x in trace["x"]})
    assert slider == [str(g) for g in fitness_x] == ["1", "2", "3"]
    assert search["layout"]["sliders"][0]["currentvalue"]["prefix"] == "generation "
    ticks = lineage["layout"]["xaxis"]["ticktext"]
    assert ticks[:2] == ["ancestors", "generation 1 (seeds)"] and ticks[-1] == "generation 3"

    # the gold star is the last trace drawn, so no population marker covers it, and larger than them
    assert search["data"][-1]["name"] == "gold tool" and search["data"][-1]["marker"]["symbol"] == "star"
    pop = next(t for t in search["data"] if t["name"] == "description")
    assert search["data"][-1]["marker"]["size"] > max(pop["marker"]["size"])

    # legends in words: no raw fitness field names or trace ids
    legend = [t.get("name", "") for f in (fitness, lineage, votes, search) for t in f["data"]]
    assert "mean retrieval score" in " ".join(legend)
    assert not [n for n in legend if "s_ret" in n or "mean f" == n or "best f" == n]
    hover = " ".join(str(t.get("hovertext", "")) + str(t.get("text", "")) for t in lineage["data"])
    assert "ancestor 1 · generation 2 · member" in hover

    # votes on the vertical axis (no colliding tick labels) and the ranking table shows the vote, not a score
    assert all(t["orientation"] == "h" for t in votes["data"])
    ranking = next(d.value for d in at.dataframe if "votes" in d.value.columns)
    assert list(ranking.columns) == ["rank", "tool", "ancestor", "votes", "mean rank"]
    assert list(ranking["rank"]) == list(range(1, len(ranking) + 1))
