import numpy as np

from core.compare import RunScores, paired_test


def run(label, values):
    qids = tuple(f"q{i}" for i in range(len(values)))
    arr = np.array(values, dtype=float)
    return RunScores(1, label, 5, qids, {"recall": arr}, {}, {}, {}, {})


def test_clear_improvement_is_significant():
    a = run("base", [0.0] * 30)
    b = run("better", [1.0] * 25 + [0.0] * 5)
    t = paired_test(a, b, "recall")
    assert t.n == 30 and t.mean_difference == 25 / 30 and t.p_value < 0.001
    assert t.ci_low > 0.6 and t.ci_high <= 1.0
    assert (t.wins, t.ties, t.losses) == (25, 5, 0)


def test_no_difference_is_not_significant_and_small_sets_are_skipped():
    rng = np.random.default_rng(1)
    vals = rng.random(40)
    t = paired_test(run("a", vals), run("b", vals[::-1]), "recall")
    assert t.p_value > 0.05
    assert paired_test(run("a", [1.0] * 5), run("b", [0.0] * 5), "recall") is None
