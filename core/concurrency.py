"""The one way long work runs: a bounded thread pool (:func:`map_concurrent`) and the resumable stage
(:func:`run_stage`) built on it.

A *stage* is a list of items, each worked on independently (a judge call per candidate pair, a trial per
candidate tool, a strategy run per query, a batch of synthetic queries per tool). Every long run in Tool
Atlas is one or more stages, and each goes the same way:

1. **settled**: results already stored for an item are taken as they are (unless ``settled`` says a stored
   result must be asked again, say a failed call when resuming);
2. **todo**: the other items run concurrently on at most ``workers`` threads;
3. **persist each**: every result is handed to ``save`` as soon as it arrives, so an interrupted run loses at
   most the calls under way;
4. **progress**: ``progress(done, total, name)`` after the settled items and after each new one;
5. **cancel**: ``cancelled()`` is asked after each result; when it says so (or anything else interrupts the
   loop: a progress callback that raises, a failing store), items not started are dropped, the few under way
   are waited for and *kept* (saved, not reported), and the interruption goes on.

Chat calls and tool servers spend their time waiting on the network, so threads overlap them; CPU-bound
items gain nothing but lose nothing either.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)

Progress = Callable[[int, int, str], None]


class StageCancelled(Exception):
    """Raised by :func:`run_stage` when ``cancelled()`` said stop; what finished is saved."""


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """One item's result: its value, or the exception it raised (never both)."""

    value: R | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def check_workers(workers: Any) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, not {workers!r}")
    return workers


def map_concurrent(fn: Callable[[T], R], items: Iterable[T], max_workers: int = 8) -> list[Outcome[R]]:
    """``fn`` over ``items`` on at most ``max_workers`` threads, results in input order.

    An exception in one item becomes that item's ``Outcome.error``; the other items still run and return,
    so one failed child never costs the whole generation (SPEC: population calls run concurrently).
    """
    check_workers(max_workers)
    work = list(items)

    def guarded(item: T) -> Outcome[R]:
        try:
            return Outcome(value=fn(item))
        except Exception as exc:  # noqa: BLE001 - reported per item, by design
            return Outcome(error=exc)

    if len(work) <= 1 or max_workers == 1:
        return [guarded(item) for item in work]
    with ThreadPoolExecutor(max_workers=min(max_workers, len(work)), thread_name_prefix="toolatlas-pool") as pool:
        return list(pool.map(guarded, work))


def map_or_raise(fn: Callable[[T], R], items: Iterable[T], max_workers: int = 8) -> list[R]:
    """:func:`map_concurrent` for work where one failure fails the whole: every item runs to its end, then the
    first failure in item order is raised; otherwise the values in input order."""
    outcomes = map_concurrent(fn, items, max_workers)
    for outcome in outcomes:
        if not outcome.ok:
            raise outcome.error  # type: ignore[misc]
    return [o.value for o in outcomes]  # type: ignore[misc]


def run_stage(
    items: Sequence[T],
    work: Callable[[T], R],
    *,
    key: Callable[[T], K],
    stored: Mapping[K, R] | None = None,
    save: Callable[[T, R], None] | None = None,
    settled: Callable[[R], bool] = lambda _result: True,
    workers: int = 8,
    name: str = "",
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[K, R]:
    """The resumable stage described in the module docstring; returns every item's result by ``key``,
    in the order of ``items`` (stored ones included).

    ``work`` raising for an item stops the stage like any interruption (results that finished are kept);
    a stage whose items may fail on their own should return the failure as a value (a ``RoleCall`` with
    ``ok=False``, a trial whose outcome says what failed) so the rest still run and the failure is stored.
    """
    check_workers(workers)
    stored = stored or {}
    keep = save or (lambda _item, _result: None)
    report = progress or (lambda _done, _total, _name: None)
    results: dict[K, R] = {}
    todo: list[T] = []
    seen: set[K] = set()
    for item in items:
        k = key(item)
        if k in seen:  # an item listed twice is worked once
            continue
        seen.add(k)
        old = stored.get(k)
        if k in stored and settled(old):  # type: ignore[arg-type]
            results[k] = old  # type: ignore[assignment]
        else:
            todo.append(item)
    total = len(seen)
    report(len(results), total, name)
    if todo and cancelled is not None and cancelled():
        raise StageCancelled(f"{name or 'stage'} cancelled before it started ({len(results)} of {total} stored)")
    if todo:
        _run_todo(todo, work, key, results, keep, workers, total, name, report, cancelled)
    return {key(i): results[key(i)] for i in items}


def _run_todo(todo: list[T], work: Callable[[T], R], key: Callable[[T], K], results: dict[K, R],
              keep: Callable[[T, R], None], workers: int, total: int, name: str, report: Progress,
              cancelled: Callable[[], bool] | None) -> None:
    if len(todo) == 1 or workers == 1:  # no pool: the caller's thread, results in order
        for item in todo:
            result = work(item)
            keep(item, result)
            results[key(item)] = result
            report(len(results), total, name)
            if cancelled is not None and cancelled():
                raise StageCancelled(f"{name or 'stage'} cancelled after {len(results)} of {total}")
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(todo)), thread_name_prefix="toolatlas-stage")
    futures: dict[Future, T] = {pool.submit(work, item): item for item in todo}
    handled: set[Future] = set()
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                handled.add(fut)
                item = futures[fut]
                result = fut.result()
                keep(item, result)
                results[key(item)] = result
                report(len(results), total, name)
                if cancelled is not None and cancelled():
                    raise StageCancelled(f"{name or 'stage'} cancelled after {len(results)} of {total}")
    except BaseException:
        for fut in futures:
            fut.cancel()
        pool.shutdown(wait=True)
        for fut, item in futures.items():  # answers that arrived meanwhile are kept, not asked again later
            if fut not in handled and fut.done() and not fut.cancelled() and fut.exception() is None:
                try:
                    keep(item, fut.result())
                except Exception:  # noqa: BLE001, S112 - the store is failing: the first error is the one to see
                    break
        raise
    finally:
        pool.shutdown(wait=True)
