import threading
import time

import pytest

from core.llm.pool import Outcome, map_concurrent


def test_order_is_preserved_and_errors_stay_with_their_item():
    def fn(x):
        time.sleep(0.01 * (5 - x))  # later items finish first
        if x == 2:
            raise ValueError("two is bad")
        return x * 10

    out = map_concurrent(fn, range(5), max_workers=5)
    assert [o.value for o in out] == [0, 10, None, 30, 40]
    assert [o.ok for o in out] == [True, True, False, True, True]
    assert isinstance(out[2].error, ValueError) and str(out[2].error) == "two is bad"


def test_runs_in_parallel_up_to_the_bound():
    active, peak, lock = 0, 0, threading.Lock()

    def fn(_):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1

    map_concurrent(fn, range(8), max_workers=4)
    assert peak == 4  # four at once, never more: what a wall-clock bound would only suggest


def test_small_inputs_and_validation():
    assert map_concurrent(str, [], max_workers=3) == []
    assert map_concurrent(str, [1], max_workers=3) == [Outcome(value="1")]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_workers"):
            map_concurrent(str, [1], max_workers=bad)
