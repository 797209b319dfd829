import numpy as np
import pytest

from core.search.engine import SearchEngine
from storage.cache import SqlVectorCache


@pytest.fixture
def engine(tiny_tools, hashing_embedder):
    return SearchEngine.build(tiny_tools, hashing_embedder)


def test_modes_find_the_obvious_tool(engine):
    for mode in ("dense", "bm25", "hybrid", "rrf"):
        res = engine.search("currency convert amount", 3, mode=mode, alpha=0.5)
        assert res.keys[0] == "convert_currency", mode
        assert len(res.hits) == 3 and [h.rank for h in res.hits] == [1, 2, 3]


def test_hybrid_alpha_extremes_match_pure_modes(engine):
    q = "weather forecast for a location"
    dense = engine.search(q, 6, mode="dense").keys
    bm25 = engine.search(q, 6, mode="bm25").keys
    assert engine.search(q, 6, mode="hybrid", alpha=1.0).keys[:2] == dense[:2]
    assert engine.search(q, 2, mode="hybrid", alpha=0.0).keys == bm25[:2]


def test_hybrid_scores_are_eq4_of_minmaxed_components(engine):
    res = engine.search("send an email", 6, mode="hybrid", alpha=0.3)
    dense = np.array([h.dense for h in res.hits])
    sparse = np.array([h.sparse for h in res.hits])
    # all 6 tools are returned, so the min/max here are the per-query min/max
    d = (dense - dense.min()) / (dense.max() - dense.min())
    s = (sparse - sparse.min()) / (sparse.max() - sparse.min())
    np.testing.assert_allclose([h.score for h in res.hits], 0.3 * d + 0.7 * s, rtol=1e-5, atol=1e-6)


def test_batch_equals_single(engine):
    qs = ["weather in Paris", "translate this text", "stock price"]
    batch = engine.search_batch(qs, 3, mode="hybrid", alpha=0.5)
    assert [b.keys for b in batch] == [engine.search(q, 3, mode="hybrid", alpha=0.5).keys for q in qs]


def test_bad_arguments(engine):
    with pytest.raises(ValueError, match="valid modes: dense, bm25, hybrid, rrf"):
        engine.search("x", 3, mode="semantic")
    with pytest.raises(ValueError, match="k must be at least 1"):
        engine.search("x", 0)
    with pytest.raises(ValueError, match="no reranker"):
        engine.search("x", 3, rerank=True)


def test_bm25_query_with_unknown_words_returns_zero_scores(engine):
    res = engine.search("zzzz qqqq", 2, mode="bm25")
    assert [h.score for h in res.hits] == [0.0, 0.0]


def test_reranker_hook_reorders_top_m(tiny_tools, hashing_embedder):
    class LengthReranker:
        model_id = "by-length"

        def score(self, query, texts):
            return np.array([-len(t) for t in texts], dtype=np.float32)

    engine = SearchEngine.build(tiny_tools, hashing_embedder, reranker=LengthReranker())
    res = engine.search("weather", 3, rerank=True)
    shortest = sorted(engine.texts, key=len)[0]
    assert engine.texts[engine.key_to_index[res.keys[0]]] == shortest and res.reranked


@pytest.mark.pg
def test_build_goes_through_cache(db, tiny_tools, hashing_embedder):
    cache = SqlVectorCache(db)
    SearchEngine.build(tiny_tools, hashing_embedder, cache=cache)
    SearchEngine.build(tiny_tools, hashing_embedder, cache=cache)
    assert hashing_embedder.encoded == len(tiny_tools)



def test_typed_in_searches_stay_out_of_the_store(db, tiny_tools, hashing_embedder):
    cache = SqlVectorCache(db)
    engine = SearchEngine.build(tiny_tools, hashing_embedder, cache=cache)
    stored = cache.count()
    one_off = engine.search("weather in Oslo", 3, persist=False)
    assert cache.count() == stored
    assert engine.search("weather in Oslo", 3).hits == one_off.hits  # same answer either way
    assert cache.count() == stored + 1


@pytest.mark.slow
def test_dense_search_with_minilm(tiny_tools, minilm):
    engine = SearchEngine.build(tiny_tools, minilm)
    assert engine.search("Will it rain in Oslo tomorrow?", 2).keys[0] in {"weather_forecast", "get_weather"}
    assert engine.search("How much is 50 GBP in yen", 1).keys == ("convert_currency",)


def test_top_matches_a_full_stable_sort():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from core.search.engine import _top

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.integers(0, 5), min_size=1, max_size=40), st.integers(1, 45))
    def check(values, k):
        scores = np.array(values, dtype=np.float32)
        expected = sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]
        assert list(_top(scores, k)) == expected

    check()
