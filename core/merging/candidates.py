"""Candidate generation of ToolScopeMerger (ToolScope §3.2 tool indexing; Alg. 1 steps 2–4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SWEEP = tuple(round(0.77 + 0.01 * i, 2) for i in range(14))  # 0.77 … 0.90, the paper's sensitivity range


@dataclass(frozen=True)
class CandidatePair:
    i: int
    j: int
    cosine: float


def _unit(vectors: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    if x.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array, got shape {x.shape}")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


EXACT_LIMIT = 20_000  # above this many tools the neighbour search is approximate (IVF) unless told otherwise


def neighbours(vectors: np.ndarray, k: int = 30, *, exact: bool | None = None,
               nprobe: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Each tool's k nearest other tools by cosine (ToolScope §3.2 step 1, FAISS inner product over unit
    vectors). Exact (``IndexFlatIP``) up to :data:`EXACT_LIMIT` tools or when ``exact``; above it an inverted
    file over 4·√n k-means cells, searched in ``nprobe`` cells, which finds near-duplicates (they share a
    cell) at a fraction of the exhaustive scan's cost (bench/bench_merge.py prints its recall). The paper
    names FAISS but no index; the approximate index and its limit are our choice. Row i lists tool i itself
    too; callers drop it."""
    import faiss

    x = _unit(vectors)
    n, d = x.shape
    kk = min(k + 1, n)
    if exact if exact is not None else n <= EXACT_LIMIT:
        index = faiss.IndexFlatIP(d)
    else:
        nlist = max(1, int(4 * np.sqrt(n)))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.niter = 10
        index.cp.max_points_per_centroid = 32  # train on a sample: ≤ 32 points per cell
        index.cp.seed = 0
        index.train(x)
        index.nprobe = min(nprobe, nlist)
    index.add(x)
    sims, idx = index.search(x, kk)
    return sims, idx


def candidate_pairs(vectors: np.ndarray, k: int = 30, threshold: float = 0.82, *,
                    exact: bool | None = None) -> list[CandidatePair]:
    """ToolScope §3.2 step 1 (Alg. 1 steps 2–4): top-k neighbours of every tool, kept when cosine ≥ θ; each
    unordered pair once (i < j), sorted by cosine, highest first. ``exact`` as in :func:`neighbours`."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not -1.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a cosine in [-1, 1], got {threshold}")
    if len(vectors) < 2:
        return []
    sims, idx = neighbours(vectors, k, exact=exact)
    best: dict[tuple[int, int], float] = {}
    rows, cols = np.nonzero(sims >= threshold)
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        j = int(idx[r, c])
        if j < 0 or j == r:
            continue
        pair = (r, j) if r < j else (j, r)
        best[pair] = max(best.get(pair, -1.0), float(sims[r, c]))
    return sorted((CandidatePair(i, j, round(s, 6)) for (i, j), s in best.items()),
                  key=lambda p: (-p.cosine, p.i, p.j))


@dataclass(frozen=True)
class SweepRow:
    threshold: float
    pairs: int
    clusters: int
    tools_in_clusters: int
    size_after: int

    @property
    def n_pairs(self) -> int:
        return self.pairs

    @property
    def n_clusters(self) -> int:
        return self.clusters

    @property
    def n_tools_in_clusters(self) -> int:
        return self.tools_in_clusters


def threshold_sweep(vectors: np.ndarray, thresholds: Sequence[float] = SWEEP, k: int = 30) -> list[SweepRow]:
    """The θ range of ToolScope §4.4 / Fig. 4 on the candidate graph alone (every candidate counted as a
    merge): how many pairs, clusters and tools each θ would put up for review. The paper's sweep scores CSR
    after whole merges; these counts are our definition."""
    n = len(vectors)
    if n < 2:
        return [SweepRow(float(t), 0, 0, 0, n) for t in thresholds]
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    sims, idx = neighbours(vectors, k)
    rows_of = np.repeat(np.arange(n), idx.shape[1]).reshape(idx.shape)
    out = []
    for t in thresholds:
        # array work instead of a Python loop over every neighbour entry (1.2M of them at 40k tools)
        keep = (sims >= t) & (idx >= 0) & (idx != rows_of)
        a, b = rows_of[keep], idx[keep].astype(np.int64)
        pairs = np.unique(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1), axis=0) if len(a) else \
            np.zeros((0, 2), dtype=np.int64)
        graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        _, labels = connected_components(graph, directed=False)
        sizes = np.bincount(labels)
        groups = int((sizes > 1).sum())
        inside = int(sizes[sizes > 1].sum())
        out.append(SweepRow(float(t), len(pairs), groups, inside, n - inside + groups))
    return out
