"""Comparing evaluation runs: per-query scores side by side and paired significance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.metrics import score_query
from storage import runs as run_store

METRICS = ("recall", "ndcg", "precision", "comprehensiveness", "reciprocal_rank", "csr")
MIN_QUERIES_FOR_TEST = 10


@dataclass(frozen=True)
class RunScores:
    run_id: int
    label: str
    k: int
    query_ids: tuple[str, ...]
    scores: dict[str, np.ndarray]  # metric -> per-query values, aligned with query_ids
    rankings: dict[str, list[str]]
    gold: dict[str, list[str]]
    texts: dict[str, str]
    traces: dict[str, list[dict]]
    csr_stand_in: int = 0  # queries stored without a selection, whose CSR is the metrics' stand-in


def params_label(params) -> str:
    """A run's strategy parameters as one line, ``a=1, b=x`` in name order (empty: the defaults)."""
    return ", ".join(f"{a}={b}" for a, b in sorted(params.items()))


def load_run_scores(engine, run_id: int) -> RunScores:
    """A stored eval run's per-query scores. CSR@k (ToolScope Eq. 6) compares each item's stored
    ``"selected"`` keys with its gold set; items stored before selections were kept fall back to the
    metrics' stand-in (``core.metrics.gold_count_stand_in``), counted in ``csr_stand_in``."""
    info = next((r for r in run_store.list_runs(engine, limit=100_000) if r.id == run_id), None)
    if info is None:
        raise ValueError(f"no run with id {run_id}")
    k = int(info.config.get("k", 5))
    items = run_store.load_items(engine, run_id)
    qids = tuple(items)
    per = [score_query(q, items[q]["keys"], items[q]["gold"], k, selected=items[q].get("selected")) for q in qids]
    scores = {m: np.array([getattr(p, m) for p in per], dtype=np.float64) for m in METRICS}
    params = params_label(info.config.get("params", {}))
    label = f"#{run_id} {info.strategy}" + (f" ({params})" if params else "")
    return RunScores(run_id, label, k, qids, scores, {q: items[q]["keys"] for q in qids},
                     {q: items[q]["gold"] for q in qids}, {q: items[q].get("query", "") for q in qids},
                     {q: items[q].get("trace", []) for q in qids},
                     sum(1 for p in per if p.csr_source == "stand-in"))


@dataclass(frozen=True)
class PairedTest:
    baseline: str
    other: str
    metric: str
    n: int
    mean_difference: float
    ci_low: float
    ci_high: float
    p_value: float
    wins: int
    ties: int
    losses: int


def paired_test(a: RunScores, b: RunScores, metric: str, *, resamples: int = 10_000, seed: int = 0) -> PairedTest | None:
    """Two-sided paired sign-flip permutation test and a bootstrap 95 % interval of the mean
    difference (b − a) over the queries both runs answered; None below 10 shared queries."""
    shared = [q for q in a.query_ids if q in set(b.query_ids)]
    if len(shared) < MIN_QUERIES_FOR_TEST:
        return None
    ia = {q: i for i, q in enumerate(a.query_ids)}
    ib = {q: i for i, q in enumerate(b.query_ids)}
    d = np.array([b.scores[metric][ib[q]] - a.scores[metric][ia[q]] for q in shared])
    rng = np.random.default_rng(seed)
    observed = abs(d.mean())
    signs = rng.choice([-1.0, 1.0], size=(resamples, len(d)))
    p = (np.sum(np.abs((signs * d).mean(axis=1)) >= observed - 1e-12) + 1) / (resamples + 1)
    boots = d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return PairedTest(a.label, b.label, metric, len(d), float(d.mean()), float(lo), float(hi), float(p),
                      int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0)))


def summary_rows(runs: Sequence[RunScores]) -> list[dict]:
    return [{"run": r.label, "queries": len(r.query_ids), **{f"{m}@{r.k}" if m not in ("reciprocal_rank",) else "mrr":
                                                             float(r.scores[m].mean()) for m in METRICS}}
            for r in runs]
