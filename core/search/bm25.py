"""BM25 sparse retrieval (bm25s, Lucene variant, k1 = 1.5, b = 0.75)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.search.tokenize import tokenize

K1 = 1.5
B = 0.75


class BM25Index:
    """Scores every document of a fixed corpus for a query."""

    def __init__(self, texts: Sequence[str], *, k1: float = K1, b: float = B) -> None:
        import bm25s

        self.n_docs = len(texts)
        self._retriever = bm25s.BM25(k1=k1, b=b)
        corpus = [tokenize(t) or ["\u2205"] for t in texts]  # an empty doc still needs a token
        if self.n_docs:
            self._retriever.index(corpus, show_progress=False)
            self._vocab = set(self._retriever.vocab_dict)
        else:
            self._vocab = set()

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (float32, length ``n_docs``); zeros if no term matches."""
        tokens = [t for t in tokenize(query) if t in self._vocab]
        if not tokens:
            return np.zeros(self.n_docs, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(tokens), dtype=np.float32)
