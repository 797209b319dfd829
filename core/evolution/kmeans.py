"""Size-constrained k-means with cosine distance (CONTDA Eq. 11, App. A.6): Stage II groups tools into
clusters no larger than λ so that one cluster's documentation fits an LLM prompt.

The capacity is honoured in the assignment step by a greedy matching: (point, centroid) pairs are taken
nearest first, a pair being kept while the point is still free and the centroid still has room. That
greedy matching is computed here as a vectorised deferred acceptance (points propose to their nearest
centroids in order, each centroid holds its closest proposers up to the cap): with all pairs ranked by
(distance, point, centroid) both sides share one ranking, so the stable matching is unique and equals
the greedy one, but numpy does the work in a few rounds instead of a Python loop over n·K pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# Above this many (point, centroid) pairs each point only considers its nearest few centroids, which
# keeps the candidate matrices around a few hundred MB at most.
_FULL_PAIRS_LIMIT = 20_000_000
_CANDIDATES = 32


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    # zero rows stay zero: equally far (distance 1) from every centroid rather than NaN
    return x / np.where(norms > 0, norms, 1.0)


def _init_centroids(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding on the unit sphere; sampling ∝ (1 − cos) is sampling ∝ squared Euclidean
    distance, since ‖a − b‖² = 2(1 − cos) for unit vectors."""
    n = x.shape[0]
    chosen = [int(rng.integers(n))]
    nearest = np.clip(1.0 - x @ x[chosen[0]], 0.0, None)
    for _ in range(1, k):
        total = float(nearest.sum())
        if total > 0:
            # inverse-CDF draw: the same distribution as rng.choice(p=…), without its O(n) checks per call
            idx = min(int(np.searchsorted(np.cumsum(nearest), rng.random() * total, side="right")), n - 1)
        else:
            # every point coincides with a chosen centre (duplicates): any unused row will do
            unused = np.setdiff1d(np.arange(n), chosen)
            idx = int(rng.choice(unused))
        chosen.append(idx)
        nearest = np.minimum(nearest, np.clip(1.0 - x @ x[idx], 0.0, None))
    return x[chosen].copy()


def _candidates(dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's centroids nearest first (ties by centroid index) and their distances."""
    n, k = dist.shape
    if n * k <= _FULL_PAIRS_LIMIT or k <= _CANDIDATES:
        order = np.argsort(dist, axis=1, kind="stable")
    else:
        part = np.argpartition(dist, _CANDIDATES - 1, axis=1)[:, :_CANDIDATES]
        part.sort(axis=1)  # by centroid index first, so the stable sort below breaks ties by index
        order = np.take_along_axis(part, np.argsort(np.take_along_axis(dist, part, axis=1), axis=1,
                                                    kind="stable"), axis=1)
    return order, np.take_along_axis(dist, order, axis=1)


def _assign(dist: np.ndarray, max_size: int) -> np.ndarray:
    """Capacity-respecting greedy assignment of every row of ``dist`` (n × K) to a column."""
    n, k = dist.shape
    cand, cand_d = _candidates(dist)
    width = cand.shape[1]
    label = np.full(n, -1, dtype=np.int64)
    ptr = np.zeros(n, dtype=np.int64)  # next candidate to propose to; a held point sits at ptr - 1
    free = np.arange(n)
    leftovers: list[np.ndarray] = []
    touched = np.zeros(k, dtype=bool)
    while free.size:
        done = ptr[free] >= width
        if done.any():
            leftovers.append(free[done])
            free = free[~done]
            if not free.size:
                break
        prop = cand[free, ptr[free]]
        ptr[free] += 1
        touched[:] = False
        touched[prop] = True
        held = np.flatnonzero(label >= 0)
        held = held[touched[label[held]]]
        pts = np.concatenate([held, free])
        cls = np.concatenate([label[held], prop])
        d = cand_d[pts, ptr[pts] - 1]
        order = np.lexsort((pts, d, cls))
        pts, cls = pts[order], cls[order]
        starts = np.searchsorted(cls, cls, side="left")
        keep = (np.arange(cls.size) - starts) < max_size
        label[pts[keep]] = cls[keep]
        label[pts[~keep]] = -1
        free = np.sort(pts[~keep])

    if leftovers:
        # only reachable with truncated candidate lists: place the rest in the nearest column with room
        rest = np.sort(np.concatenate(leftovers))
        room = max_size - np.bincount(label[label >= 0], minlength=k)
        waiting = rest.size
        for flat in np.argsort(dist[rest].ravel(), kind="stable"):
            i, j = divmod(int(flat), k)
            p = rest[i]
            if label[p] < 0 and room[j] > 0:
                label[p] = j
                room[j] -= 1
                waiting -= 1
                if not waiting:
                    break
    return label


def _compact(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0 … K'−1 in order of first appearance, so unused clusters leave no gaps."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.ravel()]


def _extend_centroids(x: np.ndarray, start: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ continued from given centres: the remaining k − len(start) are drawn ∝ distance to the
    nearest centre so far."""
    centres = [c for c in start[:k]]
    nearest = np.clip(1.0 - np.max(x @ np.asarray(centres).T, axis=1), 0.0, None)
    while len(centres) < k:
        total = float(nearest.sum())
        if total > 0:
            idx = min(int(np.searchsorted(np.cumsum(nearest), rng.random() * total, side="right")), len(x) - 1)
        else:
            idx = int(rng.integers(len(x)))
        centres.append(x[idx])
        nearest = np.minimum(nearest, np.clip(1.0 - x @ x[idx], 0.0, None))
    return np.asarray(centres, dtype=x.dtype)


def constrained_kmeans(vectors: np.ndarray, max_size: int, *, n_clusters: int | None = None, seed: int = 0,
                       iterations: int = 25, init_groups: Sequence[Sequence[int]] | None = None) -> np.ndarray:
    """CONTDA Eq. 11 (App. A.6): k-means under cosine distance with every cluster holding at most
    ``max_size`` (λ) rows. Returns one label per row, 0 … K'−1 with no empty cluster.

    ``n_clusters`` defaults to min(n, ⌈2n / λ⌉), so clusters hold about λ/2 rows on average and the cap
    leaves slack (our definition: the paper does not say how K is chosen). The assignment is greedy (nearest pairs first), not the exact min-cost flow of
    Bradley et al. (2000); the cap holds after every iteration either way.

    ``init_groups`` (row indices of earlier clusters) seed the first centres at those groups' means, so a
    toolset that changed a little keeps most of its clusters instead of being re-drawn from scratch.
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"vectors: expected a 2-D array (rows x dims), got shape {x.shape}")
    if max_size < 1:
        raise ValueError(f"max_size: must be >= 1, got {max_size}")
    if n_clusters is not None and n_clusters < 1:
        raise ValueError(f"n_clusters: must be >= 1, got {n_clusters}")
    if iterations < 1:
        raise ValueError(f"iterations: must be >= 1, got {iterations}")
    n = x.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    k = n_clusters if n_clusters is not None else min(n, math.ceil(2 * n / max_size))
    if k * max_size < n:
        raise ValueError(f"n_clusters={k} x max_size={max_size} cannot hold {n} rows")
    # more centres than rows cannot all be seeded; the surplus would only end up empty anyway
    k = min(k, n)

    x = _normalise(x)
    rng = np.random.default_rng(seed)
    groups = [list(g) for g in (init_groups or ()) if len(g)]
    if groups:
        bad = [i for g in groups for i in g if not 0 <= i < n]
        if bad:
            raise ValueError(f"init_groups: row index {bad[0]} is outside 0..{n - 1}")
        centroids = _extend_centroids(x, _normalise(np.stack([x[g].mean(axis=0) for g in groups])), k, rng)
    else:
        centroids = _init_centroids(x, k, rng)
    labels = np.full(n, -1, dtype=np.int64)
    for _ in range(iterations):
        new = _assign(1.0 - x @ centroids.T, max_size)
        if np.array_equal(new, labels):
            break
        labels = new
        sums = np.zeros_like(centroids)
        np.add.at(sums, labels, x)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        # an empty cluster, or one whose members cancel out, keeps its old centre
        centroids = np.where(norms > 0, sums / np.where(norms > 0, norms, 1.0), centroids)
    return _compact(labels)
