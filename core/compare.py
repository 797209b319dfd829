"""Comparing scored runs: a paired significance test of one metric over the queries two runs share.

The test and the interval are scipy's: a paired permutation test (``scipy.stats.permutation_test`` with
``permutation_type="samples"``: each query's two scores are swapped or not, a sign flip of its difference;
exact when 2^n is within the resamples) and a percentile bootstrap of the mean difference
(``scipy.stats.bootstrap``). Seeded, so the same runs give the same numbers every time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.scoring import Report

MIN_QUERIES_FOR_TEST = 10


@dataclass(frozen=True)
class PairedTest:
    baseline: str
    other: str
    metric: str
    n: int
    mean_difference: float  # other − baseline
    ci_low: float
    ci_high: float
    p_value: float
    wins: int
    ties: int
    losses: int


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(y - x, axis=axis)


def paired_test(a: Report, b: Report, metric: str, *, resamples: int = 10_000, seed: int = 0,
                confidence: float = 0.95) -> PairedTest | None:
    """Two-sided paired permutation test of ``metric`` (b − a) and a bootstrap ``confidence`` interval of the
    mean difference, over the queries both runs answered; None below 10 shared queries."""
    in_b = dict(zip(b.query_ids, b.values(metric), strict=True))
    pairs = [(x, in_b[q]) for q, x in zip(a.query_ids, a.values(metric), strict=True) if q in in_b]
    return paired_values(pairs, a.label, b.label, a.metric(metric).label, resamples=resamples, seed=seed,
                         confidence=confidence)


def paired_values(pairs, baseline: str, other: str, metric: str, *, resamples: int = 10_000, seed: int = 0,
                  confidence: float = 0.95, minimum: int = MIN_QUERIES_FOR_TEST) -> PairedTest | None:
    """The test of :func:`paired_test` over already paired ``(baseline, other)`` values (any unit: queries,
    or a timeline's (seed, step) cells); None below ``minimum`` pairs."""
    from scipy.stats import bootstrap, permutation_test  # about a second to import: only when a test is asked

    if len(pairs) < minimum:
        return None
    x, y = (np.array(side, dtype=np.float64) for side in zip(*pairs, strict=True))
    d = y - x
    perm = permutation_test((x, y), _mean_difference, permutation_type="samples", vectorized=True,
                            n_resamples=resamples, alternative="two-sided", rng=np.random.default_rng(seed))
    boot = bootstrap((d,), np.mean, n_resamples=resamples, confidence_level=confidence, method="percentile",
                     vectorized=True, rng=np.random.default_rng(seed))
    return PairedTest(baseline, other, metric, len(d), float(d.mean()),
                      float(boot.confidence_interval.low), float(boot.confidence_interval.high),
                      min(float(perm.pvalue), 1.0), int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0)))
