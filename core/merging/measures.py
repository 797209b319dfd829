"""What merging changed (ToolScope §4.4, App. D.1, App. K.1): silhouette, retrieval before/after with
relabelled gold, and functionality coverage (TCCR / UCC)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

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


def retrieval_before_after(before: Sequence[Sequence[str]], after: Sequence[Sequence[str]],
                           queries: Sequence[Query], phi: Mapping[str, str], k: int = 5) -> BeforeAfter:
    """Recall@k and CSR@k (ToolScope Eq. 6, first-|gold| selector) of the same queries on the original
    catalog (original gold) and on the merged one (gold relabelled through φ)."""
    if not (len(before) == len(after) == len(queries)):
        raise ValueError(f"{len(queries)} queries but {len(before)} and {len(after)} rankings")
    relabelled = relabel_queries(queries, phi)
    n = len(queries) or 1
    return BeforeAfter(
        k,
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(before, queries, strict=True)) / n, 4),
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(after, relabelled, strict=True)) / n, 4),
        round(sum(csr_at_k(r, q.gold, k) for r, q in zip(before, queries, strict=True)) / n, 4),
        round(sum(csr_at_k(r, q.gold, k) for r, q in zip(after, relabelled, strict=True)) / n, 4),
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


def required_calls(queries: Iterable[Query], tools: Sequence[Tool]) -> list[tuple[str, frozenset[str]]]:
    """Gold calls when a query set names tools but not arguments (our BFCL copy): each gold tool called with
    exactly its required parameters, the least any real call passes."""
    by_key = {t.key: t for t in tools}
    return [(k, frozenset(by_key[k].required)) for q in queries for k in q.gold if k in by_key]
