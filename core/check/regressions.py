"""Retrieval regressions between BASE and NEW, query by query: CONTDA's Forget and Discover (Eqs. 4–5) read
at the level of single queries, each forgotten query with its cause, and nDCG@k / Recall@k before and after.

A query is solved on a version when its gold tools are in that version's top k: all of them by default
(``solved="all"``, FitText's comprehensiveness), or any one (``solved="any"``); CONTDA's judgment E(q, r_t)
is a model's, ours is this rule. Gold keys are taken literally: a gold tool that was renamed is not found
under its old key, and the cause says so. The causes are our definition: the gold tool was removed, renamed,
or its documentation changed, and which tools now rank above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.check.changes import ToolChanges
from core.evolution.metrics import discover, forget
from core.metrics import comprehensiveness_at_k, ndcg_at_k, recall_at_k
from core.models import Query
from core.search.engine import SearchEngine

SOLVED_RULES = ("all", "any")
REMOVED, RENAMED, DOC_CHANGED, OUTRANKED = "gold removed", "gold renamed", "doc changed", "outranked"
DEPTH = 50  # how deep a ranking is read to say where a gold tool went


@dataclass(frozen=True)
class Cause:
    kind: str  # REMOVED, RENAMED, DOC_CHANGED or OUTRANKED
    gold: str
    detail: str
    by: tuple[str, ...] = ()  # the tools now ranked above the gold tool that were not in BASE's top k

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "gold": self.gold, "detail": self.detail, "by": list(self.by)}


@dataclass(frozen=True)
class QueryShift:
    """One query solved on one version and not on the other, with both top-k rankings."""

    query_id: str
    text: str
    gold: tuple[str, ...]
    before: tuple[str, ...]  # BASE's top k
    after: tuple[str, ...]  # NEW's top k
    gold_rank_before: tuple[int | None, ...]  # per gold key, its rank within DEPTH (None: deeper or absent)
    gold_rank_after: tuple[int | None, ...]
    causes: tuple[Cause, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.query_id, "query": self.text, "gold": list(self.gold), "before": list(self.before),
                "after": list(self.after), "gold_rank_before": list(self.gold_rank_before),
                "gold_rank_after": list(self.gold_rank_after), "causes": [c.to_json() for c in self.causes]}


@dataclass(frozen=True)
class RetrievalCheck:
    k: int
    mode: str
    solved: str
    n_queries: int
    before: dict[str, float]  # mean nDCG@k, Recall@k and success rate on BASE
    after: dict[str, float]
    forget: float  # CONTDA Eq. 4, the share of queries solved on BASE and not on NEW
    discover: float  # CONTDA Eq. 5
    regressions: tuple[QueryShift, ...]
    discovered: tuple[QueryShift, ...]

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "mode": self.mode, "solved": self.solved, "n_queries": self.n_queries,
                "before": self.before, "after": self.after, "forget": self.forget, "discover": self.discover,
                "regressions": [r.to_json() for r in self.regressions],
                "discovered": [d.to_json() for d in self.discovered]}


def _rank(ranking: Sequence[str], key: str) -> int | None:
    try:
        return ranking.index(key) + 1
    except ValueError:
        return None


def _where(rank: int | None) -> str:
    return f"rank {rank}" if rank is not None else f"below rank {DEPTH}"


def causes_of(q: Query, before: Sequence[str], after: Sequence[str], k: int, changes: ToolChanges,
              new_keys: set[str]) -> tuple[Cause, ...]:
    """Why ``q``'s gold tools left NEW's top k (our rules, see the module docstring)."""
    renamed = dict(changes.diff.renamed)
    changed = set(changes.diff.changed)
    introduced = set(changes.focus)
    top_before = set(before[:k])
    out = []
    for g in q.gold:
        if g in after[:k]:
            continue
        r0, r1 = _rank(before, g), _rank(after, g)
        if g not in new_keys:
            if g in renamed:
                out.append(Cause(RENAMED, g, f"{g!r} was renamed to {renamed[g]!r}, which is at "
                                             f"{_where(_rank(after, renamed[g]))}; the query asks for {g!r}"))
            else:
                out.append(Cause(REMOVED, g, f"{g!r} was removed from the catalog"))
            continue
        above = tuple(key for key in after[: (r1 - 1) if r1 else k] if key not in top_before)
        if g in changed:
            out.append(Cause(DOC_CHANGED, g, f"the documentation of {g!r} changed: {_where(r0)} → {_where(r1)}", above))
            continue
        new_above = tuple(key for key in above if key in introduced)
        who = new_above or above
        what = "new or changed tools" if new_above else "tools"
        detail = (f"{g!r} went from {_where(r0)} to {_where(r1)}, outranked by {what} "
                  + ", ".join(repr(x) for x in who[:3]) if who else f"{g!r} went from {_where(r0)} to {_where(r1)}")
        out.append(Cause(OUTRANKED, g, detail, who))
    return tuple(out)


def retrieval_check(base: SearchEngine, new: SearchEngine, queries: Sequence[Query], changes: ToolChanges, *,
                    k: int = 5, mode: str = "dense", solved: str = "all") -> RetrievalCheck:
    """Every query searched on both versions (the same engine settings): CONTDA Forget / Discover per query
    (Eqs. 4–5), the causes of each forgotten query, and mean nDCG@k / Recall@k / success before and after."""
    if solved not in SOLVED_RULES:
        raise ValueError(f"unknown solved rule {solved!r}; valid rules: {', '.join(SOLVED_RULES)}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not queries:
        raise ValueError("no queries to check")
    depth = max(k, DEPTH)
    texts = [q.text for q in queries]
    ranked_before = [r.keys for r in base.search_batch(texts, depth, mode=mode)]
    ranked_after = [r.keys for r in new.search_batch(texts, depth, mode=mode)]

    def ok(ranking: Sequence[str], gold: Sequence[str]) -> bool:
        if solved == "all":
            return comprehensiveness_at_k(ranking, gold, k) == 1.0
        return recall_at_k(ranking, gold, k) > 0.0

    def means(rankings: Sequence[Sequence[str]], flags: Sequence[bool]) -> dict[str, float]:
        n = len(queries)
        return {f"ndcg@{k}": sum(ndcg_at_k(r, q.gold, k) for r, q in zip(rankings, queries, strict=True)) / n,
                f"recall@{k}": sum(recall_at_k(r, q.gold, k) for r, q in zip(rankings, queries, strict=True)) / n,
                "success": sum(flags) / n}

    prev = [ok(r, q.gold) for r, q in zip(ranked_before, queries, strict=True)]
    cur = [ok(r, q.gold) for r, q in zip(ranked_after, queries, strict=True)]
    new_keys = {t.key for t in new.tools}
    regressions, discovered = [], []
    for q, rb, ra, p, c in zip(queries, ranked_before, ranked_after, prev, cur, strict=True):
        if p == c:
            continue
        shift = QueryShift(q.id, q.text, tuple(q.gold), tuple(rb[:k]), tuple(ra[:k]),
                           tuple(_rank(rb, g) for g in q.gold), tuple(_rank(ra, g) for g in q.gold),
                           causes_of(q, rb, ra, k, changes, new_keys) if p else ())
        (regressions if p else discovered).append(shift)
    return RetrievalCheck(k, mode, solved, len(queries), means(ranked_before, prev), means(ranked_after, cur),
                          forget(prev, cur), discover(prev, cur), tuple(regressions), tuple(discovered))
