import math

import pytest

from core.evolution.metrics import (
    MeanSE,
    avg_perf,
    discover,
    forget,
    mean_se,
    series_metrics,
    success_rate,
)

# Four queries over three steps (t = 0, 1, 2):
#   q1: 1 1 0   q2: 0 1 1   q3: 1 0 0   q4: 0 0 1
# success: t0 2/4 = 0.5, t1 2/4 = 0.5, t2 2/4 = 0.5
# t1: forget {q3} = 1/4, discover {q2} = 1/4
# t2: forget {q1} = 1/4, discover {q4} = 1/4
# AvgPerf = (0.5 + 0.5 + 0.5) / 3 = 0.5
STEPS = [
    [True, False, True, False],
    [True, True, False, False],
    [False, True, False, True],
]

# An uneven run to tell Forget from Discover: q1..q4 at t0 = 1 1 1 0, t1 = 0 0 1 1
# success 0.75 then 0.5; forget {q1, q2} = 0.5; discover {q4} = 0.25; AvgPerf = 0.625


def test_hand_worked_series():
    m = series_metrics(STEPS)
    assert m.success == (0.5, 0.5, 0.5)
    assert m.forget == (0.25, 0.25)
    assert m.discover == (0.25, 0.25)
    assert m.avg_perf == 0.5
    assert m.mean_forget == 0.25 and m.mean_discover == 0.25


def test_uneven_pair():
    prev, cur = [True, True, True, False], [False, False, True, True]
    assert success_rate(prev) == 0.75 and success_rate(cur) == 0.5
    assert forget(prev, cur) == 0.5
    assert discover(prev, cur) == 0.25
    assert avg_perf([0.75, 0.5]) == 0.625
    m = series_metrics([prev, cur])
    assert m.to_json() == {"success": [0.75, 0.5], "forget": [0.5], "discover": [0.25], "avg_perf": 0.625,
                           "mean_forget": 0.5, "mean_discover": 0.25}


def test_single_step_has_no_forget_or_discover():
    m = series_metrics([[True, False]])
    assert m.forget == () and m.discover == ()
    assert m.mean_forget == 0.0 and m.mean_discover == 0.0
    assert m.avg_perf == 0.5


def test_length_mismatch_and_empty_inputs():
    with pytest.raises(ValueError, match=r"differ in length \(2 vs 3\)"):
        forget([True, False], [True, False, True])
    with pytest.raises(ValueError, match="differ in length"):
        discover([True], [])
    with pytest.raises(ValueError, match=r"outcomes\[1\]: 1 queries, but step 0 has 2"):
        series_metrics([[True, False], [True]])
    with pytest.raises(ValueError, match="outcomes"):
        success_rate([])
    with pytest.raises(ValueError, match="outcomes"):
        series_metrics([])
    with pytest.raises(ValueError, match="rates"):
        avg_perf([])


def test_mean_se():
    # sample variance of 1, 2, 3 is (1 + 0 + 1) / 2 = 1, so se = 1 / sqrt(3)
    r = mean_se([1.0, 2.0, 3.0])
    assert r.mean == 2.0 and r.n == 3
    assert r.se == pytest.approx(1 / math.sqrt(3))
    assert mean_se([0.4]) == MeanSE(0.4, 0.0, 1)
    assert mean_se([0.4]).to_json() == {"mean": 0.4, "se": 0.0, "n": 1}
    with pytest.raises(ValueError, match="values"):
        mean_se([])
