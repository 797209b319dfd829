"""Success, Forget, Discover and AvgPerf over an evolving toolset (CONTDA Eqs. 3–5, App. B.3 Eqs. 13–16)
from binary judgments E(q, r_t), plus the mean ± standard error used to summarise runs over seeds.

Outcomes are given per step as one boolean per query, the queries in the same order at every step:
Forget and Discover compare the same query across two steps, so the alignment is what they rely on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def success_rate(outcomes: Sequence[bool]) -> float:
    """CONTDA Eq. 13 (App. B.3): SuccessRate_t, the share of queries judged solved at step t."""
    if len(outcomes) == 0:
        raise ValueError("outcomes: no queries to take a success rate over")
    return sum(1 for o in outcomes if o) / len(outcomes)


def _aligned(prev: Sequence[bool], cur: Sequence[bool]) -> None:
    if len(prev) != len(cur):
        raise ValueError(f"prev/cur: outcome lists differ in length ({len(prev)} vs {len(cur)}); "
                         "both steps must judge the same queries in the same order")
    if len(prev) == 0:
        raise ValueError("prev/cur: no queries to compare")


def forget(prev: Sequence[bool], cur: Sequence[bool]) -> float:
    """CONTDA Eq. 4 / Eq. 14: Forget_t, the share of queries solved at t−1 but not at t."""
    _aligned(prev, cur)
    return sum(1 for p, c in zip(prev, cur, strict=True) if p and not c) / len(prev)


def discover(prev: Sequence[bool], cur: Sequence[bool]) -> float:
    """CONTDA Eq. 5 / Eq. 15: Discover_t, the share of queries not solved at t−1 but solved at t."""
    _aligned(prev, cur)
    return sum(1 for p, c in zip(prev, cur, strict=True) if c and not p) / len(prev)


def avg_perf(rates: Sequence[float]) -> float:
    """CONTDA Eq. 3 / Eq. 16: AvgPerf, the mean of SuccessRate_t over t = 0 … T."""
    if len(rates) == 0:
        raise ValueError("rates: no steps to average over")
    return sum(rates) / len(rates)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True)
class SeriesMetrics:
    """All metrics of one run: per-step series and their summaries."""

    success: tuple[float, ...]
    forget: tuple[float, ...]
    discover: tuple[float, ...]
    avg_perf: float
    mean_forget: float
    mean_discover: float

    def to_json(self) -> dict[str, Any]:
        return {"success": list(self.success), "forget": list(self.forget), "discover": list(self.discover),
                "avg_perf": self.avg_perf, "mean_forget": self.mean_forget, "mean_discover": self.mean_discover}


def series_metrics(outcomes: Sequence[Sequence[bool]]) -> SeriesMetrics:
    """CONTDA Eqs. 13–16 (App. B.3) over ``outcomes[t][q]`` for t = 0 … T. Forget and Discover are
    averaged over t = 1 … T, as the paper reports them; with a single step both means are 0.0."""
    if len(outcomes) == 0:
        raise ValueError("outcomes: no steps")
    size = len(outcomes[0])
    for t, step in enumerate(outcomes):
        if len(step) != size:
            raise ValueError(f"outcomes[{t}]: {len(step)} queries, but step 0 has {size}")
    success = tuple(success_rate(step) for step in outcomes)
    pairs = list(zip(outcomes, outcomes[1:], strict=False))
    forgets = tuple(forget(p, c) for p, c in pairs)
    discovers = tuple(discover(p, c) for p, c in pairs)
    return SeriesMetrics(success, forgets, discovers, avg_perf(success), _mean(forgets), _mean(discovers))


@dataclass(frozen=True)
class MeanSE:
    """A mean with its standard error over ``n`` runs (e.g. the five Markov seeds of App. B.3)."""

    mean: float
    se: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "n": self.n}


def mean_se(values: Sequence[float]) -> MeanSE:
    """Mean and standard error (sample standard deviation, ddof = 1, over √n); a single value has no
    spread to estimate, so its error is reported as 0.0. The paper reports means over five seeds and
    standard deviations where relevant (App. B.3); the standard error is our choice."""
    n = len(values)
    if n == 0:
        raise ValueError("values: nothing to average")
    mean = sum(values) / n
    if n == 1:
        return MeanSE(float(mean), 0.0, 1)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return MeanSE(float(mean), math.sqrt(variance) / math.sqrt(n), n)
