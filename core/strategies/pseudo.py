"""Shared machinery of the pseudo-tool strategies (FitText §4): RET, blurbs, LLM-call tracing.

A strategy built on this keeps a list of trace events as it works; every LLM role call
is recorded there with its call id, and a failed call leaves the parent in place.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from core.concurrency import map_or_raise
from core.search.engine import SearchEngine
from core.strategies.base import RetrievalResult, TraceEvent
from core.strategies.memory import ToolMemory
from core.strategies.vote import Retrieval

BLURB_CHARS = 240


def blurb(name: str, description: str, limit: int = BLURB_CHARS) -> str:
    """A short, normalised summary of a tool: its name and the start of its description."""
    text = re.sub(r"\s+", " ", description).strip()
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=2)
    text = " ".join(first[:2]) if first else text
    out = f"{name}: {text}" if text else name
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


class PseudoToolStrategy:
    """Base class: subclasses implement ``_run(query, k, trace)`` returning ranked (key, score) pairs."""

    name = "pseudo"

    def __init__(
        self,
        search_engine: SearchEngine,
        *,
        operators: Any = None,
        k_ret: int = 5,
        memory: ToolMemory | None = None,
        seed: int = 0,
        max_workers: int = 8,
        parallel_lineages: bool = True,
        keep_request: bool = True,
    ) -> None:
        """``keep_request``: with offline operators, True (the default, our rule) never drops or replaces the
        request's words and takes catalog words only as additions; False gives the free word swaps used before
        (``core.llm.offline``). A model-backed operator ignores it: it keeps the request by being shown it
        (``operator_context``)."""
        if operators is None:
            raise ValueError(f"strategy {self.name!r} needs LLM operators (offline or an endpoint)")
        if not isinstance(keep_request, bool):
            raise ValueError(f"keep_request must be true or false, got {keep_request!r}")
        if hasattr(operators, "keeping_request"):
            operators = operators.keeping_request(keep_request)
        if k_ret < 1:
            raise ValueError(f"k_ret must be at least 1, got {k_ret}")
        self.engine = search_engine
        self.ops = operators
        self.k_ret = int(k_ret)
        self.memory = memory if memory is not None else ToolMemory()
        self.seed = int(seed)
        self.max_workers = max(1, int(max_workers))
        self.parallel_lineages = bool(parallel_lineages)
        self._by_key = {t.key: t for t in search_engine.tools}

    def _evolution(self, population: int, generations: int, threshold: float, budget: int,
                   operator_context: bool = True, anchor_weight: float = 0.0, vote_anchor: float = 0.0) -> None:
        """The settings every evolutionary strategy shares (FitText Table 8: N, G, θ and the call budget).

        ``operator_context`` True (the default): crossover, mutation and guided mutation are also shown the
        user's query and the seed exemplars, as FitText's public code does; False: only what Alg. 1 / Alg. 8
        write (parents and ancestor; guided mutation parent and weak tools), a departure kept switchable.
        ``anchor_weight``: λ of the ancestor-anchored retrieval term (``core.strategies.fitness``, our
        departure; 0 is the paper's Eq. 7). ``vote_anchor``: μ of :meth:`anchored_votes` (our departure; 0 keeps
        the vote's own mean similarity)."""
        if population < 2:
            raise ValueError(f"population must be at least 2, got {population}")
        if generations < 1:
            raise ValueError(f"generations must be at least 1, got {generations}")
        if not 0.0 <= float(anchor_weight) <= 1.0:
            raise ValueError(f"anchor_weight must lie in [0, 1], got {anchor_weight}")
        if not isinstance(operator_context, bool):
            raise ValueError(f"operator_context must be true or false, got {operator_context!r}")
        self.n = int(population)
        self.g_max = int(generations)
        self.theta = float(threshold)
        self.budget = int(budget)
        self.operator_context = operator_context
        self.anchor_weight = float(anchor_weight)
        if not 0.0 <= float(vote_anchor) <= 1.0:
            raise ValueError(f"vote_anchor must lie in [0, 1], got {vote_anchor}")
        self.vote_anchor = float(vote_anchor)

    def anchored_votes(self, votes: Sequence[Any], anchor: np.ndarray) -> list[tuple[str, float]]:
        """A lineage's voted tools (FitText Alg. 7, in vote order) with the score the lineages are merged on:
        ``(1 − μ)·mean similarity + μ·cos(ancestor, tool)`` where μ is ``vote_anchor`` (our definition; FitText
        concatenates the lists and scores nothing). Each member's similarities are to its own text, so a lineage
        whose members drifted toward dense catalog wording scores high whatever was asked; the ancestor's
        similarity puts every lineage on the scale Single-Pass merges on."""
        if self.vote_anchor == 0.0 or not votes:
            return [(v.key, v.mean_similarity) for v in votes]
        known = [v.key for v in votes if v.key in self.engine.key_to_index]  # similarities_to skips the others
        to_anchor = dict(zip(known, self.similarities_to(anchor, known), strict=True))
        mu = self.vote_anchor
        return [(v.key, (1 - mu) * v.mean_similarity + mu * to_anchor.get(v.key, 0.0)) for v in votes]

    def anchor_field(self, s_anchor: float) -> dict[str, float]:
        """The anchored score for a fitness trace event, when it counts (λ > 0)."""
        return {"s_anchor": round(s_anchor, 6)} if self.anchor_weight > 0 else {}

    def operator_kwargs(self, query: str, exemplars: Sequence[str]) -> dict[str, Any]:
        """What crossover and mutation get besides parents and ancestor (see :meth:`_evolution`)."""
        return {"query": query, "exemplars": list(exemplars)} if self.operator_context else {}

    # -- public interface ------------------------------------------------------------------

    def retrieve(self, query: str, k: int) -> RetrievalResult:
        import time

        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        start = time.perf_counter()
        trace: list[TraceEvent] = []
        ranked = self._run(query, k, trace)
        ranked = _dedupe(ranked)[:k]
        return RetrievalResult(
            tuple(key for key, _ in ranked), tuple(float(s) for _, s in ranked), tuple(trace),
            time.perf_counter() - start,
        )

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------

    def rng(self, query: str) -> random.Random:
        """A generator seeded by the strategy seed and the query, so runs replay exactly."""
        digest = hashlib.sha256(f"{self.seed}\0{self.name}\0{query}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "little"))

    def ret_many(self, texts: Sequence[str], trace: list[TraceEvent] | None, **meta: Any) -> list[Retrieval]:
        """RET(d, T, k) for several descriptions, embedding them in one batch (FitText Eq. 1)."""
        if not texts:
            return []
        return self.ret_with_vectors(texts, trace, **meta)[0]

    def ret_with_vectors(self, texts: Sequence[str], trace: list[TraceEvent] | None, **meta: Any):
        """Like :meth:`ret_many` but also returns the description embeddings (for crowding)."""
        vecs = self.engine.embed(list(texts), persist=False)
        out = []
        for text, vec in zip(texts, vecs, strict=True):
            keys, scores = self.engine.search_vector(vec, self.k_ret)
            out.append(Retrieval(text, keys, scores))
            if trace is not None:
                trace.append(TraceEvent("retrieval", {"text": text, "keys": list(keys),
                                                      "scores": [round(s, 6) for s in scores], **meta}))
        return out, vecs

    def ret(self, text: str, trace: list[TraceEvent] | None, **meta: Any) -> Retrieval:
        return self.ret_many([text], trace, **meta)[0]

    def similarities_to(self, vector: np.ndarray, keys: Sequence[str]) -> list[float]:
        """Cosine similarity of ``vector`` (normalised) to each tool of ``keys``, in their order."""
        rows = [self.engine.key_to_index[k] for k in keys if k in self.engine.key_to_index]
        if not rows:
            return []
        return [float(x) for x in np.asarray(self.engine.vectors[rows]) @ np.asarray(vector, dtype=np.float32)]

    def blurbs(self, keys: Iterable[str]) -> list[str]:
        return [blurb(self._by_key[k].name, self._by_key[k].description) for k in keys if k in self._by_key]

    def call(self, trace: list[TraceEvent], role_call: Any, **meta: Any) -> Any:
        """Record an LLM role call in the trace and return its value (None when it failed)."""
        trace.append(TraceEvent("llm_call", {
            "role": role_call.role, "call_id": role_call.call_id, "ok": role_call.ok,
            "error": role_call.error, "output": role_call.value, **meta,
        }))
        return role_call.value if role_call.ok else None

    def parallel(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """Run role calls concurrently (a generation costs about one call's latency), order kept; the first
        failure, in item order, is raised once every call is over."""
        return map_or_raise(fn, items, self.max_workers)

    def run_lineages(self, ancestors: Sequence[str], lineage: Callable[..., list], trace: list[TraceEvent]) -> list:
        """Run ``lineage(ai, ancestor, trace, memory)`` for every ancestor.

        In parallel (the default) each lineage reads the tool memory as it was when the query
        started and gets its own trace; afterwards traces and memory writes are merged in
        ancestor order, so results do not depend on thread timing. ``parallel_lineages=False``
        runs them one after another on the shared memory, as Alg. 1 reads literally.
        """
        if not self.parallel_lineages or len(ancestors) <= 1:
            return [lineage(ai, a, trace, self.memory) for ai, a in enumerate(ancestors)]
        base = len(self.memory.entries)
        jobs = [(ai, a, [], ToolMemory(list(self.memory.entries))) for ai, a in enumerate(ancestors)]
        results = self.parallel(lambda job: lineage(*job), jobs)
        for _, _, sub_trace, memory in jobs:
            trace.extend(sub_trace)
            self.memory.entries.extend(memory.entries[base:])
        return results

    def ancestors(self, query: str, trace: list[TraceEvent]) -> list[str]:
        """The initial pseudo-tool descriptions D_0; the raw query stands in when the LLM gives none."""
        found = self.call(trace, self.ops.pseudo_tools(query)) or []
        found = [d for d in found if d and d.strip()]
        if not found:
            trace.append(TraceEvent("fallback", {"reason": "no pseudo-tool description parsed; using the query"}))
            found = [query]
        for i, d in enumerate(found):
            trace.append(TraceEvent("description", {"id": f"a{i}", "text": d, "origin": "ancestor", "generation": 0}))
        return found


def merge_by_max(retrievals: Sequence[Retrieval]) -> list[tuple[str, float]]:
    """Union of several retrievals, each tool scored by its best similarity."""
    best: dict[str, float] = {}
    for r in retrievals:
        for key, score in zip(r.keys, r.scores, strict=True):
            if score > best.get(key, float("-inf")):
                best[key] = score
    return sorted(best.items(), key=lambda kv: -kv[1])


def interleave(groups: Sequence[Sequence[tuple[str, float]]]) -> list[tuple[str, float]]:
    """Round-robin over per-ancestor rankings, so a multi-intent query gets each intent's best tools
    within the first k (the papers extend one list ancestor after ancestor; as a set it is the same)."""
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


LINEAGE_MERGES = ("interleave", "max")


def merge_lineages(groups: Sequence[Sequence[tuple[str, float]]], how: str = "interleave") -> list[tuple[str, float]]:
    """The per-ancestor rankings of a query as one: ``"interleave"`` (:func:`interleave`, each intent's winners in
    turn) or ``"max"`` (every tool at its best score over the ancestors, highest first, as Single-Pass merges its
    retrievals: a weak ancestor's list then gives way to a strong one's). FitText concatenates the lists (our
    choice of order either way)."""
    if how == "interleave":
        return interleave(groups)
    if how == "max":
        best: dict[str, float] = {}
        for group in groups:
            for key, score in group:
                best[key] = max(score, best.get(key, float("-inf")))
        return sorted(best.items(), key=lambda kv: -kv[1])
    raise ValueError(f"unknown lineage merge {how!r}; valid merges: {', '.join(LINEAGE_MERGES)}")


def _dedupe(ranked: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    seen: set[str] = set()
    out = []
    for key, score in ranked:
        if key not in seen:
            seen.add(key)
            out.append((key, score))
    return out
