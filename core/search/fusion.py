"""Score fusion: min-max normalisation, hybrid weighting, reciprocal-rank fusion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def minmax(scores: np.ndarray, eps: float = 0.0) -> np.ndarray:
    """Rescale one query's scores to [0, 1]; a constant vector maps to zeros.

    With ``eps > 0`` this is ToolScope Eq. 5 (``(s − min) / (max − min + ε)``).
    """
    scores = np.asarray(scores, dtype=np.float32)
    if scores.size == 0:
        return scores
    lo, hi = float(scores.min()), float(scores.max())
    span = hi - lo + eps
    if span <= 0:
        return np.zeros_like(scores)
    return (scores - lo) / span


def hybrid(dense: np.ndarray, sparse: np.ndarray, alpha: float) -> np.ndarray:
    """ToolScope Eq. 4: ``s = α·s_dense + (1 − α)·s_sparse``, each min-max normalised per query."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    return alpha * minmax(dense) + (1.0 - alpha) * minmax(sparse)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], n: int, k: float = 60.0) -> np.ndarray:
    """Reciprocal-rank fusion (Cormack et al., 2009): ``Σ 1 / (k + rank)`` over the rankings.

    ``rankings`` hold document indices best first; the result scores every one of ``n``
    documents (zero for documents no ranking lists).
    """
    fused = np.zeros(n, dtype=np.float32)
    for ranking in rankings:
        for rank, idx in enumerate(ranking, start=1):
            fused[idx] += 1.0 / (k + rank)
    return fused
