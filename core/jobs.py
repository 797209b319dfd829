"""Background jobs: long work (embedding a catalog, laying out a map, a merge run) off the page's script run.

Pages used to run such work inside their own script run. A click anywhere then stopped it half-way, and
Streamlit stops a script by raising from the next element update, which, raised from a progress callback deep
inside a library, can leave that library's locks held (the UMAP/tqdm deadlock). A job runs on a thread of its
own, is shared by every session that asks for the same key, and survives the page that started it: pages only
poll its state, so a rerun or a page switch costs the work nothing and the bar is there again on return.

Cancelling is cooperative: the job's next progress report raises :class:`JobCancelled` inside the work, which
then stops the way it stops on any error (services store item by item and mark the run "stopped").
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"


class JobCancelled(Exception):
    """Raised inside a job's work at its first progress report after :meth:`Job.cancel`."""


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
    """One piece of work on its own thread; created by :meth:`Jobs.start`, never directly."""

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
        self._cancel.set()

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
        try:
            if after is not None:
                # A cancelled job with the same key may still be finishing a call under way; starting next to it
                # would run the same items twice.
                after.wait()
            self.report(0.0)
            result = fn(self)
        except JobCancelled as exc:
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


class Jobs:
    """The jobs of one process, by key: starting a key that is running joins it instead of starting it twice.

    Finished jobs are kept (newest ``keep``) so a session that was away when one ended still reads its result
    or its error; starting a finished key starts it afresh.
    """

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()

    def start(self, key: Hashable, fn: Callable[[Job], Any], *, label: str = "") -> Job:
        """Run ``fn(job)`` on its own thread unless a job with this key is running (then return that one).
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
        threading.Thread(target=job._run, args=(fn, after), name=f"toolatlas-job {key!r}", daemon=True).start()
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
