"""Evolving toolsets simulated over a fixed pool (CONTDA App. B.2): a first-order Markov chain of subsets
S_0 … S_T in one of three patterns (expansion, reduction, mixture).

Only keys move here; ``core.evolution.sequence`` maps them back to tools. Every subset lists its keys in
pool order so a run is reproducible from (pool, config) alone and diffs read naturally.
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PATTERNS = ("expansion", "reduction", "mixture")

# Expansion starts half full so there is room to grow; reduction starts full so every step can shrink;
# mixture starts a little above half so both the removal and the addition side have candidates.
_DEFAULT_INITIAL = {"expansion": 0.5, "reduction": 1.0, "mixture": 0.6}


@dataclass(frozen=True)
class MarkovConfig:
    """Settings of one simulated run; ``steps`` is T, so a run yields T + 1 subsets."""

    pattern: str = "mixture"
    steps: int = 5
    initial: float | None = None
    rate: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"pattern: unknown pattern {self.pattern!r}; valid patterns: {', '.join(PATTERNS)}")
        if isinstance(self.steps, bool) or not isinstance(self.steps, numbers.Integral) or self.steps < 1:
            raise ValueError(f"steps: must be an integer >= 1, got {self.steps!r}")
        # written as `not (...)` so NaN is rejected too
        if not (0.0 < self.rate <= 1.0):
            raise ValueError(f"rate: must be in (0, 1], got {self.rate!r}")
        if self.initial is not None and not (0.0 < self.initial <= 1.0):
            raise ValueError(f"initial: must be in (0, 1], got {self.initial!r}")

    def resolved_initial(self) -> float:
        """|S_0| / |pool|: the configured share, or the pattern's default when none was given."""
        return float(self.initial) if self.initial is not None else _DEFAULT_INITIAL[self.pattern]

    def to_json(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "steps": self.steps, "initial": self.resolved_initial(),
                "rate": self.rate, "seed": self.seed}


def _check_pool(pool: Sequence[str]) -> None:
    if len(pool) == 0:
        raise ValueError("pool: the tool pool is empty")
    seen: set[str] = set()
    for key in pool:
        if key in seen:
            raise ValueError(f"pool: duplicate key {key!r}")
        seen.add(key)


def simulate(pool: Sequence[str], config: MarkovConfig) -> tuple[tuple[str, ...], ...]:
    """CONTDA Eq. 12 (App. B.2): S_t = (S_{t−1} \\ R_t) ∪ A_t with R_t ⊆ S_{t−1}, A_t ⊆ pool \\ S_{t−1}.

    The pattern decides the sizes: expansion has R_t = ∅, reduction has A_t = ∅ (and never removes the
    last tool), mixture draws |R_t| = |A_t| so the toolset size stays fixed (App. B.2 step 2). ``rate`` ×
    |pool| (rounded, at least 1) bounds how many tools change per step. The paper gives the chain, not its
    numbers: the rate, the initial shares and keeping the last tool are our definition. Returns S_0 … S_T,
    keys in pool order.
    """
    _check_pool(pool)
    n = len(pool)
    rng = random.Random(config.seed)
    m = max(1, round(config.rate * n))

    current = set(rng.sample(range(n), max(1, round(config.resolved_initial() * n))))
    subsets = [current]
    for _ in range(config.steps):
        # candidate lists are built in pool order so the rng draws do not depend on set iteration order
        inside = [i for i in range(n) if i in current]
        outside = [i for i in range(n) if i not in current]
        if config.pattern == "expansion":
            removed, added = [], rng.sample(outside, min(m, len(outside)))
        elif config.pattern == "reduction":
            removed, added = rng.sample(inside, min(m, len(inside) - 1)), []
        else:
            c = min(m, len(inside), len(outside))
            removed = rng.sample(inside, c)
            added = rng.sample(outside, c)
        current = (current - set(removed)) | set(added)
        subsets.append(current)
    return tuple(tuple(pool[i] for i in sorted(s)) for s in subsets)


def changes(subsets: Sequence[Sequence[str]]) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """(A_t, R_t) for t = 1 … T recovered from consecutive subsets: added keys in S_t order, removed keys
    in S_{t−1} order."""
    out = []
    for prev, cur in zip(subsets, subsets[1:], strict=False):
        prev_set, cur_set = set(prev), set(cur)
        out.append((tuple(k for k in cur if k not in prev_set), tuple(k for k in prev if k not in cur_set)))
    return tuple(out)
