"""The prompted CONTDA adaptation roles against the local fake chat server."""

from __future__ import annotations

import inspect
import json

import pytest

from core.evolution.prompted import PromptedAdaptationOperators
from core.evolution.roles import (
    KNOWN,
    NOVEL,
    PEER,
    AdaptationOperators,
    ClusterMember,
    Peer,
    Probe,
    ProbeTrace,
)
from core.llm.framework import make_roles
from core.llm.ledger import MemoryLedger
from core.models import Tool
from core.trials.evidence import TrialOutcome
from tests.core.llm.conftest import fake  # noqa: F401 - the fake chat server fixture

TOOL = Tool("weather.forecast", "get_forecast", "Daily weather forecast for a city.",
            {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
             "required": ["city"]})
DOC = "Daily weather forecast for a city.\n\n### Relational notes\n- Status: working."
PEERS = (Peer("weather.alerts", "get_alerts", "Severe weather alerts for a region."),
         Peer("air.quality", "air_quality", "Air quality index for a city."))
EXPLORED = ("What will the weather be in Lisbon tomorrow?", "Forecast for Porto this weekend")


def _trace(track: str, query: str, ok: bool, outcome: str, response=None, error: str = "",
           peer: str = "") -> ProbeTrace:
    return ProbeTrace(Probe(track, query, {"city": "Lisbon"}, peer=peer), True, ok, outcome, {"city": "Lisbon"},
                      response, error)


TRACES = (
    _trace(KNOWN, "Weather in Lisbon for three days?", True, TrialOutcome.FUNCTIONAL_SUCCESS,
           {"days": [{"t": 21, "humidity": 60}]}),
    _trace(PEER, "Any storm warnings in Lisbon?", False, TrialOutcome.PARAMETER_MISMATCH,
           error="invalid_params: region " + "x" * 900,
           peer="weather.alerts"),
)


def _adapt(server, ledger=None) -> PromptedAdaptationOperators:
    ops = make_roles("strategy", "openai", ledger=ledger, base_url=server.url, model="tiny-model", api_key="k",
                     max_retries=0)
    adapt = make_roles("adaptation", "prompted", operators=ops)
    assert isinstance(adapt, PromptedAdaptationOperators)
    return adapt


def _prompt(server, i: int = -1) -> str:
    return server.seen[i]["body"]["messages"][1]["content"]


def test_satisfies_the_protocol(fake):  # noqa: F811
    adapt = _adapt(fake)
    assert adapt.name == "openai" and adapt.model == "tiny-model"
    for name in ("propose_probes", "suggest", "refine_doc", "relational_notes", "select_tools", "choose_fallback"):
        want = inspect.signature(getattr(AdaptationOperators, name))
        got = inspect.signature(getattr(PromptedAdaptationOperators, name))
        assert list(got.parameters) == list(want.parameters), name
        assert [p.kind for p in got.parameters.values()] == [p.kind for p in want.parameters.values()], name


def test_propose_probes_parses_one_probe_per_track(fake):  # noqa: F811
    answer = {"probes": [
        {"track": "novel", "request": "Will it be windy in Faro on Sunday?", "arguments": {"city": "Faro", "wind": 1},
         "rationale": "wind was never mentioned", "peer": ""},
        {"track": "known", "request": "What's the weather in Braga for 2 days?", "arguments": {"city": "Braga",
                                                                                                "days": 2},
         "rationale": "documented use", "peer": "weather.alerts"},
        {"track": "KNOWN", "request": "a second known probe", "arguments": {"city": "Evora"}},
        {"track": "peer", "query": "Are there storm warnings around Lisbon?", "parameters": {"city": "Lisbon"},
         "rationale": "alerts peer", "peer": "get_alerts"},
        {"track": "sideways", "request": "dropped", "arguments": {}},
        {"track": "known", "request": ""},
    ]}
    fake.script = [("ok", f"Here you go:\n```json\n{json.dumps(answer)}\n```\nHope this helps.")]
    call = _adapt(fake).propose_probes(TOOL, DOC, PEERS, EXPLORED, ["check multi-day output"], iteration=1)
    assert call.ok, call.error
    probes = call.value
    assert isinstance(probes, tuple) and all(isinstance(p, Probe) for p in probes)
    assert [p.track for p in probes] == [KNOWN, PEER, NOVEL]
    known, peer, novel = probes
    assert known.query == "What's the weather in Braga for 2 days?" and known.arguments == {"city": "Braga", "days": 2}
    assert known.peer == ""  # a peer only on the peer track
    assert peer.peer == "weather.alerts" and peer.arguments == {"city": "Lisbon"}  # name mapped to key
    assert novel.arguments == {"city": "Faro"} and "dropped unknown arguments: wind" in novel.rationale
    body = fake.seen[-1]["body"]
    assert body["temperature"] == pytest.approx(0.7)
    prompt = _prompt(fake)
    assert "Daily weather forecast for a city." in prompt and "Status: working" not in prompt  # body only
    assert "weather.alerts" in prompt and "Severe weather alerts for a region." in prompt
    assert "air.quality" in prompt
    assert all(q in prompt for q in EXPLORED) and "check multi-day output" in prompt
    assert '"city"' in prompt  # the input schema
    assert "Relational notes" not in body["messages"][0]["content"]


def test_probe_arguments_none_when_absent_or_not_an_object(fake):  # noqa: F811
    fake.script = [("ok", json.dumps({"probes": [
        {"track": "known", "request": "Weather in Lisbon?"},
        {"track": "peer", "request": "Storms near Lisbon?", "arguments": "city=Lisbon", "peer": "nobody"},
        {"track": "novel", "request": "Pollen in Lisbon?", "arguments": {"pollen": True}},
    ]}))]
    call = _adapt(fake).propose_probes(TOOL, DOC, PEERS, (), (), iteration=0)
    assert call.ok, call.error
    assert [p.arguments for p in call.value] == [None, None, None]  # absent, not a dict, nothing usable left
    assert call.value[1].peer == ""  # an unknown peer is not kept
    assert "(none)" in _prompt(fake)  # no explored requests, no suggestions


def test_probe_arguments_kept_when_the_tool_has_no_schema(fake):  # noqa: F811
    bare = Tool("t.bare", "bare")
    fake.script = [("ok", '{"probes": [{"track": "known", "request": "do it", "arguments": {"anything": 1}}]}')]
    call = _adapt(fake).propose_probes(bare, "Does a thing.", (), (), (), iteration=0)
    assert call.ok and call.value[0].arguments == {"anything": 1}


@pytest.mark.parametrize("answer", [
    "no json here at all",
    '{"probes": "known: weather in Lisbon"}',
    '{"probes": [{"track": "sideways", "request": "x"}, {"track": "other", "request": "y"}]}',
    '{"probes": [{"track": "known", "request": "  "}]}',
    '{"queries": []}',
])
def test_unusable_probes_fail_without_raising(fake, answer):  # noqa: F811
    fake.script = [("ok", answer)]
    call = _adapt(fake).propose_probes(TOOL, DOC, PEERS, EXPLORED, (), iteration=0)
    assert not call.ok and call.value is None and call.error and "LLMBadResponse" in call.error


def test_suggest_parses_strings_and_shows_the_traces(fake):  # noqa: F811
    fake.script = [("ok", '{"suggestions": ["Say it returns humidity.", "", 3, "Say it returns humidity.", '
                          '"It does not issue alerts."]}'),
                   ("ok", '{"suggestions": []}')]
    adapt = _adapt(fake)
    call = adapt.suggest(TOOL, DOC, TRACES, PEERS)
    assert call.ok and call.value == ("Say it returns humidity.", "It does not issue alerts.")
    prompt = _prompt(fake)
    assert "Weather in Lisbon for three days?" in prompt and "humidity" in prompt
    assert "Any storm warnings in Lisbon?" in prompt and "invalid_params" in prompt
    assert "x" * 700 not in prompt  # a long error is cut
    assert "Severe weather alerts for a region." in prompt
    assert fake.seen[-1]["body"]["temperature"] == pytest.approx(0.3)
    empty = adapt.suggest(TOOL, DOC, (), PEERS)
    assert empty.ok and empty.value == ()


@pytest.mark.parametrize("answer", ['{"suggestions": "add humidity"}', "just prose", '{"ideas": ["x"]}'])
def test_bad_suggestions_fail_without_raising(fake, answer):  # noqa: F811
    fake.script = [("ok", answer)]
    call = _adapt(fake).suggest(TOOL, DOC, TRACES, PEERS)
    assert not call.ok and call.error


def test_refine_doc_returns_the_body_only(fake):  # noqa: F811
    fake.script = [
        ("ok", '{"description": "Daily forecast for a city, up to 7 days; returns temperature and humidity. '
               'Does not issue alerts.", "next_focus": "try hourly"}'),
        ("ok", 'Sure:\n{"description": "Forecast for a city.\\n\\n### RELATIONAL NOTES\\n- Use `weather.alerts`."}'),
        ("ok", '{"description": "Forecast for a city.\\n**Relational Notes:** prefer X"}'),
    ]
    adapt = _adapt(fake)
    call = adapt.refine_doc(TOOL, DOC, ["Say it returns humidity."], PEERS, TRACES)
    assert call.ok and isinstance(call.value, str)
    assert call.value.startswith("Daily forecast for a city") and "next_focus" not in call.value
    prompt = _prompt(fake)
    assert "Say it returns humidity." in prompt and "Severe weather alerts for a region." in prompt
    assert "Weather in Lisbon for three days?" in prompt
    assert fake.seen[-1]["body"]["temperature"] == pytest.approx(0.3)
    assert adapt.refine_doc(TOOL, DOC, [], PEERS, ()).value == "Forecast for a city."
    assert adapt.refine_doc(TOOL, DOC, [], PEERS, ()).value == "Forecast for a city."


@pytest.mark.parametrize("answer", [
    '{"description": ""}',
    '{"description": "   "}',
    '{"description": "### Relational notes\\n- Use X."}',
    '{"description": ["a", "b"]}',
    "Forecast for a city.",
])
def test_bad_descriptions_fail_without_raising(fake, answer):  # noqa: F811
    fake.script = [("ok", answer)]
    call = _adapt(fake).refine_doc(TOOL, DOC, ["x"], PEERS, TRACES)
    assert not call.ok and call.value is None and call.error


MEMBERS = (
    ClusterMember("weather.forecast", "get_forecast", DOC, {"weather.alerts": 0.71, "air.quality": 0.4},
                  ("weather.alerts",), TRACES),
    ClusterMember("weather.alerts", "get_alerts", "Severe weather alerts for a region.", {"weather.forecast": 0.71},
                  ("weather.forecast",)),
    ClusterMember("air.quality", "air_quality", "Air quality index for a city.", {"weather.forecast": 0.4}),
)


def test_relational_notes_restricted_to_members(fake):  # noqa: F811
    answer = {"notes": {
        "weather.forecast": "### Relational Notes: - Status: partly working.\n- Fallback: `weather.alerts`.",
        "get_alerts": ["Status: not tested", "Fallback: `weather.forecast` for plain forecasts"],
        "air.quality": "",
        "stranger.tool": "should not appear",
    }}
    fake.script = [("ok", f"```\n{json.dumps(answer)}\n```")]
    call = _adapt(fake).relational_notes(MEMBERS)
    assert call.ok, call.error
    assert set(call.value) == {"weather.forecast", "weather.alerts"}
    assert call.value["weather.forecast"] == "- Status: partly working.\n- Fallback: `weather.alerts`."
    assert call.value["weather.alerts"] == "- Status: not tested\n- Fallback: `weather.forecast` for plain forecasts"
    prompt = _prompt(fake)
    for m in MEMBERS:
        assert f"[{m.key}]" in prompt and m.name in prompt
    assert "weather.alerts (0.71)" in prompt
    assert "2 probes: 1 ok, 1 failed (parameter mismatch)" in prompt
    assert "not tested" in prompt
    assert "Status: working" not in prompt  # the members' old notes are not shown
    assert fake.seen[-1]["body"]["temperature"] == pytest.approx(0.2)


def test_relational_notes_tolerate_the_bare_object_and_nothing_to_say(fake):  # noqa: F811
    fake.script = [("ok", '{"weather.alerts": "- Fallback: `weather.forecast`."}'), ("ok", '{"notes": {}}')]
    adapt = _adapt(fake)
    assert adapt.relational_notes(MEMBERS).value == {"weather.alerts": "- Fallback: `weather.forecast`."}
    empty = adapt.relational_notes(MEMBERS)
    assert empty.ok and empty.value == {}


@pytest.mark.parametrize("answer", ['{"notes": ["a", "b"]}', '{"notes": {"nobody": "x"}}', "no notes", '{"x": 1}'])
def test_bad_notes_fail_without_raising(fake, answer):  # noqa: F811
    fake.script = [("ok", answer)]
    call = _adapt(fake).relational_notes(MEMBERS)
    assert not call.ok and call.error


def test_transport_failures_become_failed_calls(fake):  # noqa: F811
    fake.script = [("garbage",), ("status", 500, {}, "boom")]
    adapt = _adapt(fake)
    assert not adapt.suggest(TOOL, DOC, TRACES, PEERS).ok
    failed = adapt.propose_probes(TOOL, DOC, PEERS, EXPLORED, (), iteration=0)
    assert not failed.ok and failed.error


def test_select_tools_shows_whole_documentation_with_notes(fake):  # noqa: F811
    fake.script = [("ok", '{"tools": ["weather.alerts", "made.up"]}')]
    long_doc = "Alerts. " + "Detail. " * 80 + "\n\n### Relational notes\n- Fallback: `weather.forecast` when down."
    call = _adapt(fake).select_tools("storm warnings in Lisbon", [("weather.forecast", "Forecast."),
                                                                  ("weather.alerts", long_doc)])
    assert call.ok and call.value == ["weather.alerts"] and call.role == "select_tools"  # unknown keys dropped
    prompt = fake.seen[-1]["body"]["messages"][-1]["content"]
    assert "Fallback: `weather.forecast` when down." in prompt  # the notes reach the model uncut


def test_choose_fallback_shows_the_failure_and_keeps_to_the_candidates(fake):  # noqa: F811
    fake.script = [("ok", '{"tool": "weather.alerts"}'), ("ok", '{"tool": null}'), ("ok", '{"tool": "made.up"}')]
    adapt = _adapt(fake)
    failed = ("weather.forecast", "Forecast.\n\n### Relational notes\n- Fallback: `weather.alerts` when down.")
    offer = [("weather.alerts", "Alerts."), ("air.quality", "Air quality.")]
    call = adapt.choose_fallback("storm in Lisbon?", failed, "500 Internal Server Error", offer)
    assert call.ok and call.value == "weather.alerts" and call.role == "choose_fallback"
    prompt = _prompt(fake)
    assert "500 Internal Server Error" in prompt and "Fallback: `weather.alerts` when down." in prompt
    assert "[air.quality]" in prompt
    stop = adapt.choose_fallback("storm in Lisbon?", failed, "500", offer)
    assert stop.ok and stop.value is None  # the model may decide to stop
    made_up = adapt.choose_fallback("storm in Lisbon?", failed, "500", offer)
    assert not made_up.ok and "not one of the tools on offer" in made_up.error


def test_every_call_is_recorded_in_the_ledger(fake):  # noqa: F811
    fake.script = [("ok", '{"probes": [{"track": "known", "request": "Weather in Lisbon?"}]}'),
                   ("ok", '{"suggestions": ["a"]}'), ("ok", "not json"), ("ok", '{"notes": {}}')]
    ledger = MemoryLedger()
    adapt = _adapt(fake, ledger)
    calls = [adapt.propose_probes(TOOL, DOC, PEERS, EXPLORED, (), iteration=0),
             adapt.suggest(TOOL, DOC, TRACES, PEERS),
             adapt.refine_doc(TOOL, DOC, ["a"], PEERS, TRACES),
             adapt.relational_notes(MEMBERS)]
    assert [r.role for r in ledger.records] == ["propose_probes", "suggest", "refine_doc", "relational_notes"]
    assert [c.call_id for c in calls] == [r.id for r in ledger.records]
    assert [c.role for c in calls] == [r.role for r in ledger.records]
    bad = ledger.records[2]
    assert bad.error and "JSON" in bad.error and bad.response == "not json"
    assert "Weather in Lisbon?" in ledger.records[0].response
    assert "Daily weather forecast for a city." in ledger.records[0].prompt


def test_factory_rejects_offline_operators_and_unknown_kinds():
    with pytest.raises(ValueError, match="prompted LLM operators"):
        make_roles("adaptation", "prompted", operators=make_roles("strategy", "offline"))
    with pytest.raises(ValueError, match="prompted LLM operators"):
        make_roles("adaptation", "prompted")
    with pytest.raises(ValueError, match="offline, prompted"):
        make_roles("adaptation", "chatty")
