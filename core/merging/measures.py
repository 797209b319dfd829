"""What merging changed (ToolScope §4.4, App. D.1, App. K.1): silhouette, retrieval before/after with
relabelled gold, and functionality coverage (TCCR / UCC)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.merging.graph import relabel
from core.metrics import csr_at_k, recall_at_k
from core.models import Query, Tool

SILHOUETTE_KS = tuple(range(5, 55, 5))


def silhouette_curve(vectors: np.ndarray, ks: Sequence[int] = SILHOUETTE_KS, *, seed: int = 0,
                     sample: int = 5000) -> list[tuple[int, float]]:
    """ToolScope App. D.1: k-means silhouette (cosine) for each k. High values mean tools crowd into
    tight groups, i.e. overlap; merging should lower them. Large catalogs are scored on a fixed sample."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    x = np.asarray(vectors, dtype=np.float32)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    out = []
    for k in ks:
        if not 2 <= k < len(x):
            continue
        labels = KMeans(n_clusters=k, n_init=3, random_state=seed).fit_predict(x)
        if len(set(labels)) < 2:
            continue
        score = silhouette_score(x, labels, metric="cosine", sample_size=min(sample, len(x)), random_state=seed)
        out.append((int(k), round(float(score), 4)))
    return out


def mean_silhouette(curve: Sequence[tuple[int, float]]) -> float | None:
    return round(float(np.mean([s for _, s in curve])), 4) if curve else None


def relabel_queries(queries: Iterable[Query], phi: Mapping[str, str]) -> list[Query]:
    """ToolScope Eq. 3: every query's gold keys mapped through φ (duplicates dropped, order kept)."""
    return [Query(q.id, q.text, relabel(q.gold, phi), q.split) for q in queries]


@dataclass(frozen=True)
class BeforeAfter:
    k: int
    recall_before: float
    recall_after: float
    csr_before: float
    csr_after: float
    n_queries: int


# A tool selector for CSR (ToolScope Eq. 6): shown a query and the keys of its top-k, it returns the keys an
# agent would pick. ``None`` uses the metrics' stand-in (the first |gold| keys: the top-1 for one gold tool).
QuerySelector = Callable[[Query, Sequence[str]], Sequence[str]]


def offline_selector(operators: Any, tools: Sequence[Tool]) -> QuerySelector:
    """A CSR selector from the ``select_tools`` role of LLM operators (offline or prompted), shown each
    candidate's key and description. A failed call picks nothing, so that query counts as a miss."""
    blurbs = {t.key: f"{t.name}: {t.description}" for t in tools}

    def select(query: Query, top: Sequence[str]) -> Sequence[str]:
        rc = operators.select_tools(query.text, [(k, blurbs.get(k, k)) for k in top])
        return list(rc.value) if rc.ok and rc.value else []
    return select


def rule_selector(tools: Sequence[Tool], *, ledger: Any = None, seed: int = 0) -> QuerySelector:
    """:func:`offline_selector` on the offline operators' ``select_tools`` rule. The rule reads only the
    query and the candidates, so the operators get no catalog vocabulary (building one costs ~2 s at 40k
    tools and would change nothing)."""
    from core.llm.framework import make_roles

    return offline_selector(make_roles("strategy", "offline", ledger=ledger, seed=seed), tools)


def _rankings(engine: Any, queries: Sequence[Query], k: int) -> list[list[str]]:
    if hasattr(engine, "search_batch"):
        return [[h.key for h in r.hits] for r in engine.search_batch([q.text for q in queries], k)]
    rankings = [list(r) for r in engine]
    if len(rankings) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(rankings)} rankings")
    return rankings


def retrieval_before_after(before: Any, after: Any, queries: Sequence[Query],
                           relabelled: Sequence[Query] | Mapping[str, str], k: int = 5, *,
                           selector: QuerySelector | None = None,
                           selector_after: QuerySelector | None = None) -> BeforeAfter:
    """ToolScope §4.4: Recall@k and CSR@k (Eq. 6) of the same queries on the original catalog (original gold)
    and on the merged one (gold relabelled through φ, Eq. 3).

    ``before`` / ``after`` are search engines (anything with ``search_batch``) or precomputed rankings, one
    per query; ``relabelled`` is the relabelled query list or φ itself. CSR asks ``selector`` which of the
    top k an agent picks (see :func:`offline_selector`; ``selector_after``, when given, on the merged catalog,
    whose merged tools read differently); without one, the first |gold| retrieved tools."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if isinstance(relabelled, Mapping):
        relabelled = relabel_queries(queries, relabelled)
    if len(relabelled) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(relabelled)} relabelled queries")
    for q, r in zip(queries, relabelled, strict=True):
        if q.id != r.id:
            raise ValueError(f"relabelled query {r.id!r} is out of step with query {q.id!r}")
    rank_b, rank_a = _rankings(before, queries, k), _rankings(after, queries, k)

    def csr(ranked: Sequence[str], q: Query, pick: QuerySelector | None = selector) -> float:
        if pick is None:
            return csr_at_k(ranked, q.gold, k)
        return csr_at_k(ranked, q.gold, k, selector=lambda top, q=q: pick(q, top))

    after_pick = selector_after if selector_after is not None else selector

    n = len(queries) or 1
    return BeforeAfter(
        k,
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(rank_b, queries, strict=True)) / n, 4),
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(rank_a, relabelled, strict=True)) / n, 4),
        round(sum(csr(r, q) for r, q in zip(rank_b, queries, strict=True)) / n, 4),
        round(sum(csr(r, q, after_pick) for r, q in zip(rank_a, relabelled, strict=True)) / n, 4),
        len(queries),
    )


@dataclass(frozen=True)
class Coverage:
    tccr: float
    ucc: float
    calls: int
    capabilities: int


def argument_names(tool: Tool) -> frozenset[str]:
    return frozenset(tool.parameter_names)


def coverage(calls: Sequence[tuple[str, frozenset[str]]], merged: Sequence[Tool],
             phi: Mapping[str, str] | None = None) -> Coverage:
    """ToolScope App. K.1. ``calls`` are gold calls (tool key, argument names). TCCR: share of calls whose
    arguments some merged tool accepts; UCC: the same over distinct (tool, argument set) capabilities.

    With ``phi``, a call must be served by the tool it is relabelled to (stricter than the paper's "some
    tool in T′", which a catch-all tool could satisfy)."""
    schemas = {t.key: argument_names(t) for t in merged}

    def served(key: str, args: frozenset[str]) -> bool:
        if phi is not None:
            target = phi.get(key, key)
            return target in schemas and args <= schemas[target]
        return any(args <= a for a in schemas.values())

    if not calls:
        return Coverage(1.0, 1.0, 0, 0)
    hits = [served(k, a) for k, a in calls]
    unique = sorted(set(calls), key=lambda c: (c[0], sorted(c[1])))
    return Coverage(round(sum(hits) / len(hits), 4), round(sum(served(k, a) for k, a in unique) / len(unique), 4),
                    len(calls), len(unique))


def tccr_ucc(calls: Sequence[tuple[str, Iterable[str]]], merged: Sequence[Tool],
             phi: Mapping[str, str] | None = None) -> Coverage:
    """ToolScope App. K.1 TCCR and UCC (see :func:`coverage`); argument sets may be any iterables."""
    return coverage([(str(key), frozenset(args)) for key, args in calls], merged, phi)


def required_calls(queries: Iterable[Query], tools: Sequence[Tool]) -> list[tuple[str, frozenset[str]]]:
    """Gold calls when a query set names tools but not arguments (our BFCL copy): each gold tool called with
    exactly its required parameters, the least any real call passes."""
    by_key = {t.key: t for t in tools}
    return [(k, frozenset(by_key[k].required)) for q in queries for k in q.gold if k in by_key]
