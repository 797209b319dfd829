import numpy as np

from core.strategies.reinvoke import multiview_rank
from core.strategies.toolscope import merge_subqueries


def test_multiview_takes_best_reversed_rank_over_intents():
    tools = np.array([[1, 0], [0, 1], [0.7, 0.7]], dtype=np.float32)
    intents = np.array([[1, 0], [0, 1]], dtype=np.float32)
    # intent 1 sims [1, 0, .7] -> reversed ranks [3, 1, 2]; intent 2 sims [0, 1, .7] -> [1, 3, 2]
    # best tuples: t0 (3, 1.0), t1 (3, 1.0), t2 (2, .7) -> t0, t1 tie on both, index breaks it
    assert [j for j, _ in multiview_rank(intents, tools)] == [0, 1, 2]
    assert [j for j, _ in multiview_rank(intents[:1], tools)] == [0, 2, 1]


def test_eq5_merge_keeps_top1_then_normalised_pool():
    a = [("x", 10.0), ("y", 8.0), ("z", 6.0)]   # rest y, z -> (8-6)/(2+eps) ~ 1, 0
    b = [("u", 0.9), ("v", 0.5), ("w", 0.4)]    # rest v, w -> ~1, 0
    merged = merge_subqueries([a, b], 4)
    assert [k for k, _ in merged][:2] == ["x", "u"]
    assert {k for k, _ in merged[2:]} == {"y", "v"}
    assert len(merge_subqueries([a, b], 2)) == 2
