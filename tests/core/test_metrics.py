import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.metrics import (
    comprehensiveness_at_k,
    csr,
    csr_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    score_rankings,
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
    # default selector takes as many tools as the gold set has, in order: [a, b] vs gold {a, b}
    assert csr_at_k(["a", "b", "c"], {"a", "b"}, 5) == 1.0
    assert csr_at_k(["a", "c", "b"], {"a", "b"}, 5) == 0.0
    assert csr_at_k(["a", "c", "b"], {"a", "b"}, 5, selector=lambda top: {"a", "b"}) == 1.0


def test_aggregate_and_errors():
    s = score_rankings({"q1": ["a", "b"], "q2": ["x"]}, {"q1": {"a"}, "q2": {"y"}}, 2)
    assert s.n_queries == 2 and s.recall == 0.5 and s.mrr == 0.5
    d = s.as_dict()
    assert d["recall@2"] == 0.5 and set(d) >= {"ndcg@2", "precision@2", "comprehensiveness@2", "mrr", "csr@2"}
    with pytest.raises(ValueError, match="no gold"):
        score_rankings({"q": ["a"]}, {}, 2)
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
