"""Background jobs: long work (embedding a catalog, laying out a map, a merge run) off the page's script run.

Pages used to run such work inside their own script run. A click anywhere then stopped it half-way, and
Streamlit stops a script by raising from the next element update, which, raised from a progress callback deep
inside a library, can leave that library's locks held (the UMAP/tqdm deadlock). A job runs off the script
thread, is shared by every session that asks for the same key, and survives the page that started it: pages only
poll its state, so a rerun or a page switch costs the work nothing and the bar is there again on return.

Jobs run on a bounded set of worker threads (:class:`Jobs` ``workers``, 4 by default), first started first run;
the others wait their turn, shown as running at 0 %. A job started after a job of the same key that is being
cancelled waits for that one (so no item is worked twice); this cannot hold up the pool, because the one it
waits for was queued earlier and so has already been given a worker.

Cancelling is cooperative: the job's next progress report raises :class:`JobCancelled` inside the work, which
then stops the way it stops on any error (services store item by item and mark the run "stopped"). A job still
waiting for a worker is cancelled at once.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from core.concurrency import StageCancelled, check_workers

RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"


class JobCancelled(StageCancelled):
    """Raised inside a job's work at its first progress report after :meth:`Job.cancel`. A stage stopped by its
    ``cancelled()`` raises the base class, :class:`core.concurrency.StageCancelled`; either ends the job
    cancelled, not failed."""


@dataclass(frozen=True)
class JobState:
    """A snapshot of a job, safe to read from any thread."""

    key: Hashable
    status: str
    share: float
    label: str
    started: float
    finished: float | None
    error: str | None
    cancelling: bool

    @property
    def over(self) -> bool:
        return self.status != RUNNING

    @property
    def seconds(self) -> float:
        return (self.finished if self.finished is not None else time.time()) - self.started


class Job:
    """One piece of work run on a worker thread of its :class:`Jobs`; created by :meth:`Jobs.start`, never
    directly."""

    def __init__(self, key: Hashable, label: str) -> None:
        self.key = key
        self._lock = threading.Lock()
        self._share = 0.0
        self._label = label
        self._status = RUNNING
        self._result: Any = None
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._over = threading.Event()
        self._started = time.time()
        self._finished: float | None = None
        self._began = False  # a worker has taken it; before that, cancelling ends it at once

    def report(self, share: float, label: str | None = None) -> None:
        """Progress from inside the work: ``share`` in [0, 1] (clamped), and what is being done.
        Raises :class:`JobCancelled` once the job has been cancelled."""
        if self._cancel.is_set():
            raise JobCancelled(f"{self.key!r} was cancelled")
        with self._lock:
            self._share = min(max(float(share), 0.0), 1.0)
            if label:
                self._label = label

    def cancel(self) -> None:
        """Stop at the next progress report; a job still waiting for a worker is over at once."""
        self._cancel.set()
        with self._lock:
            if self._began or self._over.is_set():
                return
            self._began = True  # no worker will run it now
        self._finish(CANCELLED, None, JobCancelled(f"{self.key!r} was cancelled before it started"))

    @property
    def cancelling(self) -> bool:
        return self._cancel.is_set()

    @property
    def over(self) -> bool:
        return self._over.is_set()

    def state(self) -> JobState:
        with self._lock:
            error = None if self._error is None else f"{type(self._error).__name__}: {self._error}"
            return JobState(self.key, self._status, self._share, self._label, self._started, self._finished, error,
                            self._cancel.is_set())

    def wait(self, timeout: float | None = None) -> bool:
        """True once the job is over (within ``timeout`` seconds when given)."""
        return self._over.wait(timeout)

    def result(self, timeout: float | None = None) -> Any:
        """The work's return value; re-raises its exception (:class:`JobCancelled` when cancelled)."""
        if not self._over.wait(timeout):
            raise TimeoutError(f"job {self.key!r} still running after {timeout} s")
        if self._error is not None:
            raise self._error
        return self._result

    def _run(self, fn: Callable[[Job], Any], after: Job | None) -> None:
        with self._lock:
            if self._began:  # cancelled while it waited for a worker
                return
            self._began = True
        try:
            if after is not None:
                # A cancelled job with the same key may still be finishing a call under way; starting next to it
                # would run the same items twice.
                after.wait()
            self.report(0.0)
            result = fn(self)
        except StageCancelled as exc:  # a stage's own cancel check: the job's readers see JobCancelled either way
            if not isinstance(exc, JobCancelled):
                cancelled = JobCancelled(str(exc) or f"{self.key!r} was cancelled")
                cancelled.__cause__ = exc
                exc = cancelled
            self._finish(CANCELLED, None, exc)
        except BaseException as exc:  # noqa: BLE001 - kept for whoever reads the result
            self._finish(FAILED, None, exc)
        else:
            self._finish(DONE, result, None)

    def _finish(self, status: str, result: Any, error: BaseException | None) -> None:
        with self._lock:
            self._status, self._result, self._error = status, result, error
            self._finished = time.time()
            if status == DONE:
                self._share = 1.0
        self._over.set()


class _Workers:
    """At most ``size`` daemon threads running queued calls first in, first out; a thread idle for
    ``idle_seconds`` ends (ours).

    Not a ``ThreadPoolExecutor``: its threads are joined when the interpreter exits, so a running merge, and
    every job queued behind it, would hold up the server's shutdown; job threads stay daemons, as they were."""

    def __init__(self, size: int, idle_seconds: float = 30.0) -> None:
        self.size = check_workers(size)
        self.idle_seconds = idle_seconds
        self._cond = threading.Condition()
        self._queue: deque[Callable[[], None]] = deque()
        self._threads = 0
        self._idle = 0

    def submit(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` (which must not raise); a new thread starts when no idle one will take it."""
        with self._cond:
            self._queue.append(fn)
            if len(self._queue) > self._idle and self._threads < self.size:
                self._threads += 1
                threading.Thread(target=self._work, name=f"toolatlas-job-{self._threads}", daemon=True).start()
            else:
                self._cond.notify()

    def _work(self) -> None:
        while True:
            with self._cond:
                self._idle += 1
                while not self._queue:
                    if not self._cond.wait(self.idle_seconds) and not self._queue:
                        self._idle -= 1
                        self._threads -= 1
                        return
                self._idle -= 1
                fn = self._queue.popleft()
            fn()


class Jobs:
    """The jobs of one process, by key: starting a key that is running joins it instead of starting it twice.

    At most ``workers`` jobs run at once; the others wait their turn in the order they were started. Finished
    jobs are kept (newest ``keep``) so a session that was away when one ended still reads its result or its
    error; starting a finished key starts it afresh.
    """

    def __init__(self, keep: int = 64, workers: int = 4) -> None:
        self.keep = keep
        self._workers = _Workers(workers)
        self._lock = threading.Lock()
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()

    def start(self, key: Hashable, fn: Callable[[Job], Any], *, label: str = "") -> Job:
        """Queue ``fn(job)`` for a worker unless a job with this key is running (then return that one).
        A running job that is being cancelled is not joined: the new one starts once it is over."""
        with self._lock:
            current = self._jobs.get(key)
            if current is not None and not current.over and not current.cancelling:
                return current
            after = current if current is not None and not current.over else None
            job = Job(key, label)
            self._jobs[key] = job
            self._jobs.move_to_end(key)
            self._prune()
            # queued under the lock, so jobs reach the workers in the order they were registered: the job
            # ``after`` names was queued first and has a worker before this one can take one and wait for it
            self._workers.submit(lambda: job._run(fn, after))
        return job

    def get(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def done(self, key: Hashable) -> Job | None:
        """The kept job under this key if it finished successfully (its result is there to reuse), else None."""
        job = self.get(key)
        return job if job is not None and job.over and job.state().status == DONE else None

    def running(self, key: Hashable) -> Job | None:
        """The job under this key if it is still running (cancelling included), else None."""
        job = self.get(key)
        return job if job is not None and not job.over else None

    def cancel(self, key: Hashable) -> bool:
        """Ask the running job under ``key`` to stop; False when there is none."""
        job = self.running(key)
        if job is None:
            return False
        job.cancel()
        return True

    def states(self) -> list[JobState]:
        """Every job kept, oldest first."""
        with self._lock:
            jobs = list(self._jobs.values())
        return [j.state() for j in jobs]

    def _prune(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.over]
        for key in finished[: max(len(finished) - self.keep, 0)]:
            del self._jobs[key]
