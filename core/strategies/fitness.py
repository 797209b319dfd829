"""Fitness of pseudo-tool descriptions (FitText Eqs. 7, 15, 18)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CROWD_THRESHOLD = 0.85


def retrieval_score(similarities: Sequence[float]) -> float:
    """``s_ret = 0.7·σ1 + 0.3·mean(σ top-3)`` from the similarities of a retrieval, best first (FitText Eq. 7)."""
    sims = sorted((float(s) for s in similarities), reverse=True)
    if not sims:
        return 0.0
    return 0.7 * sims[0] + 0.3 * (sum(sims[:3]) / len(sims[:3]))


@dataclass(frozen=True)
class FitnessV1:
    s_ret: float
    mem: float
    f: float


def fitness_v1(similarities: Sequence[float], memory_penalty: float) -> FitnessV1:
    """FitText Eq. 7: ``f = s_ret − 0.5 · max_j J(R, M_j)·1[J > 0.3]`` (the penalty comes from ToolMemory.penalty_v1)."""
    s = retrieval_score(similarities)
    return FitnessV1(s, memory_penalty, s - 0.5 * memory_penalty)


@dataclass(frozen=True)
class FitnessV2:
    s_ret: float
    llm_score: float
    mem: float
    crowd: float
    f: float


def fitness_v2(
    similarities: Sequence[float],
    llm_score: float,
    memory_penalty: float,
    crowd: float,
    weights: tuple[float, float, float, float] = (0.5, 0.3, 0.2, 1.0),
) -> FitnessV2:
    """FitText Eq. 15: ``f2 = α·s_ret + β·LLM_score − γ·mem − δ·crowd`` with (α, β, γ, δ) = (0.5, 0.3, 0.2, 1.0)."""
    a, b, g, d = weights
    s = retrieval_score(similarities)
    return FitnessV2(s, llm_score, memory_penalty, crowd, a * s + b * llm_score - g * memory_penalty - d * crowd)


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
