"""The offline judge keeps apart tools that act on different resources: endpoints of one API, head nouns of
the names, identifiers of different things; and a merge never drops a parameter a member needs.

The OpenAPI fixture (tests/assets/openapi_tmdb_excerpt.json) is hand-written in the shape of a public film
database: parallel movie and TV endpoints, and one legacy alias that genuinely duplicates a search."""

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.importers.detect import load_catalog_file
from core.merging.calibration import recommended_threshold
from core.merging.features import _stem, different_heads, endpoint, evidence, head_noun
from core.merging.integrity import parameter_losses
from core.merging.judge import PairJudgement
from core.merging.offline_judge import OfflineJudge, pair_verdict
from core.merging.pipeline import MergeConfig, run_merge
from core.models import Tool

FIXTURE = Path(__file__).resolve().parents[2] / "assets" / "openapi_tmdb_excerpt.json"
ALIAS = ("get_3_search_movie", "get_3_movie_search")


def tool(name, desc, props=(), required=(), category=""):
    return Tool(key=name, name=name, description=desc, category=category,
                parameters={"type": "object", "properties": {p: {"type": "string"} for p in props},
                            "required": list(required)})


@pytest.fixture(scope="module")
def films():
    return load_catalog_file(FIXTURE)


def movie_tv_pairs(tools):
    side = {t.key: endpoint(t).words[0] for t in tools}
    return [(a.key, b.key) for a, b in itertools.combinations(tools, 2) if {side[a.key], side[b.key]} == {"movie", "tv"}]


def merged_pairs(result):
    return {frozenset(p) for c in result.clusters for g in c.groups for p in itertools.combinations(g, 2)}


def test_the_fixture_imports_through_the_openapi_importer_with_endpoints(films):
    assert len(films) == 8
    popular = next(t for t in films if t.key == "get_3_movie_popular")
    assert (popular.extra["method"], popular.extra["path"]) == ("GET", "/3/movie/popular")
    assert "region" in popular.parameter_names
    ep = endpoint(popular)
    assert ep.words == ("movie", "popular") and ep.label == "GET /3/movie/popular"


def test_every_pair_a_candidate_only_the_alias_merges(films):
    # identical vectors: every pair is a candidate at any θ, so only the judge decides
    vectors = np.ones((len(films), 4), dtype=np.float32)
    result = run_merge(films, vectors, OfflineJudge(), MergeConfig(threshold=0.5))
    assert len(result.pairs) == 28
    assert merged_pairs(result) == {frozenset(ALIAS)}
    verdicts = {frozenset((p.a, p.b)): p for p in result.pairs}
    popular = verdicts[frozenset(("get_3_movie_popular", "get_3_tv_popular"))]
    assert not popular.same and popular.reason == ("different endpoints of one API: GET /3/movie/popular and "
                                                   "GET /3/tv/popular (movie vs tv)")
    # the alias's merged tool keeps every parameter, and its description reads as one sentence and a note
    kept = result.merged_tools[result.phi[ALIAS[0]]]
    assert set(kept.parameter_names) == {"query", "language", "page", "year"}
    assert kept.description.count(". ") == 1 and kept.description.endswith("which did the same job.")


def test_without_endpoints_the_names_and_identifiers_still_keep_movie_and_tv_apart(films):
    bare = [replace(t, extra={}) for t in films]  # e.g. the catalog exported as plain OpenAI tools
    by = {t.key: t for t in bare}
    for a, b in movie_tv_pairs(films):
        verdict = pair_verdict(evidence(by[a], by[b]))
        assert not verdict.same, (a, b, verdict.reason)
    images = pair_verdict(evidence(by["get_3_movie_movie_id_images"], by["get_3_tv_series_id_images"]))
    assert images.reason == "act on different things: one needs 'movie_id', the other 'series_id'"
    assert pair_verdict(evidence(by[ALIAS[0]], by[ALIAS[1]])).same


def test_a_merge_forced_by_a_careless_judge_still_drops_no_parameter(films):
    class YesJudge(OfflineJudge):  # says "same" to everything, as a careless model might
        def classify_pair(self, a, b, cosine):
            return self._call("classify_pair", {"a": a.key, "b": b.key}, lambda _rng: PairJudgement(True, "looks alike"))

    vectors = np.ones((len(films), 4), dtype=np.float32)
    result = run_merge(films, vectors, YesJudge(), MergeConfig(threshold=0.5, autocorrect=False))
    (cluster,) = result.clusters
    assert len(cluster.groups) > 1 and cluster.kept_apart
    assert any("'region' of get_3_movie_popular" in note or "region" in note for note in cluster.kept_apart)
    by = {t.key: t for t in films}
    for kept, tool_ in result.merged_tools.items():
        members = [by[k] for k, v in result.phi.items() if v == kept and k != kept]
        assert parameter_losses(by[kept], members) == ()
        for m in members:
            assert set(m.parameter_names) <= set(tool_.parameter_names)
    # switched off (the paper's behaviour), the careless judge's one big group stands
    loose = run_merge(films, vectors, YesJudge(), MergeConfig(threshold=0.5, autocorrect=False,
                                                              keep_parameters=False))
    assert loose.clusters[0].groups == (tuple(t.key for t in films),) and not loose.clusters[0].kept_apart


@pytest.mark.slow
def test_movie_tv_pairs_stay_apart_with_minilm_at_the_recommended_theta(films, minilm):
    from core.search.engine import SearchEngine

    engine = SearchEngine.build(films, minilm)
    theta = recommended_threshold(minilm.model_id).threshold
    result = run_merge(engine.tools, engine.vectors, OfflineJudge(), MergeConfig(threshold=theta))
    candidates = {frozenset((p.a, p.b)) for p in result.pairs}
    # MiniLM finds the movie/tv look-alikes close (popular 0.86, top rated 0.88, images 0.82): candidates...
    assert {frozenset(p) for p in movie_tv_pairs(films) if "popular" in p[0] or "images" in p[0]} & candidates
    # ... which the judge keeps apart; the alias merges
    assert not merged_pairs(result) & {frozenset(p) for p in movie_tv_pairs(films)}
    assert merged_pairs(result) == {frozenset(ALIAS)}


def test_head_nouns_and_kinds():
    # roots: "movie" and "movies" are one head
    assert head_noun(tool("get_3_movie_popular", "")) == head_noun(tool("popular_movies", "")) == _stem("movie")
    assert head_noun(tool("bmi_calculator", "")) == "bmi"
    assert head_noun(tool("get_current_user_playlists", "")) == _stem("playlist")
    user = tool("get_user", "A user's public profile.", ["id"], ["id"])
    playlist = tool("get_playlist", "A playlist a user made, with its tracks.", ["id"], ["id"])
    assert different_heads(user, playlist) == ("user", "playlist")
    assert not pair_verdict(evidence(user, playlist)).same
    # two names for one subject: initials, or one word ending the other
    bmi = tool("calculate_bmi", "Body mass index from weight and height.", ["weight", "height"], ["weight", "height"])
    body = tool("compute_body_mass_index", "BMI for a weight and a height.", ["kg", "cm"], ["kg", "cm"])
    assert different_heads(bmi, body) is None and pair_verdict(evidence(bmi, body)).same
    mail = tool("sendMail", "Send a message to an address.", ["to", "body"], ["to", "body"])
    email = tool("send_email", "Send an email.", ["recipient", "text"], ["recipient", "text"])
    assert different_heads(mail, email) is None
    # one head noun, two kinds of it
    marine = tool("get_marine_forecast", "Waves, swell and wind for a coastal spot.", ["spot"], ["spot"], "Weather")
    wind = tool("get_wind_forecast", "Wind speed and gusts for sailing.", ["location"], ["location"], "Weather")
    verdict = pair_verdict(evidence(marine, wind))
    assert not verdict.same and verdict.reason == "different kinds of one thing: marine vs wind"
    # ... but a word naming the tool's own category is a namespace, not a kind
    prime = tool("prime_factorization", "Breaks an integer into its prime factors.", ["n"], ["n"], "Math")
    math = tool("math_factorize", "Factorize an integer into primes.", ["n"], ["n"], "Math")
    assert pair_verdict(evidence(prime, math)).same


def test_short_subject_words_count_and_play_is_an_action():
    tv = tool("tv_listings", "What is on tonight.", ["channel"], ["channel"])
    radio = tool("radio_listings", "What is on tonight.", ["channel"], ["channel"])
    assert evidence(tv, radio).different_objects  # "tv" is a subject word, not noise
    play = tool("play_music", "Plays a song on a speaker.", ["query"], ["query"])
    search = tool("search_songs", "Finds songs by title or artist.", ["query"], ["query"])
    assert "play" in pair_verdict(evidence(play, search)).reason


def test_endpoints_of_one_api_by_method_and_across_apis():
    def op(name, method, path, server="https://a.example"):
        return replace(tool(name, "Things.", ["id"], ["id"]), extra={"method": method, "path": path,
                                                                     "server": server})
    get, delete = op("get_thing", "GET", "/things/{id}"), op("remove_thing", "DELETE", "/things/{id}")
    assert evidence(get, delete).endpoints == "GET /things/{id} reads and DELETE /things/{id} deletes"
    # plural and singular name one resource; versions are ignored
    assert evidence(op("a", "GET", "/v1/things/{id}"), op("b", "GET", "/v2/thing/{id}")).endpoints is None
    # two APIs with their own path conventions: the endpoint rule is silent
    assert evidence(op("a", "GET", "/weather"), op("b", "GET", "/current.json", "https://b.example")).endpoints is None
