"""Tool memory shared across generations and calls of one session (FitText App. C.2)."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

DUPLICATE_RATIO = 0.82


def jaccard(a: Collection[str], b: Collection[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


@dataclass(frozen=True)
class MemoryEntry:
    text: str
    keys: frozenset[str]
    generation: int


@dataclass
class ToolMemory:
    """Descriptions already explored, with the tools they retrieved and their generation index.

    Mutable on purpose: one memory lives for a session and is written as strategies run.
    """

    entries: list[MemoryEntry] = field(default_factory=list)

    def add(self, text: str, keys: Iterable[str], generation: int) -> None:
        self.entries.append(MemoryEntry(text, frozenset(keys), generation))

    def is_duplicate(self, text: str, ratio: float = DUPLICATE_RATIO) -> bool:
        """App. C.2 read point 1: a request is redundant when SequenceMatcher ratio ≥ 0.82 to a stored one."""
        return any(SequenceMatcher(None, text, e.text).ratio() >= ratio for e in self.entries)

    def penalty_v1(self, keys: Collection[str]) -> float:
        """The memory term of FitText Eq. 7: ``max_j J(R, M_j)`` counted only where J > 0.3 (before the 0.5 weight)."""
        best = max((jaccard(keys, e.keys) for e in self.entries), default=0.0)
        return best if best > 0.3 else 0.0

    def penalty_v2(self, keys: Collection[str]) -> float:
        """FitText Eq. 17: ``max_j 0.5 · J(R, M_j) · exp(−g_j / 3)``."""
        return max((0.5 * jaccard(keys, e.keys) * math.exp(-e.generation / 3) for e in self.entries), default=0.0)
