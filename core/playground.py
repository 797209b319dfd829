"""What the Strategy playground shows, computed from a strategy's trace (no rendering here).

One numbering holds on every view of a run: **generation g is FitText Alg. 1's round g** (1-based), the
population scored in that round — generation 1 is the seed population written from each ancestor, generation
2 the elite and offspring made from it, and so on; ancestors (the query's pseudo-tool descriptions, D_0) are
generation 0. The trace records a description's *birth* round (seeds 0, offspring of round g: g), so the
member ``a0g1m3`` (ancestor 0, born in round 1, member 3) is generation 2 here and is shown as "ancestor 1 ·
generation 2 · member 4" (ancestors and members counted from 1). Turn-based strategies (DBD, IBI) record
their 1-based turn, used as it is.
"""

from __future__ import annotations

import re
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
    """A description at one generation (see the module doc for the numbering), placed on the catalog map."""

    id: str
    generation: int
    origin: str
    parents: tuple[str, ...]
    text: str
    x: float
    y: float
    fitness: float | None
    top_keys: tuple[str, ...]
    label: str = ""


def trace_events(result: RetrievalResult, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in result.trace if e.kind == kind]


def evolves(result: RetrievalResult) -> bool:
    """Whether the strategy ran generations of scored populations (FitText Alg. 1 / Alg. 8)."""
    return any(e.kind == "fitness" for e in result.trace)


TURN_BASED = ("dbd", "ibi")  # strategies whose rounds their papers call turns


def step_word(strategy: str, result: RetrievalResult) -> str:
    """What one step of a strategy's search is called on the page: "generation" for an evolving population,
    "turn" for DBD and IBI, "round" otherwise (our own wording)."""
    if evolves(result):
        return "generation"
    return "turn" if strategy in TURN_BASED else "round"


def generation_of(description: dict[str, Any], evolutionary: bool) -> int:
    """The generation a traced description is shown in (module doc): ancestors 0; in an evolutionary
    strategy the round that scored it (birth round + 1); otherwise the recorded turn."""
    if description.get("origin") == "ancestor":
        return 0
    born = int(description.get("generation", 0))
    return born + 1 if evolutionary else born


_ID_PART = re.compile(r"([a-z])(\d+)")
_ID_WORDS = {"a": ("ancestor", 1), "m": ("member", 1), "t": ("turn", 0), "d": ("description", 1),
             "c": ("variant", 1)}


def member_label(member_id: str, generation: int | None = None) -> str:
    """A trace id in words, counted from 1: ``a0g1m3`` in generation 2 → "ancestor 1 · generation 2 · member 4",
    ``a1`` → "ancestor 2", ``a0t2`` → "ancestor 1 · turn 2", ``t1d0`` → "turn 1 · description 1". The id's
    own ``g`` part is its birth round, so the shown generation comes from ``generation`` (module doc); an id
    of another shape is returned as it is."""
    parts = _ID_PART.findall(member_id)
    if not parts or "".join(f"{a}{b}" for a, b in parts) != member_id:
        return member_id
    words = []
    for letter, number in parts:
        if letter == "g":
            if generation is not None:
                words.append(f"generation {generation}")
            continue
        if letter not in _ID_WORDS:
            return member_id
        word, offset = _ID_WORDS[letter]
        words.append(f"{word} {int(number) + offset}")
    return " · ".join(words)


def members(result: RetrievalResult, engine: SearchEngine, coords: np.ndarray) -> list[Member]:
    """Every description of the trace, placed by k-nearest-tools interpolation on ``coords``, in the
    generation that scored it (module doc) with the fitness it got there."""
    described = trace_events(result, "description")
    if not described:
        return []
    texts = list(dict.fromkeys(d["text"] for d in described))
    placed = place_texts(engine.embed(texts, persist=False), engine.vectors, coords)
    where = {t: placed[i] for i, t in enumerate(texts)}
    fitness = {(f["id"], int(f["generation"])): f["f"] for f in trace_events(result, "fitness")}
    top = {r["text"]: tuple(r["keys"]) for r in trace_events(result, "retrieval")}
    evolutionary = evolves(result)
    out = []
    for d in described:
        gen = generation_of(d, evolutionary)
        x, y = where[d["text"]]
        out.append(Member(d["id"], gen, d.get("origin", ""), tuple(d.get("parents", [])), d["text"], float(x),
                          float(y), fitness.get((d["id"], gen)), top.get(d["text"], ()), member_label(d["id"], gen)))
    return out


@dataclass(frozen=True)
class RankedTool:
    """One tool of a strategy's final ranking. For a voted ranking (FitText Alg. 7) also the vote that placed
    it: the ancestor whose population voted (counted from 1), its votes and mean rank there."""

    rank: int
    key: str
    score: float
    ancestor: int | None = None
    votes: int | None = None
    mean_rank: float | None = None


def ranking(result: RetrievalResult) -> tuple[RankedTool, ...]:
    """The final ranking with, for voted strategies, the vote behind each place.

    Voted strategies order each ancestor's list by its vote, then join the lists: Scattershot takes each
    ancestor's winners in turn (round-robin, first appearance kept), so its score, the mean similarity, is not in
    rank order; the memetic strategies by default sort the joined list on each tool's best anchored vote score
    (``PseudoToolStrategy.anchored_votes``, ``core.strategies.pseudo.merge_lineages``). The ancestor shown for a tool is the first, in round-robin
    order, whose vote listed it."""
    per_ancestor: dict[int, list[dict[str, Any]]] = {}
    for event in trace_events(result, "vote"):
        per_ancestor.setdefault(int(event.get("ancestor", 0)), []).extend(event.get("votes", []))
    placed: dict[str, tuple[int, dict[str, Any]]] = {}
    groups = [per_ancestor[a] for a in sorted(per_ancestor)]
    ancestors = sorted(per_ancestor)
    for i in range(max((len(g) for g in groups), default=0)):
        for a, group in zip(ancestors, groups, strict=True):
            if i < len(group):
                placed.setdefault(group[i]["key"], (a, group[i]))
    out = []
    for rank, (key, score) in enumerate(zip(result.keys, result.scores, strict=True), start=1):
        if key in placed:
            a, v = placed[key]
            out.append(RankedTool(rank, key, float(score), a + 1, int(v["votes"]), float(v["mean_rank"])))
        else:
            out.append(RankedTool(rank, key, float(score)))
    return tuple(out)


def in_score_order(result: RetrievalResult) -> bool:
    """Whether the scores fall (or stay) from rank to rank."""
    return all(a >= b for a, b in zip(result.scores, result.scores[1:], strict=False))


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
    """One description in the family tree: ``column`` is its generation (module doc: 0 the ancestors, 1 the
    seeds, …); ``row`` is its place in the column."""

    id: str
    generation: int
    column: int
    row: int
    origin: str
    parents: tuple[str, ...]
    text: str
    fitness: float | None
    label: str = ""


def lineage(result: RetrievalResult) -> list[LineageNode]:
    """The crossover / mutation family tree of FitText Alg. 1 (and Alg. 8) from the trace.

    Ancestors sit in column 0; each later description in the column of its generation (module doc).
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
    evolutionary = evolves(result)
    by_col: dict[int, list[dict[str, Any]]] = {}
    for d in latest.values():
        by_col.setdefault(generation_of(d, evolutionary), []).append(d)
    row_of: dict[str, int] = {}
    nodes: list[LineageNode] = []
    for col in sorted(by_col):
        entries = sorted(by_col[col], key=lambda d: (min((row_of.get(p, 10**6) for p in d.get("parents", [])),
                                                         default=10**6), d["id"]))
        for row, d in enumerate(entries):
            row_of[d["id"]] = row
            nodes.append(LineageNode(d["id"], col, col, row, d.get("origin", ""), tuple(d.get("parents", [])),
                                     d["text"], fitness.get(d["id"]), member_label(d["id"], col)))
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
