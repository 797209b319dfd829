import numpy as np
import pytest

from core.compare import paired_test
from core.scoring import Run, RunQuery, score


def report(values, *, run_id=1, strategy="query", ids=None):
    """A run whose per-query recall@1 is ``values``: a hit (1) or a miss (0) at rank 1."""
    ids = ids or [f"q{i}" for i in range(len(values))]
    queries = tuple(RunQuery(q, q, ("g",), ("g" if v else "x",)) for q, v in zip(ids, values, strict=True))
    return score(Run(run_id, strategy, {}, 1, queries), metrics=["recall@1"])


def test_identical_runs_have_p_one_and_no_difference():
    a, b = report([1, 0] * 10), report([1, 0] * 10, run_id=2)
    t = paired_test(a, b, "recall")
    assert (t.n, t.mean_difference, t.p_value, t.ci_low, t.ci_high) == (20, 0.0, 1.0, 0.0, 0.0)
    assert (t.wins, t.ties, t.losses) == (0, 20, 0) and t.metric == "recall@1"


def test_all_better_on_ten_queries_is_the_exact_two_sided_p():
    # 10 shared queries, each one better by 1: of the 2^10 sign flips only all-plus and all-minus reach |mean| 1
    t = paired_test(report([0] * 10), report([1] * 10, run_id=2, strategy="memetic"), "recall@1")
    assert t.p_value == pytest.approx(2 / 2**10) and t.mean_difference == 1.0
    assert (t.ci_low, t.ci_high) == (1.0, 1.0) and (t.wins, t.ties, t.losses) == (10, 0, 0)
    assert (t.baseline, t.other) == ("#1 query", "#2 memetic")


def test_clear_improvement_on_many_queries_is_significant():
    t = paired_test(report([0] * 30), report([1] * 25 + [0] * 5, run_id=2), "recall")
    assert t.n == 30 and t.mean_difference == pytest.approx(25 / 30) and t.p_value < 0.001
    assert 0.6 < t.ci_low < 25 / 30 < t.ci_high <= 1.0
    assert (t.wins, t.ties, t.losses) == (25, 5, 0)


def test_no_difference_is_not_significant_and_the_same_seed_gives_the_same_numbers():
    rng = np.random.default_rng(1)
    values = (rng.random(40) > 0.5).astype(int).tolist()
    a, b = report(values), report(values[::-1], run_id=2)
    t = paired_test(a, b, "recall")
    assert t.p_value > 0.05 and t.ci_low < 0 < t.ci_high
    assert paired_test(a, b, "recall") == t  # seeded: stable
    other_seed = paired_test(a, b, "recall", seed=3)  # other resamples: another interval
    assert (other_seed.ci_low, other_seed.ci_high) != (t.ci_low, t.ci_high)


def test_only_shared_queries_are_paired_and_small_sets_are_skipped():
    a = report([0] * 12, ids=[f"q{i}" for i in range(12)])
    b = report([1] * 12, run_id=2, ids=[f"q{i}" for i in range(2, 14)])  # shares q2..q11 with a
    t = paired_test(a, b, "recall")
    assert t.n == 10 and t.wins == 10
    assert paired_test(report([1] * 5), report([0] * 5, run_id=2), "recall") is None
