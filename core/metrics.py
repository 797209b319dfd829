"""Retrieval metrics: pure functions over a ranked key list and a gold set.

Duplicates in a ranking count once (the first occurrence keeps its rank), so a
strategy cannot inflate a score by repeating a tool.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def _top(ranked: Sequence[str], k: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for key in ranked:
        if key not in seen:
            seen.add(key)
            out.append(key)
            if len(out) == k:
                break
    return out


def ndcg_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """nDCG@k with binary gains and a log2 discount: DCG = Σ rel_i / log2(i + 1) over ranks 1..k,
    divided by the DCG of min(|gold|, k) hits at the top. 0 when gold is empty."""
    _check_k(k)
    gold = set(gold)
    if not gold:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, key in enumerate(_top(ranked, k)) if key in gold)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / idcg


def precision_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Hits in the top k divided by k (not by the list length, so a short list is not rewarded)."""
    _check_k(k)
    gold = set(gold)
    return sum(1 for key in _top(ranked, k) if key in gold) / k


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the gold tools found in the top k; 0 when gold is empty."""
    _check_k(k)
    gold = set(gold)
    if not gold:
        return 0.0
    return sum(1 for key in _top(ranked, k) if key in gold) / len(gold)


def comprehensiveness_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1 when every gold tool is in the top k, else 0 (FitText §5, App. A.2)."""
    _check_k(k)
    gold = set(gold)
    return 1.0 if gold and gold <= set(_top(ranked, k)) else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str]) -> float:
    """1 / rank of the first gold tool; 0 when none appears."""
    gold = set(gold)
    for i, key in enumerate(_top(ranked, len(ranked) or 1), start=1):
        if key in gold:
            return 1.0 / i
    return 0.0


def csr(selected: Collection[str], gold: Collection[str]) -> float:
    """Correct selection (ToolScope Eq. 6, one query): 1 when the selected set equals the gold set."""
    return 1.0 if set(selected) == set(gold) and gold else 0.0


Selector = Callable[[Sequence[str]], Collection[str]]


def csr_at_k(ranked: Sequence[str], gold: Collection[str], k: int, selector: Selector | None = None) -> float:
    """ToolScope Eq. 6 for one query: does the selector, shown the top k, pick exactly the gold set?

    Without an LLM selector, the default stand-in picks the first |gold| tools of the top k: an
    agent that takes as many tools as the query needs, in retrieval order. Pass a selector (for
    example the ``select_tools`` role) to measure a real agent.
    """
    _check_k(k)
    top = _top(ranked, k)
    picked = selector(top) if selector is not None else top[: len(set(gold))]
    return csr(picked, gold)


@dataclass(frozen=True)
class QueryScores:
    query_id: str
    ndcg: float
    precision: float
    recall: float
    comprehensiveness: float
    reciprocal_rank: float
    csr: float


@dataclass(frozen=True)
class RetrievalScores:
    n_queries: int
    k: int
    ndcg: float
    precision: float
    recall: float
    comprehensiveness: float
    mrr: float
    csr: float
    per_query: tuple[QueryScores, ...]

    def as_dict(self) -> dict[str, Any]:
        k = self.k
        return {
            "n_queries": self.n_queries,
            f"ndcg@{k}": round(self.ndcg, 6),
            f"precision@{k}": round(self.precision, 6),
            f"recall@{k}": round(self.recall, 6),
            f"comprehensiveness@{k}": round(self.comprehensiveness, 6),
            "mrr": round(self.mrr, 6),
            f"csr@{k}": round(self.csr, 6),
        }


def score_query(query_id: str, ranked: Sequence[str], gold: Collection[str], k: int,
                selector: Selector | None = None) -> QueryScores:
    return QueryScores(
        query_id,
        ndcg_at_k(ranked, gold, k),
        precision_at_k(ranked, gold, k),
        recall_at_k(ranked, gold, k),
        comprehensiveness_at_k(ranked, gold, k),
        reciprocal_rank(ranked, gold),
        csr_at_k(ranked, gold, k, selector),
    )


def score_rankings(rankings: Mapping[str, Sequence[str]], gold: Mapping[str, Collection[str]], k: int,
                   selector: Selector | None = None) -> RetrievalScores:
    """Mean of every metric over the ranked queries; a ranking without a gold entry is an error."""
    _check_k(k)
    missing = [qid for qid in rankings if qid not in gold]
    if missing:
        raise ValueError(f"query {missing[0]!r} has a ranking but no gold tools")
    per = tuple(score_query(qid, ranked, gold[qid], k, selector) for qid, ranked in rankings.items())
    n = len(per)

    def mean(attr: str) -> float:
        return sum(getattr(p, attr) for p in per) / n if n else 0.0

    return RetrievalScores(n, k, mean("ndcg"), mean("precision"), mean("recall"), mean("comprehensiveness"),
                           mean("reciprocal_rank"), mean("csr"), per)
