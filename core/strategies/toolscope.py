"""ToolScope retriever: hybrid search, optional cross-encoder rerank, query decomposition and
per-sub-query min-max merging (ToolScope §3.3, Eqs. 4–5)."""

from __future__ import annotations

import time
from typing import Any

from core.search.engine import SearchEngine
from core.search.fusion import minmax
from core.search.rerank import TOP_M
from core.strategies.base import RetrievalResult, TraceEvent, traced_intents


def merge_subqueries(rankings: list[list[tuple[str, float]]], k: int, eps: float = 1e-6) -> list[tuple[str, float]]:
    """ToolScope Eq. 5: keep each sub-query's top-1, min-max normalise the rest per sub-query
    (``(s − min) / (max − min + ε)``), then fill up to k from the normalised pool."""
    chosen: dict[str, float] = {}
    pool: dict[str, float] = {}
    for ranking in rankings:
        if not ranking:
            continue
        top_key, _ = ranking[0]
        chosen.setdefault(top_key, float("inf"))
        rest = ranking[1:]
        if rest:
            import numpy as np

            normed = minmax(np.array([s for _, s in rest], dtype=np.float32), eps=eps)
            for (key, _), s in zip(rest, normed, strict=True):
                pool[key] = max(pool.get(key, float("-inf")), float(s))
    ordered = [(key, 1.0 + 1e-3 * (len(chosen) - i)) for i, key in enumerate(chosen)]
    for key, s in sorted(pool.items(), key=lambda kv: -kv[1]):
        if len(ordered) >= k:
            break
        if key not in chosen:
            ordered.append((key, s))
    return ordered[:k]


class ToolScopeStrategy:
    name = "toolscope"

    def __init__(self, search_engine: SearchEngine, *, operators: Any = None, alpha: float = 1.0,
                 rerank: bool | None = None, decompose: bool = True, top_m: int = TOP_M, eps: float = 1e-6):
        if decompose and operators is None:
            raise ValueError("toolscope with decompose=true needs LLM operators (offline or an endpoint)")
        if not 0.0 <= float(alpha) <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
        self.engine = search_engine
        self.ops = operators
        self.alpha = float(alpha)
        self.rerank = (search_engine.reranker is not None) if rerank is None else bool(rerank)
        if self.rerank and search_engine.reranker is None:
            raise ValueError("rerank requested but no reranker is configured")
        self.decompose = bool(decompose)
        self.top_m = int(top_m)
        self.eps = float(eps)

    def retrieve(self, query: str, k: int) -> RetrievalResult:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        start = time.perf_counter()
        trace: list[TraceEvent] = []
        subqueries = traced_intents(self.ops, query, trace) if self.decompose else [query]
        depth = max(k, self.top_m) if self.rerank else max(k, self.top_m if len(subqueries) > 1 else k)
        results = self.engine.search_batch(subqueries, depth, mode="hybrid", alpha=self.alpha, rerank=self.rerank)
        rankings = []
        for sub, res in zip(subqueries, results, strict=True):
            rankings.append([(h.key, h.score) for h in res.hits])
            trace.append(TraceEvent("retrieval", {"text": sub, "keys": list(res.keys[:10]),
                                                  "scores": [round(h.score, 6) for h in res.hits[:10]],
                                                  "reranked": res.reranked}))
        merged = merge_subqueries(rankings, k, self.eps) if len(rankings) > 1 else rankings[0][:k]
        trace.append(TraceEvent("merge", {"subqueries": len(subqueries), "keys": [key for key, _ in merged]}))
        return RetrievalResult(tuple(key for key, _ in merged), tuple(s for _, s in merged), tuple(trace),
                               time.perf_counter() - start)
