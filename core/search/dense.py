"""Dense retrieval: FAISS inner product over L2-normalised vectors (exact cosine).

Above ``hnsw_threshold`` vectors an HNSW graph answers top-k queries approximately;
full score vectors (needed for hybrid min-max normalisation) always use one exact
matrix product.
"""

from __future__ import annotations

import numpy as np

HNSW_THRESHOLD = 100_000  # below this an exact scan is affordable; bench/bench_index.py measures both


class DenseIndex:
    def __init__(self, vectors: np.ndarray, *, hnsw_threshold: int = HNSW_THRESHOLD) -> None:
        import faiss

        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = self.vectors.shape if self.vectors.ndim == 2 else (0, 0)
        self.dim = dim
        if n >= hnsw_threshold:
            index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efSearch = 128
            self.approximate = True
        else:
            index = faiss.IndexFlatIP(max(dim, 1))
            self.approximate = False
        if n:
            index.add(self.vectors)
        self._index = index

    def __len__(self) -> int:
        return int(self.vectors.shape[0]) if self.vectors.ndim == 2 else 0

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, indices) per query row; indices are -1 where fewer than k exist."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        k = max(1, min(k, len(self))) if len(self) else 1
        if not len(self):
            return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
        scores, idx = self._index.search(queries, k)
        return scores, idx

    def scores(self, queries: np.ndarray) -> np.ndarray:
        """Cosine similarity of every query row to every vector: shape (n_queries, n)."""
        queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if not len(self):
            return np.zeros((len(queries), 0), np.float32)
        return queries @ self.vectors.T
