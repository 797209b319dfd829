"""AppTest of the Strategy playground: a run is a background job the page follows, then the richest strategy
opens first with its search map, ranking, votes, fitness and lineage; one generation numbering on every figure;
the gold star drawn on top; legends in words; the vote-ordered ranking shows its votes instead of an
out-of-order score. Runs are stored and reopen; the session memory carries over; Cancel stops a run."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

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


def _detail(at: AppTest):
    return next((w.proto for w in at.get("button_group") if "play_detail" in w.proto.id), None)


def _run(at: AppTest) -> AppTest:
    """Press Run and rerun the page until the run (a background job) and the first catalog map are over."""
    settle(at.button(key="play_run").click().run())
    assert not at.exception, at.exception
    assert at.session_state["play_job"] is None and _detail(at) is not None
    return at


@pytest.fixture
def app(db_url):
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    settle(at.switch_page("pages/playground.py").run())  # the first visit embeds the demo as a background job
    assert not at.exception, at.exception
    return at


def test_a_run_opens_on_the_evolving_strategy_with_one_generation_numbering(app):
    at = app
    assert at.title[0].value == "Strategy playground"
    assert "Start here" in at.caption[0].value  # one line on what the page is for and what to do first
    at.multiselect(key="play_strategies").set_value(["query", "memetic"]).run()
    _run(at)

    # the outcome table is best first
    outcome = next(d.value for d in at.dataframe if "nDCG@5" in d.value.columns)
    assert list(outcome["nDCG@5"]) == sorted(outcome["nDCG@5"], reverse=True)
    # the detail opens on the strategy with a population, whatever its place in the outcome
    detail = next(w.proto for w in at.get("button_group") if "play_detail" in w.proto.id)
    options = [o.content for o in detail.options]
    assert options == list(outcome["strategy"])  # in the outcome's order
    assert [options[i] for i in detail.default] == ["memetic"]
    figures = _figures(at)
    fitness = figures["Fitness per generation beside the truth"]  # the demo query has gold
    truth = next(f for title, f in figures.items() if title.startswith("Fitness against the truth"))
    assert truth["layout"]["xaxis"]["title"]["text"] == "fitness"
    assert truth["layout"]["yaxis"]["title"]["text"] == "nDCG@5 against gold"
    assert {t["name"] for t in truth["data"]} == {"generation 1", "generation 2", "generation 3"}
    assert "mean nDCG@5 against gold (truth)" in [t["name"] for t in fitness["data"]]
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

    # votes on the vertical axis (no colliding tick labels); the ranking table shows the vote behind each place
    assert all(t["orientation"] == "h" for t in votes["data"])
    ranking = next(d.value for d in at.dataframe if "votes" in d.value.columns)
    # memetic sorts the joined votes on the anchored score: shown, and falling from rank to rank
    assert list(ranking.columns) == ["rank", "tool", "ancestor", "votes", "score"]
    assert list(ranking["score"]) == sorted(ranking["score"], reverse=True)
    assert list(ranking["rank"]) == list(range(1, len(ranking) + 1))


def test_playground_runs_strategies(app):
    _run(app)
    frame = app.dataframe[0].value
    assert list(frame["strategy"]) == ["query", "scattershot", "memetic"]
    assert frame["LLM calls"].iloc[2] > 0
    assert len(app.get("plotly_chart")) >= 3  # population animations, votes, fitness


def test_playground_runs_are_stored_and_an_earlier_one_can_be_reopened(app):
    app.multiselect(key="play_strategies").set_value(["query", "scattershot"]).run()
    _run(app)
    app.multiselect(key="play_strategies").set_value(["memetic"]).run()
    _run(app)
    stored = next(s for s in app.selectbox if s.label == "Stored run")
    assert len(stored.options) == 2 and "memetic" in stored.options[0]  # the newest, shown
    assert list(app.dataframe[0].value["strategy"]) == ["memetic"]
    stored.set_value(stored.options[1]).run()  # the first run, read back from the store
    assert not app.exception, app.exception
    assert list(app.dataframe[0].value["strategy"]) == ["query", "scattershot"]


def test_playground_session_memory_carries_over_between_runs(app):
    app.multiselect(key="play_strategies").set_value(["memetic"]).run()
    app.toggle(key="play_memory").set_value(True).run()
    _run(app)
    _run(app)
    readout = next(c.value for c in app.caption if c.value.startswith("Session memory:"))
    before = int(readout.split(": ")[1].split(" entries")[0])
    assert before > 0, readout  # the second run started from what the first one stored
    assert any(c.value.startswith("Memory entries: memetic ") for c in app.caption)
    app.button(key="play_clear_memory").click().run()
    assert any(c.value == "Memory entries: none yet" for c in app.caption)


def test_a_run_under_way_shows_its_progress_and_cancel_stops_it(app):
    app.multiselect(key="play_strategies").set_value(["query"]).run()
    _run(app)  # the catalog map is computed once: the page that says the run was cancelled draws at once
    # Re-Invoke first indexes the whole catalog (tens of seconds offline): the run is still under way at the
    # Cancel click on any machine (the three evolving strategies alone finish one query in about a second)
    app.multiselect(key="play_strategies").set_value(["memetic", "memetic_v2", "scattershot", "reinvoke"]).run()
    app.button(key="play_run").click().run()
    assert not app.exception, app.exception
    assert app.button(key="play_run").disabled  # one run at a time per session
    settle(app.button(key="play_cancel").click().run())
    assert app.session_state["play_job"] is None
    assert any("The playground run was cancelled" in i.value for i in app.info), [i.value for i in app.info]
    stored = next(s for s in app.selectbox if s.label == "Stored run")
    assert stored.options[0].endswith("· stopped")
    assert not app.button(key="play_run").disabled
