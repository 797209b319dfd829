"""Catalog vocabulary for the offline operators: document frequencies and co-occurrence neighbours."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from core.search.tokenize import tokenize

TERMS_PER_DOC = 12  # the rarest terms of a doc carry its meaning; bounding them keeps building linear
NEIGHBOURS = 8


@dataclass(frozen=True)
class CatalogVocabulary:
    n_docs: int
    df: dict[str, int]
    neighbours: dict[str, tuple[str, ...]]

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> CatalogVocabulary:
        docs = [sorted(set(tokenize(t))) for t in texts]
        df = Counter(term for d in docs for term in d)
        pair = Counter()
        for d in docs:
            distinctive = sorted((t for t in d if df[t] > 1), key=lambda t: (df[t], t))[:TERMS_PER_DOC]
            for i, a in enumerate(distinctive):
                for b in distinctive[i + 1 :]:
                    pair[(a, b)] += 1
        n = max(len(docs), 1)
        scored: dict[str, list[tuple[float, str]]] = defaultdict(list)
        for (a, b), c in pair.items():
            pmi = math.log((c * n) / (df[a] * df[b]))
            if pmi > 0:
                scored[a].append((pmi * math.log1p(c), b))
                scored[b].append((pmi * math.log1p(c), a))
        neighbours = {t: tuple(w for _, w in sorted(v, key=lambda x: (-x[0], x[1]))[:NEIGHBOURS])
                      for t, v in scored.items()}
        return cls(len(docs), dict(df), neighbours)

    def idf(self, term: str) -> float:
        return math.log((self.n_docs + 1) / (self.df.get(term, 0) + 1)) + 1.0
