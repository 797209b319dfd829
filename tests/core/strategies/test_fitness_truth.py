"""The anchored retrieval term and fitness read against the truth (hand-worked cases)."""

import math

import pytest

from core.metrics import ndcg_at_k
from core.strategies.base import RetrievalResult, TraceEvent
from core.strategies.fitness import (
    fitness_truth,
    fitness_v1,
    fitness_v2,
    member_keys,
    retrieval_term,
    spearman,
    with_truth,
)


def test_anchored_retrieval_term_blends_the_two_scores():
    own, anchored = [0.9, 0.8, 0.4], [0.5, 0.5, 0.5]  # s_ret 0.84 (hand-worked in test_shared), anchored 0.5
    assert retrieval_term(own, anchored, 0.0) == pytest.approx((0.84, 0.84, 0.5))  # the paper's Eq. 7 term
    assert retrieval_term(own, anchored, 0.5) == pytest.approx((0.67, 0.84, 0.5))
    assert retrieval_term(own, anchored, 1.0)[0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="anchor_weight"):
        retrieval_term(own, anchored, 1.5)
    f1 = fitness_v1(own, 0.4, anchored, 0.5)  # 0.67 - 0.5*0.4
    assert (f1.f, f1.s_ret, f1.s_anchor) == pytest.approx((0.47, 0.84, 0.5))
    f2 = fitness_v2(own, 0.5, 0.2, 0.25, anchor_similarities=anchored, anchor_weight=0.5)
    assert f2.f == pytest.approx(0.5 * 0.67 + 0.3 * 0.5 - 0.2 * 0.2 - 0.25)


def _trace(members):
    """A memetic-shaped trace: per (generation, member) a retrieval then, after the group, its fitness."""
    out = []
    for g, group in members.items():
        for keys, _ in group:
            out.append(TraceEvent("retrieval", {"text": "d", "keys": list(keys), "ancestor": 0, "generation": g}))
        for i, (_, f) in enumerate(group):
            out.append(TraceEvent("fitness", {"id": f"m{i}", "generation": g, "ancestor": 0, "f": f}))
    return tuple(out)


def test_with_truth_scores_each_member_against_gold_from_its_own_keys():
    trace = _trace({1: [(("a", "b"), 0.9), (("x", "a"), 0.5)], 2: [(("y", "z"), 0.7)]})
    res = with_truth(RetrievalResult(("a",), (1.0,), trace), {"a"}, 2)
    fit = [e.data for e in res.trace if e.kind == "fitness"]
    assert [f["ndcg"] for f in fit] == pytest.approx([1.0, 1 / math.log2(3), 0.0])
    assert [f["recall"] for f in fit] == [1.0, 1.0, 0.0]
    assert with_truth(res, (), 2) is res  # no gold: unchanged
    keyed = (TraceEvent("fitness", {"id": "m0", "generation": 1, "f": 0.1, "keys": ["b", "a"]}),)
    assert member_keys(keyed)[0][1] == ("b", "a")  # an event's own keys come first


def test_fitness_truth_correlation_within_and_across_queries():
    # query 1: fitness ranks the members as the truth does (ρ = 1); query 2: exactly reversed (ρ = -1)
    q1 = _trace({1: [(("a",), 0.9), (("x", "a"), 0.5), (("x",), 0.1)]})
    q2 = [{"kind": e.kind, **e.data} for e in _trace({1: [(("a",), 0.1), (("x",), 0.9)]})]  # as stored
    out = fitness_truth([(q1, {"a"}), (q2, {"a"}), (q1, ())], 5)  # a query without gold is skipped
    assert (out.spearman, out.queries, out.members) == (pytest.approx(0.0), 2, 5)
    assert out.as_measures()["fitness_truth_queries"] == 2
    f = [0.9, 0.5, 0.1, 0.1, 0.9]
    t = [1.0, ndcg_at_k(("x", "a"), {"a"}, 5), 0.0, 1.0, 0.0]
    assert out.pooled == pytest.approx(spearman(f, t))
    assert fitness_truth([((), {"a"})], 5) is None  # no fitness events: nothing to say
    flat = fitness_truth([(_trace({1: [(("x",), 0.9), (("y",), 0.1)]}), {"a"})], 5)
    assert flat.queries == 0 and math.isnan(flat.spearman) and flat.as_measures()["fitness_truth_spearman"] is None
