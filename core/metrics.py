"""Retrieval metrics: pure functions over a ranked key list and a gold set.

Duplicates in a ranking count once (the first occurrence keeps its rank), so a
strategy cannot inflate a score by repeating a tool.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass


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


def round_trip_recall(sources: Sequence[str], rankings: Sequence[Sequence[str]], k: int) -> float:
    """Round-trip consistency (Re-Invoke §6.2, Table 4): the share of synthetic queries whose source tool,
    the one whose document they were written from, is in the top k when the query itself is searched
    against the tool documents. Low values mean the generator writes queries that cannot tell their tool
    apart from its neighbours. ``rankings[i]`` is the ranking of the i-th query, ``sources[i]`` its tool."""
    _check_k(k)
    if len(sources) != len(rankings):
        raise ValueError(f"{len(sources)} source tools for {len(rankings)} rankings")
    if not sources:
        return 0.0
    return sum(src in _top(ranked, k) for src, ranked in zip(sources, rankings, strict=True)) / len(sources)


def top_k(ranked: Sequence[str], k: int) -> list[str]:
    """The first k distinct keys of a ranking: what a selector is shown for CSR@k."""
    _check_k(k)
    return _top(ranked, k)


def csr(selected: Collection[str], gold: Collection[str]) -> float:
    """Correct selection (ToolScope Eq. 6, one query): 1 when the selected set equals the gold set."""
    return 1.0 if set(selected) == set(gold) and gold else 0.0


Selector = Callable[[Sequence[str]], Collection[str]]


def gold_count_stand_in(top: Sequence[str], gold: Collection[str]) -> list[str]:
    """The stand-in selector of runs stored before evaluation asked a real one: the first |gold| keys of
    the top k. It knows how many tools the query needs (an oracle on the gold count), so it flatters CSR;
    it is kept only to score stored items that carry no selection."""
    return list(top[: len(set(gold))])


def csr_at_k(ranked: Sequence[str], gold: Collection[str], k: int, selector: Selector | None = None) -> float:
    """ToolScope Eq. 6 for one query: does the selector, shown the top k, pick exactly the gold set?

    With ``selector`` (for example the ``select_tools`` role of LLM operators) this measures a real
    agent. Without one it falls back to :func:`gold_count_stand_in`, which is not a measurement of
    selection; evaluation runs store a real selection per query and score it with :func:`csr`.
    """
    _check_k(k)
    top = _top(ranked, k)
    picked = selector(top) if selector is not None else gold_count_stand_in(top, gold)
    return csr(picked, gold)


@dataclass(frozen=True)
class QueryScores:
    """One query's scores. ``csr_source`` says where its CSR came from: ``"selection"`` (a stored
    selection), ``"selector"`` (a selector called while scoring) or ``"stand-in"``
    (:func:`gold_count_stand_in`, for items stored before selections were kept)."""

    query_id: str
    ndcg: float
    precision: float
    recall: float
    comprehensiveness: float
    reciprocal_rank: float
    csr: float
    csr_source: str = "stand-in"


def score_query(query_id: str, ranked: Sequence[str], gold: Collection[str], k: int,
                selector: Selector | None = None, selected: Collection[str] | None = None) -> QueryScores:
    """Every metric of one query. CSR@k (ToolScope Eq. 6) is, in order of preference: ``selected``
    (the keys a selector picked from the top k, stored with the ranking) compared with the gold set;
    ``selector`` called on the top k; else the :func:`gold_count_stand_in` fallback."""
    if selected is not None and selector is not None:
        raise ValueError("give either selected keys or a selector, not both")
    if selected is not None:
        if isinstance(selected, str):
            raise ValueError(f"selected must be a collection of tool keys, not the string {selected!r}")
        source, correct = "selection", csr(selected, gold)
    else:
        source = "selector" if selector is not None else "stand-in"
        correct = csr_at_k(ranked, gold, k, selector)
    return QueryScores(
        query_id,
        ndcg_at_k(ranked, gold, k),
        precision_at_k(ranked, gold, k),
        recall_at_k(ranked, gold, k),
        comprehensiveness_at_k(ranked, gold, k),
        reciprocal_rank(ranked, gold),
        correct,
        source,
    )
