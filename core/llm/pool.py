"""A bounded thread pool for population calls (Scattershot children, seeding, offspring, refinement).

Chat calls spend their time waiting on the network, so threads overlap them and a generation of
N calls costs about one call's latency instead of N (SPEC "Population LLM calls … run concurrently").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """One item's result: its value, or the exception it raised (never both)."""

    value: R | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def map_concurrent(fn: Callable[[T], R], items: Iterable[T], max_workers: int = 8) -> list[Outcome[R]]:
    """``fn`` over ``items`` on at most ``max_workers`` threads, results in input order.

    An exception in one item becomes that item's ``Outcome.error``; the other items still run and
    return, so one failed child never costs the whole generation.
    """
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise ValueError(f"max_workers must be a positive integer, not {max_workers!r}")
    work = list(items)

    def guarded(item: T) -> Outcome[R]:
        try:
            return Outcome(value=fn(item))
        except Exception as exc:  # noqa: BLE001 - reported per item, by design
            return Outcome(error=exc)

    if len(work) <= 1 or max_workers == 1:
        return [guarded(item) for item in work]
    with ThreadPoolExecutor(max_workers=min(max_workers, len(work)), thread_name_prefix="llm-pool") as pool:
        return list(pool.map(guarded, work))
