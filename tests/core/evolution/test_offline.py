import random

from core.evolution.docs import compose
from core.evolution.offline import OfflineAdaptationOperators, distinct_terms, sample_value
from core.evolution.roles import KNOWN, NOVEL, PEER, ClusterMember, Peer, Probe, ProbeTrace
from core.llm.ledger import MemoryLedger
from core.models import Tool

WEATHER = Tool("weather", "get_weather", "Current weather for a city.",
               {"type": "object", "properties": {
                   "city": {"type": "string", "description": "City name (e.g. 'Lisbon, PT')."},
                   "units": {"type": "string", "enum": ["metric", "imperial"]}},
                "required": ["city"]})
PEER_DOC = "Hourly precipitation forecast for a location."


def ops():
    return OfflineAdaptationOperators(seed=3)


def test_sample_value_prefers_enum_default_then_example():
    rng = random.Random(0)
    assert sample_value("units", {"type": "string", "enum": ["metric"]}, rng) == "metric"
    assert sample_value("days", {"type": "integer", "default": 7}, rng) == 7
    assert sample_value("city", {"type": "string", "description": "City (e.g. 'Porto')."}, rng) == "Porto"
    assert sample_value("start_date", {"type": "string"}, rng) == "2025-06-10"
    assert sample_value("n", {"type": "integer", "minimum": 2}, rng) == 2
    assert sample_value("tags", {"type": "array", "items": {"type": "boolean"}}, rng) == [True]


def test_probes_cover_three_tracks_with_concrete_arguments():
    call = ops().propose_probes(WEATHER, WEATHER.description, [Peer("rain", "rain_forecast", PEER_DOC)], [], (),
                                iteration=0)
    assert call.ok
    tracks = {p.track: p for p in call.value}
    assert set(tracks) == {KNOWN, PEER, NOVEL}
    assert tracks[KNOWN].arguments == {"city": "Lisbon, PT"}
    assert tracks[PEER].peer == "rain" and "precipitation" in tracks[PEER].query.lower()
    assert "units" in tracks[NOVEL].arguments  # the input the description never mentions
    again = ops().propose_probes(WEATHER, WEATHER.description, [Peer("rain", "rain_forecast", PEER_DOC)], [], (),
                                 iteration=0)
    assert again.value == call.value  # deterministic for a seed


def test_no_peer_probe_without_peers_and_no_novel_when_everything_is_documented():
    tool = Tool("t", "t", "Converts an amount.", {"type": "object", "properties": {"amount": {"type": "number"}},
                                                  "required": ["amount"]})
    call = ops().propose_probes(tool, tool.description, [], [], (), iteration=0)
    assert [p.track for p in call.value] == [KNOWN]


def trace(track, ok=True, response=None, peer="", args=None, executed=True):
    outcome = "FUNCTIONAL_SUCCESS" if ok else ("EXECUTION_FAILURE" if executed else "NOT_EXECUTED")
    return ProbeTrace(Probe(track, f"{track} request — city Lisbon", args, peer=peer), executed, ok, outcome,
                      args or {}, response)


def test_suggestions_read_only_what_traces_show():
    peers = [Peer("rain", "rain_forecast", PEER_DOC)]
    traces = [trace(KNOWN, response={"temp_c": 21, "humidity": 40}),
              trace(PEER, response={"temp_c": 21}, peer="rain"),  # no precipitation words: not confirmed
              trace(NOVEL, response={"temp_c": 70}, args={"city": "Lisbon", "units": "imperial"})]
    got = ops().suggest(WEATHER, WEATHER.description, traces, peers).value
    assert "verified: known request" in got
    assert "peer-unconfirmed: rain" in got
    assert "accepts: units" in got
    assert "returns: temp_c, humidity" in got
    confirmed = ops().suggest(WEATHER, WEATHER.description,
                              [trace(PEER, response={"hourly": [{"precipitation": 0.2}]}, peer="rain")], peers).value
    assert confirmed == ("peer-confirmed: Hourly precipitation forecast for a location", "returns: hourly, precipitation")


def test_failed_and_unexecuted_known_probes():
    got = ops().suggest(WEATHER, WEATHER.description, [trace(KNOWN, ok=False)], []).value
    assert got == ("failing: execution failure",)
    got = ops().suggest(WEATHER, WEATHER.description, [trace(KNOWN, ok=False, executed=False)], []).value
    assert got == ("example: known request",)


def test_refine_adds_findings_once_and_never_unconfirmed_peer_words():
    o = ops()
    suggestions = ("verified: Get weather with wind gusts", "returns: temp_c, humidity", "peer-unconfirmed: rain",
                   "accepts: units", "verified: Get weather for a city")
    body = o.refine_doc(WEATHER, WEATHER.description, suggestions, [], []).value
    assert body.startswith("Current weather for a city.")
    assert "Returns: temp c, humidity." in body and "Also accepts units." in body
    assert "precipitation" not in body and "rain" not in body
    assert "Confirmed by a test call: get weather with wind gusts." in body
    assert "weather for a city." not in body.lower().split("city.", 1)[1]  # a restatement adds nothing
    again = o.refine_doc(WEATHER, body, ("returns: wind", "verified: Get weather with wind gusts"), [], []).value
    assert again.count("Confirmed by a test call") == 1
    assert "Returns: temp c, humidity, wind." in again  # one merged Returns sentence


def test_relational_notes_status_fallback_and_distinction():
    members = [
        ClusterMember("a", "a", "Weather now for a city with humidity.", {"b": 0.8}, ("b",),
                      (trace(KNOWN, ok=False),)),
        ClusterMember("b", "b", "Weather now for a city with wind.", {"a": 0.8}, ("a",), ()),
    ]
    notes = ops().relational_notes(members).value
    assert "Status: failing (0 of 1 test calls succeeded)." in notes["a"]
    assert "Fallback: `b`" in notes["a"] and "Unlike `b`, covers: humidity." in notes["a"]
    assert "Status" not in notes["b"]  # no evidence, no status claim
    assert distinct_terms("Weather now with wind.", "Weather now.") == ["wind"]


def test_selection_reads_notes():
    failing = compose("Weather now for a city.", "- Status: failing (0 of 2 test calls succeeded).\n"
                                                 "- Fallback: `b` when this tool fails or is unavailable.")
    cands = [("a", failing), ("b", "Weather now for a city.")]
    assert ops().select_tools("weather now in Paris", cands).value == ["b"]
    # Without the failing status the first of two equal candidates wins (retrieval order).
    assert ops().select_tools("weather now in Paris", [("a", "Weather now for a city."), cands[1]]).value == ["a"]
    # "covers" words in the notes break a tie toward the tool they distinguish.
    noted = compose("Weather for a city.", "- Unlike `a`, covers: humidity.")
    assert ops().select_tools("weather humidity", [("a", "Weather for a city."), ("b", noted)]).value == ["b"]
    # ... but only against the tool they name, and only among tools tied on shared words.
    other = compose("Weather for a city.", "- Unlike `z`, covers: humidity.")
    assert ops().select_tools("weather humidity", [("a", "Weather for a city."), ("b", other)]).value == ["a"]
    assert ops().select_tools("weather city humidity",
                              [("a", "Weather for a city."), ("b", compose("Weather.", "- Unlike `a`, covers: humidity."))]
                              ).value == ["a"]


def test_calls_are_recorded_in_the_ledger():
    ledger = MemoryLedger()
    o = OfflineAdaptationOperators(ledger=ledger, seed=1)
    call = o.propose_probes(WEATHER, WEATHER.description, [], [], (), iteration=0)
    assert call.call_id is not None
    assert [r.role for r in ledger.records] == ["propose_probes"]


def test_refine_skips_examples_that_repeat_the_body_and_closes_the_sentence():
    tool = Tool("d", "defense_policy", "Retrieve the defense policy of a country", {})
    body = ops().refine_doc(tool, tool.description, ("example: Retrieve the defense policy of a country",
                                                     "example: Compare defense budgets"), [], []).value
    assert body == "Retrieve the defense policy of a country. Example request: Compare defense budgets."


def test_notes_share_one_line_for_peers_differing_in_the_same_words():
    members = [ClusterMember("a", "a", "Recipes by barcode and nutrition.", {"b": 0.6, "c": 0.6}),
               ClusterMember("b", "b", "Recipes.", {"a": 0.6}), ClusterMember("c", "c", "Recipes.", {"a": 0.6})]
    notes = ops().relational_notes(members).value
    assert "Unlike `b`, `c`, covers: barcode, nutrition." in notes["a"]
    picked = ops().select_tools("recipes with nutrition", [("b", "Recipes."), ("a", compose("Recipes.", notes["a"]))])
    assert picked.value == ["a"]  # the grouped line is read for both peers


def test_refused_arguments_are_not_held_against_the_tool_and_field_noise_is_dropped():
    refused = ProbeTrace(Probe(KNOWN, "weather — city Nowhere", {"city": "Nowhere"}), True, False,
                         "PARAMETER_MISMATCH", {"city": "Nowhere"}, None, "invalid_params: unknown city")
    assert ops().suggest(WEATHER, WEATHER.description, [refused], []).value == ()
    noisy = trace(KNOWN, response={"id": 1, "status": "ok", "updated_at": "x", "pressure_hpa": 1012, "wind_kph": 1,
                                   "gust_kph": 2, "visibility_km": 3, "uv_index": 4, "dew_point": 5, "cities": 6})
    got = ops().suggest(WEATHER, WEATHER.description, [noisy], []).value
    # id, status and updated_at say nothing; "cities" is what the description already says (city)
    assert got[-1] == "returns: pressure_hpa, wind_kph, gust_kph, visibility_km, uv_index, dew_point"
    body = ops().refine_doc(WEATHER, WEATHER.description, got, [], []).value
    assert "Returns: pressure hpa, wind kph, gust kph, visibility km, uv index." in body  # five fields at most


def test_fallback_follows_the_notes_and_skips_a_fallback_reported_failing():
    ops = OfflineAdaptationOperators()
    failed = ("fx_old", "Converts money.\n\n### Relational notes\n- Status: failing (0 of 2 test calls succeeded)."
                        "\n- Fallback: `fx_beta`, `fx` when this tool fails or is unavailable.")
    beta = ("fx_beta", "Converts money.\n\n### Relational notes\n- Status: failing (0 of 1 test calls succeeded).")
    good = ("fx", "Converts money between currencies.")
    call = ops.choose_fallback("10 USD in EUR", failed, "500", [beta, good, ("weather", "Weather.")])
    assert call.ok and call.value == "fx"  # fx_beta comes first but its own notes report it failing
    assert ops.choose_fallback("10 USD in EUR", failed, "500", [beta, ("weather", "Weather.")]).value is None
    no_notes = ("fx_old", "Converts money.")
    assert ops.choose_fallback("10 USD in EUR", no_notes, "500", [good]).value is None  # never blind escalation
