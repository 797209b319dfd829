"""What the Strategy playground shows, computed from a strategy's trace (no rendering here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.metrics import score_query
from core.projection import place_texts
from core.search.engine import SearchEngine
from core.strategies.base import RetrievalResult
from core.strategies.memory import ToolMemory


@dataclass(frozen=True)
class Member:
    """A description at one generation, placed on the catalog map."""

    id: str
    generation: int
    origin: str
    parents: tuple[str, ...]
    text: str
    x: float
    y: float
    fitness: float | None
    top_keys: tuple[str, ...]


def trace_events(result: RetrievalResult, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in result.trace if e.kind == kind]


def members(result: RetrievalResult, engine: SearchEngine, coords: np.ndarray) -> list[Member]:
    """Every description of the trace, placed by k-nearest-tools interpolation on ``coords``.

    A member is shown at each generation it was evaluated in, with that generation's fitness.
    """
    described = trace_events(result, "description")
    if not described:
        return []
    texts = list(dict.fromkeys(d["text"] for d in described))
    placed = place_texts(engine.embed(texts, persist=False), engine.vectors, coords)
    where = {t: placed[i] for i, t in enumerate(texts)}
    fitness = {(f["id"], f["generation"]): f["f"] for f in trace_events(result, "fitness")}
    top = {r["text"]: tuple(r["keys"]) for r in trace_events(result, "retrieval")}
    out = []
    for d in described:
        gen = int(d.get("generation", 0))
        x, y = where[d["text"]]
        # seeds are evaluated in generation 1; later members in the generation after their birth
        evaluated = gen + 1 if any(k[0] == d["id"] for k in fitness) else gen
        out.append(Member(d["id"], gen, d.get("origin", ""), tuple(d.get("parents", [])), d["text"], float(x),
                          float(y), fitness.get((d["id"], evaluated)), top.get(d["text"], ())))
    return out


@dataclass(frozen=True)
class StrategyOutcome:
    strategy: str
    keys: tuple[str, ...]
    gold: tuple[str, ...]
    recall: float
    ndcg: float
    comprehensiveness: float
    seconds: float
    llm_calls: int
    llm_errors: int


def outcome(strategy: str, result: RetrievalResult, gold: Sequence[str], k: int) -> StrategyOutcome:
    s = score_query("q", result.keys, gold, k) if gold else None
    calls = trace_events(result, "llm_call")
    return StrategyOutcome(strategy, result.keys, tuple(gold), s.recall if s else float("nan"),
                           s.ndcg if s else float("nan"), s.comprehensiveness if s else float("nan"), result.seconds,
                           len(calls), sum(1 for c in calls if not c["ok"]))


@dataclass(frozen=True)
class LineageNode:
    """One description in the family tree: ``column`` 0 holds the ancestors and column g + 1 the
    descriptions born in generation g (seeds are born in generation 0); ``row`` is its place in the column."""

    id: str
    generation: int
    column: int
    row: int
    origin: str
    parents: tuple[str, ...]
    text: str
    fitness: float | None


def lineage(result: RetrievalResult) -> list[LineageNode]:
    """The crossover / mutation family tree of FitText Alg. 1 (and Alg. 8) from the trace.

    Ancestors sit in column 0; each later description sits one column right of its birth generation.
    Rows keep siblings together: a child is placed in the order of its first parent's row, so lines
    from parents to children cross as little as a simple ordering allows.
    """
    described = trace_events(result, "description")
    fitness: dict[str, float] = {}
    for f in trace_events(result, "fitness"):
        fitness[f["id"]] = f["f"]  # the latest evaluation of a member is the one that counted
    latest: dict[str, dict[str, Any]] = {}
    for d in described:
        latest[d["id"]] = d  # an elite carried over keeps its id; its last record has its final text
    by_col: dict[int, list[dict[str, Any]]] = {}
    for d in latest.values():
        col = 0 if d.get("origin") == "ancestor" else int(d.get("generation", 0)) + 1
        by_col.setdefault(col, []).append(d)
    row_of: dict[str, int] = {}
    nodes: list[LineageNode] = []
    for col in sorted(by_col):
        entries = sorted(by_col[col], key=lambda d: (min((row_of.get(p, 10**6) for p in d.get("parents", [])),
                                                         default=10**6), d["id"]))
        for row, d in enumerate(entries):
            row_of[d["id"]] = row
            nodes.append(LineageNode(d["id"], int(d.get("generation", 0)), col, row, d.get("origin", ""),
                                     tuple(d.get("parents", [])), d["text"], fitness.get(d["id"])))
    return nodes


@dataclass(frozen=True)
class MemoryReadout:
    """How one run met the session's tool memory (FitText App. C.2)."""

    entries_before: int
    entries_after: int
    repeated: tuple[str, ...]  # descriptions of this run that were near-duplicates of earlier entries
    penalised: int  # fitness evaluations whose memory term was above zero


def memory_readout(result: RetrievalResult, earlier: ToolMemory, now: ToolMemory) -> MemoryReadout:
    """FitText App. C.2 read points on a finished run: which of its descriptions repeat what the session had
    already explored (SequenceMatcher ratio ≥ 0.82, read point 1) and how often the fitness memory term
    (Eqs. 7 and 17, read point 2) bit."""
    texts = dict.fromkeys(d["text"] for d in trace_events(result, "description"))
    repeated = tuple(t for t in texts if earlier.is_duplicate(t))
    penalised = sum(1 for f in trace_events(result, "fitness") if float(f.get("mem", 0.0)) > 0.0)
    return MemoryReadout(len(earlier.entries), len(now.entries), repeated, penalised)
