"""Merge review: TCCR/UCC over gold calls with argument values, "not measured" without them, and the parameter
conflicts of a merged tool (ToolScope App. G.3, K.1)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def _weather(key: str, units: list[str]):
    from core.models import Tool

    return Tool(key, key, "Current weather conditions for a city, in the unit asked for.",
                {"type": "object", "required": ["city"], "properties": {
                    "city": {"type": "string"}, "unit": {"type": "string", "enum": units}}})


def _open_merge_review(url: str, catalog: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["catalog"] = catalog
    at.run()
    settle(at.switch_page("pages/merge_review.py").run())
    assert not at.exception, at.exception
    assert at.sidebar.selectbox(key="sel_catalog").value == catalog
    settle(at.button(key="merge_run").click().run())
    assert not at.exception, at.exception
    settle(at.toggle(key="merge_measures").set_value(True).run())
    assert not at.exception, at.exception
    return at


def test_conflicting_merge_scores_below_one_and_shows_the_conflict(db_url):
    from core.models import GoldCall, Query, Tool
    from core.settings import Settings, build_workspace

    # WeatherNow and weather_now: the same name apart from case and separators, so the offline judge merges
    # them; WeatherNow (the shorter name) is kept, and its unit enum (C, F) refuses weather_now's "kelvin".
    tools = [_weather("WeatherNow", ["C", "F"]), _weather("weather_now", ["celsius", "kelvin"]),
             Tool("translate_text", "translate_text", "Translate a text into another language.")]
    queries = [Query("q1", "weather in Oslo in C", ("WeatherNow",), "",
                     (GoldCall("WeatherNow", {"city": ("Oslo",), "unit": ("C",)}),)),
               Query("q2", "weather in Oslo in kelvin", ("weather_now",), "",
                     (GoldCall("weather_now", {"city": ("Oslo",), "unit": ("kelvin",)}),))]
    build_workspace(Settings(db_url=db_url)).import_tools("wx", tools, queries=queries, query_set="wx")

    at = _open_merge_review(db_url, "wx")
    table = at.dataframe[0].value.set_index("measure")
    # q1 still fits the merged WeatherNow; q2's unit "kelvin" is not one of C, F: TCCR 1/2, UCC 1/2
    assert (table.loc["TCCR", "after"], table.loc["UCC", "after"]) == (0.5, 0.5)
    assert table.loc["TCCR", "note"].startswith("over 2 gold calls")
    assert any("kelvin" in m.value for m in at.markdown), "the unserved call is not listed"
    conflicts = [d.value for d in at.dataframe if "member's" in getattr(d.value, "columns", [])]
    assert conflicts and conflicts[0].iloc[0]["parameter"] == "unit"
    assert conflicts[0].iloc[0]["member's"] == 'string, one of "celsius", "kelvin"'


def test_without_gold_calls_tccr_and_ucc_are_not_measured(db_url):
    from core.models import Query, Tool
    from core.settings import Settings, build_workspace

    tools = [_weather("WeatherNow", ["C", "F"]), _weather("weather_now", ["C", "F"]),
             Tool("translate_text", "translate_text", "Translate a text into another language.")]
    build_workspace(Settings(db_url=db_url)).import_tools(
        "wx", tools, queries=[Query("q1", "weather in Oslo", ("weather_now",))], query_set="wx")

    at = _open_merge_review(db_url, "wx")
    table = at.dataframe[0].value.set_index("measure")
    assert table.loc[["TCCR", "UCC"], "after"].isna().all()  # no value, never 1.0
    assert table.loc["TCCR", "note"].startswith("not measured")
