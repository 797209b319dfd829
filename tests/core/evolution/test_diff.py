import pytest

from core.evolution.diff import VersionDiff, diff_sequence, diff_tools
from core.models import Tool

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def tool(key, description, parameters=None, name=None):
    return Tool(key=key, name=name or key, description=description, parameters=parameters or CITY)


WEATHER = tool("weather", "Current weather for a city.")
NEWS = tool("news", "Latest headlines for a city.")
TIME = tool("time", "Local time in a city.")


def test_added_removed_retained():
    d = diff_tools([WEATHER, NEWS], [WEATHER, TIME])
    assert d == VersionDiff(added=("time",), removed=("news",), retained=("weather",), changed=(), renamed=())
    assert d.counts() == {"added": 1, "removed": 1, "retained": 1, "changed": 0, "renamed": 0}


def test_same_tool_under_new_key_is_a_rename():
    moved = tool("weather_v2", WEATHER.description, name="get_weather")
    d = diff_tools([WEATHER, NEWS], [NEWS, moved])
    assert d.renamed == (("weather", "weather_v2"),)
    assert d.added == () and d.removed == ()
    assert d.retained == ("news",)


def test_rewritten_tool_is_retained_and_changed():
    rewritten = tool("weather", "Current weather and a three-day forecast for a city.")
    d = diff_tools([WEATHER, NEWS], [rewritten, NEWS])
    assert d.retained == ("weather", "news")
    assert d.changed == ("weather",)
    assert d.added == () and d.removed == () and d.renamed == ()


def test_near_identical_rename_above_threshold_and_other_tool_below():
    old = tool("forecast", "Return the weather forecast for the given city over the next five days.")
    # 11 distinct lower-cased words each; one swapped (five -> seven): Jaccard 10/12 ~ 0.83
    near = tool("forecast2", "Return the weather forecast for the given city over the next seven days.")
    other = tool("traffic", "Return traffic incidents for the given city.")
    d = diff_tools([old], [other, near])
    assert d.renamed == (("forecast", "forecast2"),)
    assert d.added == ("traffic",)
    assert diff_tools([old], [near], rename_threshold=0.9).renamed == ()
    # same words but a different parameter set is not the same tool
    no_params = tool("forecast3", near.description, parameters={"type": "object", "properties": {}})
    assert diff_tools([old], [no_params]).renamed == ()


def test_exact_match_wins_over_near_match():
    old = tool("a", "Convert an amount of money between two currencies using the latest daily rates today.")
    # 14 distinct words each, today -> now: Jaccard 13/15 ~ 0.87, a valid rename on its own
    near = tool("b", "Convert an amount of money between two currencies using the latest daily rates now.")
    exact = tool("c", old.description)
    assert diff_tools([old], [near]).renamed == (("a", "b"),)
    d = diff_tools([old], [near, exact])
    assert d.renamed == (("a", "c"),)
    assert d.added == ("b",)


def test_undocumented_tools_are_never_paired():
    assert diff_tools([tool("a", "")], [tool("b", "")]).renamed == ()


def test_ordering_follows_each_version():
    prev = [tool(k, f"Tool {k} does {k}.", {"properties": {k: {}}}) for k in "edcba"]
    cur = [tool(k, f"Tool {k} does {k}.", {"properties": {k: {}}}) for k in "zcyax"]
    d = diff_tools(prev, cur)
    assert d.added == ("z", "y", "x")
    assert d.removed == ("e", "d", "b")
    assert d.retained == ("c", "a")


def test_json_round_trip_and_sequence():
    moved = tool("weather_v2", WEATHER.description)
    diffs = diff_sequence([[WEATHER], [WEATHER, NEWS], [NEWS, moved]])
    assert len(diffs) == 2
    assert diffs[0].added == ("news",)
    assert diffs[1].renamed == (("weather", "weather_v2"),)
    for d in diffs:
        assert VersionDiff.from_json(d.to_json()) == d
    assert diff_sequence([[WEATHER]]) == ()


def test_duplicate_keys_are_rejected():
    with pytest.raises(ValueError, match="previous version: duplicate key 'weather'"):
        diff_tools([WEATHER, WEATHER], [NEWS])
    with pytest.raises(ValueError, match="current version: duplicate key 'news'"):
        diff_tools([WEATHER], [NEWS, NEWS])
