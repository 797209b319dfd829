"""The search engine over one catalog: dense, BM25, hybrid and RRF, single or batched."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.embedding import Embedder, VectorCache, encode_cached
from core.models import Tool, tool_text
from core.search.bm25 import BM25Index
from core.search.dense import DenseIndex
from core.search.fusion import hybrid, reciprocal_rank_fusion
from core.search.rerank import TOP_M, Reranker

MODES = ("dense", "bm25", "hybrid", "rrf")
RRF_DEPTH = 100


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}; valid modes: {', '.join(MODES)}")
    return mode


@dataclass(frozen=True)
class Hit:
    key: str
    score: float
    rank: int
    dense: float | None = None
    sparse: float | None = None
    rerank: float | None = None


@dataclass(frozen=True)
class SearchResult:
    query: str
    mode: str
    alpha: float
    hits: tuple[Hit, ...]
    seconds: float = 0.0
    reranked: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(h.key for h in self.hits)


class SearchEngine:
    """Indexes one list of tools. Build with :meth:`build` to go through the embedding cache."""

    def __init__(
        self,
        tools: Sequence[Tool],
        vectors: np.ndarray,
        embedder: Embedder,
        *,
        texts: Sequence[str] | None = None,
        cache: VectorCache | None = None,
        reranker: Reranker | None = None,
        with_parameters: bool = True,
    ) -> None:
        self.tools = tuple(tools)
        self.with_parameters = bool(with_parameters)  # how texts were made; engines built from this one follow it
        self.texts = (tuple(texts) if texts is not None
                      else tuple(tool_text(t, with_parameters=self.with_parameters) for t in self.tools))
        if len(self.texts) != len(self.tools) or len(vectors) != len(self.tools):
            raise ValueError(f"{len(self.tools)} tools, {len(self.texts)} texts and {len(vectors)} vectors differ")
        self.embedder = embedder
        self.cache = cache
        self.reranker = reranker
        self.dense = DenseIndex(vectors)
        self._bm25: BM25Index | None = None
        self._scratch = BoundedVectorCache()
        self.key_to_index = {t.key: i for i, t in enumerate(self.tools)}

    @classmethod
    def build(
        cls,
        tools: Sequence[Tool],
        embedder: Embedder,
        *,
        cache: VectorCache | None = None,
        reranker: Reranker | None = None,
        with_parameters: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> SearchEngine:
        texts = [tool_text(t, with_parameters=with_parameters) for t in tools]
        vectors, _ = encode_cached(embedder, texts, cache, progress=progress)
        return cls(tools, vectors, embedder, texts=texts, cache=cache, reranker=reranker,
                   with_parameters=with_parameters)

    @property
    def vectors(self) -> np.ndarray:
        return self.dense.vectors

    @property
    def bm25(self) -> BM25Index:
        if self._bm25 is None:
            self._bm25 = BM25Index(self.texts)
        return self._bm25

    def embed(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        """Vectors for ``texts``. With ``persist=False`` (pseudo-tool descriptions, which are
        many and short-lived) a bounded in-process cache replaces the store, so a strategy's
        inner loop never writes to the database."""
        if persist:
            vectors, _ = encode_cached(self.embedder, texts, self.cache)
            return vectors
        vectors, _ = encode_cached(self.embedder, texts, self._scratch)
        return vectors

    def search(self, query: str, k: int = 10, *, mode: str = "dense", alpha: float = 1.0, rerank: bool = False,
               persist: bool = True) -> SearchResult:
        return self.search_batch([query], k, mode=mode, alpha=alpha, rerank=rerank, persist=persist)[0]

    def search_batch(
        self, queries: Sequence[str], k: int = 10, *, mode: str = "dense", alpha: float = 1.0, rerank: bool = False,
        persist: bool = True,
    ) -> list[SearchResult]:
        """Search many queries at once; query embedding is one batched call. ``persist=False`` keeps the
        query vectors out of the store (typed-in searches: one-offs that would only grow the cache)."""
        check_mode(mode)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if rerank and self.reranker is None:
            raise ValueError("rerank requested but no reranker is configured")
        start = time.perf_counter()
        qvecs = self.embed(queries, persist=persist) if mode != "bm25" and queries else None
        results = []
        depth = max(k, TOP_M) if rerank else k
        for i, query in enumerate(queries):
            t0 = time.perf_counter()
            hits = self._rank(query, None if qvecs is None else qvecs[i], depth, mode, alpha)
            if rerank:
                hits = self._rerank(query, hits)
            hits = hits[:k]
            per = time.perf_counter() - t0
            results.append(SearchResult(query, mode, alpha, tuple(hits), per, rerank))
        if results and qvecs is not None:
            # Spread the shared embedding cost so per-query times add up to the batch time.
            share = (time.perf_counter() - start - sum(r.seconds for r in results)) / len(results)
            results = [SearchResult(r.query, r.mode, r.alpha, r.hits, r.seconds + max(share, 0.0), r.reranked) for r in results]
        return results

    def search_vector(self, qvec: np.ndarray, k: int) -> tuple[tuple[str, ...], tuple[float, ...]]:
        """Dense top-k for an already-embedded text (strategies embed pseudo-tools themselves)."""
        scores, idx = self.dense.search(qvec, k)
        pairs = [(self.tools[j].key, float(s)) for s, j in zip(scores[0], idx[0], strict=True) if j >= 0]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)

    def _rank(self, query: str, qvec: np.ndarray | None, k: int, mode: str, alpha: float) -> list[Hit]:
        n = len(self.tools)
        if n == 0:
            return []
        if mode == "dense":
            scores, idx = self.dense.search(qvec, k)
            return [
                Hit(self.tools[j].key, float(s), r, dense=float(s))
                for r, (s, j) in enumerate(zip(scores[0], idx[0], strict=True), start=1)
                if j >= 0
            ]
        sparse = self.bm25.scores(query)
        if mode == "bm25":
            order = _top(sparse, k)
            return [Hit(self.tools[j].key, float(sparse[j]), r, sparse=float(sparse[j])) for r, j in enumerate(order, 1)]
        dense = self.dense.scores(qvec)[0]
        if mode == "hybrid":
            fused = hybrid(dense, sparse, alpha)
        else:
            fused = reciprocal_rank_fusion([_top(dense, RRF_DEPTH), _top(sparse, RRF_DEPTH)], n)
        order = _top(fused, k)
        return [
            Hit(self.tools[j].key, float(fused[j]), r, dense=float(dense[j]), sparse=float(sparse[j]))
            for r, j in enumerate(order, 1)
        ]

    def _rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        texts = [self.texts[self.key_to_index[h.key]] for h in hits]
        scores = self.reranker.score(query, texts)
        order = np.argsort(-scores, kind="stable")
        return [
            Hit(hits[j].key, float(scores[j]), r, hits[j].dense, hits[j].sparse, rerank=float(scores[j]))
            for r, j in enumerate(order, 1)
        ]


class BoundedVectorCache:
    """An in-memory :class:`VectorCache` that forgets its oldest entries beyond ``limit``."""

    def __init__(self, limit: int = 50_000) -> None:
        import threading
        from collections import OrderedDict

        self.limit = limit
        self._data: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, model_id, hashes):
        with self._lock:
            return {h: self._data[(model_id, h)] for h in hashes if (model_id, h) in self._data}

    def put_many(self, model_id, vectors):
        with self._lock:
            for h, v in vectors.items():
                self._data[(model_id, h)] = v
            while len(self._data) > self.limit:
                self._data.popitem(last=False)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best scores, best first; ties keep catalog order (stable)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(scores):
        part = np.argpartition(-scores, k - 1)[:k]
        # re-sort the candidates; include every tie with the k-th score for stability
        kth = scores[part].min()
        cand = np.flatnonzero(scores >= kth)
    else:
        cand = np.arange(len(scores))
    order = cand[np.lexsort((cand, -scores[cand]))]
    return order[:k]
