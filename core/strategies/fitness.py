"""Fitness of pseudo-tool descriptions (FitText Eqs. 7, 15, 18).

One departure, switchable (``anchor_weight``: 0.5 by default in the memetic strategies, 0 turns it off):
Eq. 7's retrieval term measures how close the tools a description retrieves are to *the description*, so a description that drifts toward any dense
cluster of tools scores well whatever the request. With ``anchor_weight = λ > 0`` the retrieval term is
``(1 − λ)·s_ret(d, R) + λ·s_ret(a, R)``: the same top-1 / top-3 formula over the similarities of the
retrieved tools to the lineage's *ancestor* a (the request's pseudo-tool), so fitness also asks whether
what d found still fits what was asked (our definition).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from core.metrics import ndcg_at_k, recall_at_k
from core.strategies.base import RetrievalResult, TraceEvent

CROWD_THRESHOLD = 0.85
ANCHOR_WEIGHT = 0.5  # λ of the anchored retrieval term (module doc); 0 is FitText Eq. 7 as written


def retrieval_score(similarities: Sequence[float]) -> float:
    """``s_ret = 0.7·σ1 + 0.3·mean(σ top-3)`` from the similarities of a retrieval, best first (FitText Eq. 7)."""
    sims = sorted((float(s) for s in similarities), reverse=True)
    if not sims:
        return 0.0
    return 0.7 * sims[0] + 0.3 * (sum(sims[:3]) / len(sims[:3]))


def retrieval_term(similarities: Sequence[float], anchor_similarities: Sequence[float] = (),
                   anchor_weight: float = 0.0) -> tuple[float, float, float]:
    """The retrieval term of Eqs. 7 and 15 with the anchored score blended in (module doc): returns
    ``(term, s_ret(d, R), s_ret(a, R))`` where ``term = (1 − λ)·s_ret(d, R) + λ·s_ret(a, R)``, which is plain
    ``s_ret`` (FitText Eq. 7) at λ = 0."""
    if not 0.0 <= anchor_weight <= 1.0:
        raise ValueError(f"anchor_weight must lie in [0, 1], got {anchor_weight}")
    own = retrieval_score(similarities)
    anchored = retrieval_score(anchor_similarities) if anchor_similarities else 0.0
    if anchor_weight == 0.0:
        return own, own, anchored
    return (1.0 - anchor_weight) * own + anchor_weight * anchored, own, anchored


@dataclass(frozen=True)
class FitnessV1:
    s_ret: float  # FitText's s_ret(d, R)
    mem: float
    f: float
    s_anchor: float = 0.0  # s_ret(a, R), counted in f with weight λ (module doc)


def fitness_v1(similarities: Sequence[float], memory_penalty: float, anchor_similarities: Sequence[float] = (),
               anchor_weight: float = 0.0) -> FitnessV1:
    """FitText Eq. 7: ``f = s_ret − 0.5 · max_j J(R, M_j)·1[J > 0.3]`` (the penalty comes from ToolMemory.penalty_v1);
    with ``anchor_weight`` λ > 0, ``s_ret`` in f becomes ``(1 − λ)·s_ret + λ·s_anchor`` (module doc)."""
    term, own, anchored = retrieval_term(similarities, anchor_similarities, anchor_weight)
    return FitnessV1(own, memory_penalty, term - 0.5 * memory_penalty, anchored)


@dataclass(frozen=True)
class FitnessV2:
    s_ret: float  # FitText's s_ret(d, R)
    llm_score: float
    mem: float
    crowd: float
    f: float
    s_anchor: float = 0.0  # s_ret(a, R), counted in f with weight λ (module doc)


def fitness_v2(
    similarities: Sequence[float],
    llm_score: float,
    memory_penalty: float,
    crowd: float,
    weights: tuple[float, float, float, float] = (0.5, 0.3, 0.2, 1.0),
    anchor_similarities: Sequence[float] = (),
    anchor_weight: float = 0.0,
) -> FitnessV2:
    """FitText Eq. 15: ``f2 = α·s_ret + β·LLM_score − γ·mem − δ·crowd`` with (α, β, γ, δ) = (0.5, 0.3, 0.2, 1.0)
    in the paper; with ``anchor_weight`` λ > 0, ``s_ret`` in f2 becomes ``(1 − λ)·s_ret + λ·s_anchor``
    (module doc)."""
    a, b, g, d = weights
    term, own, anchored = retrieval_term(similarities, anchor_similarities, anchor_weight)
    return FitnessV2(own, llm_score, memory_penalty, crowd, a * term + b * llm_score - g * memory_penalty - d * crowd,
                     anchored)


def crowding(vectors: np.ndarray, threshold: float = CROWD_THRESHOLD) -> np.ndarray:
    """FitText Eq. 18: per member, the share of the other members with cosine > θ_c (0 when N = 1)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    n = len(vectors)
    if n <= 1:
        return np.zeros(n, dtype=np.float32)
    sims = vectors @ vectors.T
    close = (sims > threshold).astype(np.float32)
    np.fill_diagonal(close, 0.0)
    return close.sum(axis=1) / (n - 1)


def temperature_v2(generation: int, base: float = 1.5) -> float:
    """FitText Eq. 16: ``T_g = max(T_b − 0.4, T_b + 0.1 − 0.15·g)``."""
    return max(base - 0.4, base + 0.1 - 0.15 * generation)


def crossover_probability(generation: int) -> float:
    """FitText Eq. 20: ``p_cross(g) = max(0.4, 0.6 − 0.1·g)``."""
    return max(0.4, 0.6 - 0.1 * generation)


# -- fitness against the truth (our addition: FitText reports no per-member quality) ---------------------------

TRUTH_FIELDS = ("ndcg", "recall")


def _events(trace: Iterable[Any]) -> list[tuple[str, dict[str, Any]]]:
    """A trace as (kind, data) pairs, whether it holds :class:`TraceEvent`s or stored dicts."""
    out = []
    for e in trace:
        if isinstance(e, TraceEvent):
            out.append((e.kind, e.data))
        else:
            out.append((e["kind"], {k: v for k, v in e.items() if k != "kind"}))
    return out


def member_keys(trace: Iterable[Any]) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Each fitness event of a trace with the tools its member retrieved: the event's own ``keys``, or, in traces
    stored before events carried them, the retrieval event of the same ancestor and generation in the same
    position (members are retrieved, then scored, in one order)."""
    events = _events(trace)
    retrieved: dict[tuple[Any, Any], list[tuple[str, ...]]] = {}
    for kind, d in events:
        if kind == "retrieval" and "generation" in d and "ancestor" in d:
            retrieved.setdefault((d["ancestor"], d["generation"]), []).append(tuple(d.get("keys", ())))
    seen: dict[tuple[Any, Any], int] = {}
    out = []
    for kind, d in events:
        if kind != "fitness":
            continue
        group = (d.get("ancestor", 0), d.get("generation"))
        i = seen.get(group, 0)
        seen[group] = i + 1
        keys = d.get("keys")
        if keys is None:
            found = retrieved.get(group, [])
            keys = found[i] if i < len(found) else ()
        out.append((d, tuple(keys)))
    return out


def with_truth(result: RetrievalResult, gold: Collection[str], k: int) -> RetrievalResult:
    """``result`` with each fitness event given its member's true quality against ``gold``: ``ndcg`` and
    ``recall`` at ``k`` of the tools the member retrieved (our addition, for reading fitness against the
    truth). The strategy never sees the gold: this runs on its finished trace. Unchanged without gold."""
    if not gold or not any(e.kind == "fitness" for e in result.trace):
        return result
    truth = iter([(ndcg_at_k(keys, gold, k), recall_at_k(keys, gold, k)) for _, keys in member_keys(result.trace)])
    trace = []
    for e in result.trace:
        if e.kind == "fitness":
            nd, rc = next(truth)
            e = TraceEvent(e.kind, {**e.data, "ndcg": round(nd, 6), "recall": round(rc, 6)})
        trace.append(e)
    return replace(result, trace=tuple(trace))


@dataclass(frozen=True)
class FitnessTruth:
    """How well fitness ranks members the way the truth does (our measure): Spearman's ρ between each scored
    member's fitness and its nDCG@k against gold, within each query (``spearman``: the mean over queries where
    both vary, ``queries`` of them), and over all members of all queries pooled (``pooled``; NaN when the
    truth never varies). ``members`` counts the (member, generation) evaluations read."""

    spearman: float
    queries: int
    pooled: float
    members: int

    def as_measures(self) -> dict[str, float | int | None]:
        """For a run's stored measures (NaN stored as None)."""
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)
        return {"fitness_truth_spearman": num(self.spearman), "fitness_truth_queries": self.queries,
                "fitness_truth_spearman_pooled": num(self.pooled), "fitness_truth_members": self.members}


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ of two paired samples (scipy); NaN when either never varies."""
    if len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return float(spearmanr(x, y).statistic)


def fitness_truth(queries: Iterable[tuple[Iterable[Any], Collection[str]]], k: int) -> FitnessTruth | None:
    """:class:`FitnessTruth` over (trace, gold) pairs, one per query with gold labels; None when no trace
    holds a fitness event (a strategy without fitness)."""
    per_query: list[float] = []
    fs: list[float] = []
    truths: list[float] = []
    for trace, gold in queries:
        if not gold:
            continue
        pairs = [(float(d["f"]), ndcg_at_k(keys, gold, k)) for d, keys in member_keys(trace)]
        if not pairs:
            continue
        qf, qt = [p[0] for p in pairs], [p[1] for p in pairs]
        fs += qf
        truths += qt
        rho = spearman(qf, qt)
        if not math.isnan(rho):
            per_query.append(rho)
    if not fs:
        return None
    mean = sum(per_query) / len(per_query) if per_query else math.nan
    return FitnessTruth(mean, len(per_query), spearman(fs, truths), len(fs))
