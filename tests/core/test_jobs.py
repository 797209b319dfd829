"""Background jobs: one job per key, joined while running, run on a bounded set of workers, cancelled at the next
progress report, errors and results kept for whoever reads them later."""

import threading
import time

import pytest

from core.concurrency import StageCancelled
from core.jobs import CANCELLED, DONE, FAILED, RUNNING, JobCancelled, Jobs, _Workers


def _until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        threading.Event().wait(0.01)


def test_a_job_runs_off_the_calling_thread_and_keeps_its_result():
    jobs = Jobs()
    seen = {}

    def work(job):
        seen["thread"] = threading.current_thread().name
        job.report(0.5, "half")
        return 42

    job = jobs.start("k", work, label="starting")
    assert job.result(timeout=10) == 42
    state = job.state()
    assert (state.status, state.share, state.label, state.error) == (DONE, 1.0, "half", None)
    assert seen["thread"] != threading.current_thread().name
    assert state.finished is not None and state.seconds >= 0


def test_starting_a_running_key_joins_it_instead_of_running_twice():
    jobs, gate, calls = Jobs(), threading.Event(), []

    def work(job):
        calls.append(1)
        gate.wait(10)
        return len(calls)

    first = jobs.start("k", work)
    second = jobs.start("k", work)
    other = jobs.start("other", lambda job: "x")
    assert second is first and other is not first
    assert jobs.running("k") is first
    assert jobs.done("k") is None  # still running: nothing to reuse yet
    gate.set()
    assert first.result(timeout=10) == 1 and other.result(timeout=10) == "x"
    assert calls == [1] and jobs.done("k") is first
    # once over, the same key starts afresh
    again = jobs.start("k", work)
    assert again is not first and again.result(timeout=10) == 2
    assert jobs.running("k") is None


def test_cancel_stops_the_work_at_its_next_report():
    jobs, reached, reports = Jobs(), threading.Event(), []

    def work(job):
        job.report(0.1, "first")
        reports.append(1)
        reached.set()
        while True:  # a long loop that reports as it goes
            job.report(0.2)
            reports.append(2)

    job = jobs.start("k", work)
    assert reached.wait(10)
    assert jobs.cancel("k") is True
    with pytest.raises(JobCancelled):
        job.result(timeout=10)
    state = job.state()
    assert state.status == CANCELLED and state.cancelling and "cancelled" in state.error
    assert jobs.cancel("k") is False  # nothing running under that key any more


def test_a_failing_job_keeps_its_error_for_the_reader():
    jobs = Jobs()

    def work(job):
        raise ValueError("tools.json: record 3: field 'name' is empty")

    job = jobs.start("k", work)
    with pytest.raises(ValueError, match="record 3"):
        job.result(timeout=10)
    state = job.state()
    assert state.status == FAILED and state.error == "ValueError: tools.json: record 3: field 'name' is empty"
    assert jobs.done("k") is None  # a failed job is not a result to reuse


def test_a_stage_stopped_by_its_own_cancel_check_reads_as_a_cancelled_job():
    jobs, reached = Jobs(), threading.Event()

    def work(job):
        reached.set()
        while not job.cancelling:
            threading.Event().wait(0.01)
        raise StageCancelled("stage stopped between items")  # what core.concurrency.run_stage raises

    job = jobs.start("k", work)
    assert reached.wait(10) and jobs.cancel("k") is True
    with pytest.raises(JobCancelled) as raised:  # readers catch one exception, whoever noticed the cancel
        job.result(timeout=10)
    assert isinstance(raised.value.__cause__, StageCancelled) and "between items" in str(raised.value)
    assert job.state().status == CANCELLED


def test_a_job_started_while_its_key_is_being_cancelled_waits_for_the_old_one():
    jobs, release, order = Jobs(), threading.Event(), []

    def slow(job):
        order.append("old start")
        release.wait(10)  # a call under way: it ignores cancel until it returns
        order.append("old end")
        job.report(0.5)

    old = jobs.start("k", slow)
    while not order:
        threading.Event().wait(0.01)
    old.cancel()
    new = jobs.start("k", lambda job: order.append("new") or "fresh")
    assert new is not old and new.state().status == RUNNING
    assert not new.wait(0.2)  # still waiting for the old one
    release.set()
    assert new.result(timeout=10) == "fresh"
    assert old.state().status == CANCELLED
    assert order == ["old start", "old end", "new"]


def test_only_the_newest_finished_jobs_are_kept():
    jobs = Jobs(keep=2)
    for i in range(5):
        jobs.start(i, lambda job, i=i: i).wait(10)
    jobs.start("last", lambda job: None).wait(10)
    kept = [s.key for s in jobs.states()]
    assert kept == [3, 4, "last"]  # pruned when "last" started: 2 finished kept besides it


def test_progress_is_clamped_to_the_unit_interval():
    jobs, gate = Jobs(), threading.Event()

    def work(job):
        job.report(7.0, "overshoot")
        gate.wait(10)

    job = jobs.start("k", work)
    while job.state().label != "overshoot":
        threading.Event().wait(0.01)
    assert job.state().share == 1.0
    gate.set()
    job.wait(10)


def test_more_jobs_than_workers_all_finish_never_more_than_the_bound_at_once():
    jobs, lock, gate = Jobs(workers=2), threading.Lock(), threading.Event()
    active, peak = [0], [0]

    def work(job, i):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        gate.wait(10)
        with lock:
            active[0] -= 1
        return i

    started = [jobs.start(i, lambda job, i=i: work(job, i)) for i in range(7)]
    _until(lambda: active[0] == 2)
    assert all(j.state().status == RUNNING for j in started)  # the five waiting for a worker read as running
    gate.set()
    assert [j.result(timeout=10) for j in started] == list(range(7))
    assert peak[0] == 2


def test_jobs_reach_the_workers_in_the_order_they_were_started():
    jobs, gate, order = Jobs(workers=1), threading.Event(), []
    first = jobs.start("first", lambda job: gate.wait(10))
    rest = [jobs.start(i, lambda job, i=i: order.append(i)) for i in range(5)]
    gate.set()
    first.wait(10)
    for j in rest:
        j.wait(10)
    assert order == [0, 1, 2, 3, 4]


def test_a_job_waiting_for_a_worker_is_cancelled_at_once():
    jobs, gate, ran = Jobs(workers=1), threading.Event(), []
    busy = jobs.start("busy", lambda job: gate.wait(10))
    queued = jobs.start("queued", lambda job: ran.append("queued"))
    assert jobs.cancel("queued") is True
    assert queued.wait(1)  # over without a worker
    assert queued.state().status == CANCELLED and "before it started" in queued.state().error
    again = jobs.start("queued", lambda job: ran.append("again") or "ran")
    assert again is not queued  # a cancelled queued job is not waited for
    gate.set()
    assert again.result(timeout=10) == "ran" and busy.result(timeout=10) is True
    assert ran == ["again"]


def test_a_job_chained_after_a_cancelled_one_still_runs_when_the_workers_are_full():
    """Every worker busy with an old job being cancelled and a new job for each key queued behind it: each new
    job takes a worker only after its old one, which already holds one, so all finish."""
    jobs, release = Jobs(workers=2), threading.Event()
    began = []

    def old(job, key):
        began.append(key)
        release.wait(10)  # a call under way: it ignores cancel until it returns
        job.report(0.5)

    olds = {key: jobs.start(key, lambda job, key=key: old(job, key)) for key in ("a", "b")}
    _until(lambda: len(began) == 2)
    news = {}
    for key in ("a", "b"):
        olds[key].cancel()
        news[key] = jobs.start(key, lambda job, key=key: f"new {key}")
    release.set()
    assert {key: job.result(timeout=10) for key, job in news.items()} == {"a": "new a", "b": "new b"}
    assert all(o.state().status == CANCELLED for o in olds.values())


def test_idle_worker_threads_end_and_new_work_starts_new_ones():
    workers, done = _Workers(2, idle_seconds=0.05), []
    for i in range(3):
        workers.submit(lambda i=i: done.append(i))
    _until(lambda: sorted(done) == [0, 1, 2])
    _until(lambda: workers._threads == 0)  # nothing left to do: the threads are gone
    workers.submit(lambda: done.append(3))
    _until(lambda: done[-1] == 3)
