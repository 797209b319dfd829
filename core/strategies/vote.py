"""Hierarchical voting over a population's retrievals (FitText Alg. 7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Retrieval:
    """One description's top-k: keys best first with their cosine similarities."""

    text: str
    keys: tuple[str, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True)
class Vote:
    key: str
    votes: int
    mean_rank: float
    mean_similarity: float


def vote(retrievals: Sequence[Retrieval], budget: int = 5) -> tuple[Vote, ...]:
    """FitText Alg. 7: pool every retrieved tool, order by (votes ↓, mean rank ↑, mean similarity ↓), keep top B.

    Ranks are 1-based. Remaining ties keep first-seen order, so the result is deterministic.
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    tally: dict[str, list[tuple[int, float]]] = {}
    for r in retrievals:
        for rank, (key, sim) in enumerate(zip(r.keys, r.scores, strict=True), start=1):
            tally.setdefault(key, []).append((rank, float(sim)))
    pooled = [
        Vote(key, len(hits), sum(h[0] for h in hits) / len(hits), sum(h[1] for h in hits) / len(hits))
        for key, hits in tally.items()
    ]
    order = {v.key: i for i, v in enumerate(pooled)}
    pooled.sort(key=lambda v: (-v.votes, v.mean_rank, -v.mean_similarity, order[v.key]))
    return tuple(pooled[:budget])
