"""The bounded pool (map_concurrent) and the resumable stage (run_stage) every long run goes through."""

import threading
import time

import pytest

from core.concurrency import Outcome, StageCancelled, map_concurrent, map_or_raise, run_stage

# -- map_concurrent -------------------------------------------------------------------------------


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


def _peak_of(run, n, workers):
    """Most items under way at once when ``run(fn, items, workers)`` works ``n`` items that overlap."""
    active, peak, lock = 0, 0, threading.Lock()

    def fn(x):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        return x

    run(fn, list(range(n)), workers)
    return peak


def test_runs_in_parallel_up_to_the_bound():
    # four at once, never more: what a wall-clock bound would only suggest
    assert _peak_of(lambda fn, items, w: map_concurrent(fn, items, max_workers=w), 8, 4) == 4


def test_small_inputs_and_validation():
    assert map_concurrent(str, [], max_workers=3) == []
    assert map_concurrent(str, [1], max_workers=3) == [Outcome(value="1")]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="workers must be a positive integer"):
            map_concurrent(str, [1], max_workers=bad)


# -- run_stage ------------------------------------------------------------------------------------


def test_settled_items_are_skipped_and_every_new_one_is_saved_once():
    asked, saved, reports = [], [], []

    def work(x):
        asked.append(x)
        return x * x

    out = run_stage([1, 2, 3, 4], work, key=str, stored={"1": 1, "3": 99}, save=lambda x, r: saved.append((x, r)),
                    workers=1, name="squares", progress=lambda *a: reports.append(a))
    assert sorted(asked) == [2, 4]  # 1 and 3 were stored
    assert saved == [(2, 4), (4, 16)]
    assert out == {"1": 1, "2": 4, "3": 99, "4": 16}  # stored values are taken as they are, in item order
    assert reports == [(2, 4, "squares"), (3, 4, "squares"), (4, 4, "squares")]


def test_a_stored_result_that_is_not_settled_is_asked_again():
    stored = {"a": "failed", "b": "fine"}
    out = run_stage(["a", "b"], lambda k: f"{k}!", key=str, stored=stored, settled=lambda r: r != "failed")
    assert out == {"a": "a!", "b": "fine"}


def test_progress_counts_every_result_on_a_pool():
    reports = []
    out = run_stage([3, 1, 2], lambda x: x, key=int, workers=3, name="n", progress=lambda *a: reports.append(a))
    assert list(out) == [3, 1, 2]  # item order, whatever order they finished in
    assert reports == [(0, 3, "n"), (1, 3, "n"), (2, 3, "n"), (3, 3, "n")]


def test_an_empty_stage_reports_once():
    reports = []
    assert run_stage([], str, key=str, progress=lambda *a: reports.append(a), name="none") == {}
    assert reports == [(0, 0, "none")]


def test_workers_bound_is_respected():
    def stage(fn, items, workers):
        return run_stage(items, fn, key=int, workers=workers)

    assert _peak_of(stage, 9, 3) == 3
    assert _peak_of(stage, 4, 1) == 1  # one worker: the caller's thread, one at a time
    with pytest.raises(ValueError, match="workers"):
        run_stage([1], str, key=int, workers=0)


def test_cancel_keeps_the_finished_and_the_in_flight_answers():
    """Two workers: 0 finishes at once and the caller cancels while 1 and 2 are under way; those two are still
    saved (not reported) and 3, 4, 5, queued behind them, never start."""
    release, two_started = threading.Event(), threading.Event()
    started, saved, reports = [], {}, []

    def work(x):
        started.append(x)
        if x == 2:
            two_started.set()
        if x >= 1:
            assert release.wait(10)
        return x + 100

    asked = []

    def cancelled():
        asked.append(len(asked))
        if len(asked) == 1:  # asked once before the first item starts
            return False
        assert two_started.wait(10)  # the worker that did 0 has taken 2: both workers are busy
        release.set()
        return True

    with pytest.raises(StageCancelled, match="cut cancelled after 1 of 6"):
        run_stage(list(range(6)), work, key=int, save=lambda x, r: saved.__setitem__(x, r), workers=2, name="cut",
                  progress=lambda *a: reports.append(a), cancelled=cancelled)
    assert sorted(started) == [0, 1, 2]
    assert saved == {0: 100, 1: 101, 2: 102}
    assert reports == [(0, 6, "cut"), (1, 6, "cut")]


def test_a_progress_report_that_raises_stops_the_stage_the_same_way():
    class Stop(Exception):
        pass

    saved = []

    def report(done, total, name):
        if done == 2:
            raise Stop()

    with pytest.raises(Stop):
        run_stage(list(range(6)), lambda x: x, key=int, save=lambda x, r: saved.append(x), workers=1,
                  progress=report)
    assert saved == [0, 1]  # the report after the second raised: nothing further was asked


def test_an_exception_in_work_stops_the_stage_and_keeps_what_finished():
    gate = threading.Event()
    saved = {}

    def work(x):
        if x == "bad":
            assert gate.wait(10)  # fail only once "good" is in
            raise RuntimeError("broken item")
        if x == "good":
            gate.set()
        return x.upper()

    with pytest.raises(RuntimeError, match="broken item"):
        run_stage(["good", "bad"], work, key=str, save=lambda x, r: saved.__setitem__(x, r), workers=2)
    assert saved == {"good": "GOOD"}


def test_a_resumed_stage_asks_only_what_the_cancelled_one_did_not_finish():
    store, asked = {}, []

    def work(x):
        asked.append(x)
        return -x

    with pytest.raises(StageCancelled):
        run_stage(list(range(5)), work, key=int, stored=dict(store), save=lambda x, r: store.__setitem__(x, r),
                  workers=1, cancelled=lambda: len(store) >= 2)
    assert store == {0: 0, 1: -1}
    asked.clear()
    out = run_stage(list(range(5)), work, key=int, stored=dict(store), save=lambda x, r: store.__setitem__(x, r),
                    workers=1)
    assert asked == [2, 3, 4] and out == {0: 0, 1: -1, 2: -2, 3: -3, 4: -4}


def test_an_item_listed_twice_is_worked_once():
    calls = []
    out = run_stage([1, 2, 1], lambda x: calls.append(x) or x * 10, key=lambda x: x, workers=2)
    assert sorted(calls) == [1, 2]
    assert out == {1: 10, 2: 20}


def test_a_stage_cancelled_before_it_starts_runs_nothing():
    calls = []
    with pytest.raises(StageCancelled):
        run_stage([1, 2], lambda x: calls.append(x), key=lambda x: x, cancelled=lambda: True)
    assert calls == []


def test_map_or_raise_runs_everything_then_raises_the_first_failure_in_item_order():
    ran = []

    def fn(x):
        ran.append(x)
        if x in (2, 3):
            raise ValueError(f"bad {x}")
        return x

    with pytest.raises(ValueError, match="bad 2"):
        map_or_raise(fn, [1, 2, 3, 4], max_workers=4)
    assert sorted(ran) == [1, 2, 3, 4]
    assert map_or_raise(str, [1, 2], max_workers=2) == ["1", "2"]
