"""Query Retrieval: the raw query searched as is (FitText's static baseline)."""

from __future__ import annotations

import time

from core.search.engine import SearchEngine, check_mode
from core.strategies.base import RetrievalResult, TraceEvent


class QueryStrategy:
    name = "query"

    def __init__(self, search_engine: SearchEngine, *, mode: str = "dense", alpha: float = 1.0, rerank: bool = False):
        self.engine = search_engine
        self.mode = check_mode(mode)
        if not 0.0 <= float(alpha) <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
        self.alpha = float(alpha)
        self.rerank = bool(rerank)

    def retrieve(self, query: str, k: int) -> RetrievalResult:
        return self.retrieve_batch([query], k)[0]

    def retrieve_batch(self, queries: list[str], k: int) -> list[RetrievalResult]:
        start = time.perf_counter()
        found = self.engine.search_batch(queries, k, mode=self.mode, alpha=self.alpha, rerank=self.rerank)
        out = []
        for res in found:
            event = TraceEvent(
                "retrieval",
                {"text": res.query, "mode": res.mode, "keys": list(res.keys), "scores": [h.score for h in res.hits]},
            )
            out.append(RetrievalResult(res.keys, tuple(h.score for h in res.hits), (event,), res.seconds))
        if len(out) == 1:
            out[0] = RetrievalResult(out[0].keys, out[0].scores, out[0].trace, time.perf_counter() - start)
        return out
