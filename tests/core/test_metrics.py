import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.metrics import (
    comprehensiveness_at_k,
    csr,
    csr_at_k,
    gold_count_stand_in,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    score_query,
    top_k,
)


def test_ndcg_hand_worked():
    # ranked [a, x, b], gold {a, b}, k = 3: DCG = 1/log2(2) + 1/log2(4) = 1.5
    # IDCG = 1 + 1/log2(3) = 1.6309 -> 0.9197
    assert ndcg_at_k(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["x", "a"], {"a"}, 1) == 0.0
    assert ndcg_at_k(["a"], set(), 5) == 0.0


def test_precision_recall_comprehensiveness():
    ranked = ["a", "x", "b", "y", "c"]
    gold = {"a", "b", "c", "d"}
    assert precision_at_k(ranked, gold, 5) == pytest.approx(3 / 5)
    assert precision_at_k(["a"], gold, 5) == pytest.approx(1 / 5)  # divided by k, not by list length
    assert recall_at_k(ranked, gold, 3) == pytest.approx(2 / 4)
    assert comprehensiveness_at_k(ranked, gold, 5) == 0.0
    assert comprehensiveness_at_k(ranked, {"a", "b"}, 3) == 1.0


def test_duplicates_count_once():
    # after de-duplication [a, a, b] is [a, b]: the top 2 hold both gold tools
    assert recall_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0
    assert precision_at_k(["a", "a", "a"], {"a"}, 3) == pytest.approx(1 / 3)


def test_mrr_and_csr():
    assert reciprocal_rank(["x", "y", "a"], {"a"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x"], {"a"}) == 0.0
    assert csr({"a", "b"}, ["b", "a"]) == 1.0 and csr({"a"}, {"a", "b"}) == 0.0
    assert csr_at_k(["a", "c", "b"], {"a", "b"}, 5, selector=lambda top: {"a", "b"}) == 1.0


def test_csr_with_a_selector_hand_checked():
    # top 3 of [a, c, b, d] is [a, c, b]; gold {a, b}
    ranked, gold = ["a", "c", "b", "d"], {"a", "b"}
    shown = []

    def exact(top):
        shown.append(list(top))
        return [t for t in top if t in gold]

    assert csr_at_k(ranked, gold, 3, selector=exact) == 1.0  # picks exactly the gold set
    assert shown == [["a", "c", "b"]]  # the selector sees the top k only, duplicates removed
    assert csr_at_k(ranked, gold, 3, selector=lambda top: list(top)) == 0.0  # a superset: {a, c, b} != {a, b}
    assert csr_at_k(ranked, gold, 3, selector=lambda top: []) == 0.0  # picks nothing
    assert csr_at_k(ranked, gold, 3, selector=lambda top: ["a"]) == 0.0  # a subset is a miss too
    assert csr([], set()) == 0.0  # no gold set: nothing to get right


def test_gold_count_stand_in_is_only_a_fallback():
    # the stand-in takes as many tools as the gold set has, in retrieval order
    assert gold_count_stand_in(["a", "b", "c"], {"a", "b"}) == ["a", "b"]
    assert csr_at_k(["a", "b", "c"], {"a", "b"}, 5) == 1.0
    assert csr_at_k(["a", "c", "b"], {"a", "b"}, 5) == 0.0
    assert top_k(["a", "a", "b", "c"], 2) == ["a", "b"]


def test_score_query_says_where_csr_came_from():
    ranked, gold = ["a", "b", "c"], {"a", "b"}
    assert score_query("q", ranked, gold, 3, selected=["b", "a"]).csr == 1.0
    picked_one = score_query("q", ranked, gold, 3, selected=["a"])
    assert picked_one.csr == 0.0 and picked_one.csr_source == "selection"
    # the same ranking under the stand-in scores 1: the first |gold| = 2 keys are the gold set
    fallback = score_query("q", ranked, gold, 3)
    assert fallback.csr == 1.0 and fallback.csr_source == "stand-in"
    assert score_query("q", ranked, gold, 3, selector=lambda top: []).csr_source == "selector"
    with pytest.raises(ValueError, match="either selected keys or a selector"):
        score_query("q", ranked, gold, 3, selector=lambda top: [], selected=["a"])
    with pytest.raises(ValueError, match="not the string 'a'"):
        score_query("q", ranked, gold, 3, selected="a")


def test_k_must_be_positive():
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at_k(["a"], {"a"}, 0)


keys = st.lists(st.sampled_from("abcdefgh"), max_size=10)


@given(keys, st.sets(st.sampled_from("abcdefgh"), min_size=1), st.integers(1, 10))
def test_properties(ranked, gold, k):
    for f in (ndcg_at_k, precision_at_k, recall_at_k, comprehensiveness_at_k):
        assert 0.0 <= f(ranked, gold, k) <= 1.0 + 1e-9
    assert recall_at_k(ranked, gold, k) <= recall_at_k(ranked, gold, k + 1)
    ideal = sorted(gold) + ranked
    assert ndcg_at_k(ideal, gold, k) == pytest.approx(1.0)


def test_round_trip_recall_hand_checked():
    from core.metrics import round_trip_recall

    sources = ["a", "b", "c", "d"]
    rankings = [["a", "x"], ["x", "b"], ["x", "y"], []]
    assert round_trip_recall(sources, rankings, 1) == 0.25  # only a's query finds a first
    assert round_trip_recall(sources, rankings, 2) == 0.5
    assert round_trip_recall([], [], 5) == 0.0
    with pytest.raises(ValueError, match="2 source tools for 1 rankings"):
        round_trip_recall(["a", "b"], [["a"]], 1)
