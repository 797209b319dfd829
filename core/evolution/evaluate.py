"""One step's evaluation: E(q, r_t) for every query on the toolset T_t with one method's documentation
(CONTDA App. B.3, Eq. 13).

A query succeeds when every gold tool is available at t, is retrieved in the top k over the method's
documentation, and is picked by the agent's selection step shown those k candidates with their
documentation. With the execution judge, a picked gold tool that an executor reaches must also answer a
call planned from the query (a GRETEL-style trial). The first condition that fails is the query's cause
(CONTDA Table 1: tool unavailable, retrieval failure, selection confusion; plus a failed call), which the
timeline's regression list reports.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.evolution.metrics import success_rate
from core.models import Query, Tool

REMOVED = "tool removed"
NOT_RETRIEVED = "not retrieved"
NOT_SELECTED = "not selected"
CALL_FAILED = "call failed"
CAUSES = (REMOVED, NOT_RETRIEVED, NOT_SELECTED, CALL_FAILED)


@dataclass(frozen=True)
class QueryOutcome:
    qid: str
    success: bool
    cause: str = ""  # "" on success, else one of CAUSES
    retrieved: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()

    def to_json(self) -> list[Any]:
        return [self.qid, self.success, self.cause, list(self.retrieved), list(self.selected)]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> QueryOutcome:
        return cls(str(data[0]), bool(data[1]), str(data[2]), tuple(data[3]), tuple(data[4]))


@dataclass(frozen=True)
class StepEvaluation:
    step: int
    method: str
    outcomes: tuple[QueryOutcome, ...]
    seconds: float = 0.0

    @property
    def success(self) -> tuple[bool, ...]:
        return tuple(o.success for o in self.outcomes)

    @property
    def success_rate(self) -> float:
        return success_rate(self.success) if self.outcomes else 0.0

    def causes(self) -> dict[str, int]:
        out = dict.fromkeys(CAUSES, 0)
        for o in self.outcomes:
            if o.cause:
                out[o.cause] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "method": self.method, "outcomes": [o.to_json() for o in self.outcomes],
                "success_rate": round(self.success_rate, 6), "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepEvaluation:
        return cls(int(data["step"]), str(data["method"]),
                   tuple(QueryOutcome.from_json(o) for o in data["outcomes"]), float(data.get("seconds", 0.0)))


Retrieve = Callable[[Sequence[Tool], Sequence[str], int], list[list[str]]]


def dense_retriever(embedder: Any, cache: Any = None, *, with_parameters: bool = True) -> Retrieve:
    """Top-k by FAISS inner product over the documentation as given (``SearchEngine`` with the vector
    cache, so only documentation that changed is encoded again); ``with_parameters`` is the workspace's
    tool-text setting."""
    from core.search.engine import SearchEngine

    def retrieve(tools: Sequence[Tool], texts: Sequence[str], k: int) -> list[list[str]]:
        engine = SearchEngine.build(tools, embedder, cache=cache, with_parameters=with_parameters)
        return [list(r.keys) for r in engine.search_batch(list(texts), k, mode="dense")]
    return retrieve


class MemoSelector:
    """The selection role with a memory: the same query shown the same candidates with the same texts is
    asked once per run (methods that did not change a step's documentation share answers)."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops
        self._memo: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0

    def __call__(self, query: str, candidates: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        blob = "\x1f".join([query, *(f"{k}\x1e{t}" for k, t in candidates)])
        key = hashlib.sha256(blob.encode()).hexdigest()
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        call = self.ops.select_tools(query, list(candidates))
        picked = tuple(str(k) for k in call.value) if call.ok and call.value else ()
        with self._lock:
            self.calls += 1
            self.failures += 0 if call.ok else 1
            if call.ok:
                self._memo[key] = picked
        return picked


def doc_tools(tools: Sequence[Tool], docs: Mapping[str, str]) -> list[Tool]:
    """The step's tools with each description replaced by the method's documentation."""
    return [replace(t, description=docs.get(t.key, t.description)) for t in tools]


Verify = Callable[[Query, Tool], "bool | None"]


class TrialVerifier:
    """The execution judge: a picked gold tool is called with arguments planned from the query (offline
    planner, no simulation). True when the call gave a real answer, False when it failed, None when no
    executor reaches the tool (the selection verdict stands). Answers are remembered per (query, tool)."""

    def __init__(self, router: Any, *, today: str = "2025-06-02", timeout: float = 10.0) -> None:
        from core.llm.framework import make_roles
        from core.trials.pipeline import TrialConfig

        self.router = router
        self.config = TrialConfig(k=1, simulate=False, timeout=timeout, concurrency=1, today=today)
        self.ops = make_roles("trials", "offline")
        self._memo: dict[tuple[str, str, str], bool | None] = {}
        self._lock = threading.Lock()

    def __call__(self, query: Query, tool: Tool) -> bool | None:
        from core.trials.evidence import TrialOutcome
        from core.trials.pipeline import run_trial

        key = (query.id, query.text, tool.key)
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        if self.router.for_tool(tool) is None:
            verdict = None
        else:
            trial = run_trial(query.text, tool, 1, self.router, self.ops, self.config)
            verdict = None if trial.outcome == TrialOutcome.NOT_EXECUTED else trial.outcome == TrialOutcome.FUNCTIONAL_SUCCESS
        with self._lock:
            self._memo[key] = verdict
        return verdict


def evaluate_step(step: int, method: str, tools: Sequence[Tool], docs: Mapping[str, str],
                  queries: Sequence[Query], retrieve: Retrieve, select: Callable[..., Sequence[str]], *,
                  k: int = 5, verify: Verify | None = None, index_notes: bool = False) -> StepEvaluation:
    """CONTDA App. B.3: E(q, r_t) ∈ {0, 1} for each query (see the module docstring for the rule).

    Retrieval indexes each tool's documentation body; the relational notes are shown to the selection step
    only (``index_notes=True`` indexes them too). Notes name other tools and list what they share, which
    on our measurements pulled tools out of the top k for their own queries (demo timeline, MiniLM)."""
    from core.evolution.docs import split_notes

    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    start = time.perf_counter()
    present = {t.key for t in tools}
    by_key = {t.key: t for t in tools}
    shown = doc_tools(tools, docs)
    blurbs = {t.key: f"{t.name}: {t.description}" for t in shown}
    if not index_notes:
        shown = [replace(t, description=split_notes(t.description)[0]) for t in shown]
    askable = [q for q in queries if q.gold and set(q.gold) <= present]
    rankings = dict(zip((q.id for q in askable), retrieve(shown, [q.text for q in askable], k), strict=True)) \
        if askable else {}
    outcomes = []
    for q in queries:
        if q.id not in rankings:
            outcomes.append(QueryOutcome(q.id, False, REMOVED))
            continue
        top = tuple(rankings[q.id][:k])
        if not set(q.gold) <= set(top):
            outcomes.append(QueryOutcome(q.id, False, NOT_RETRIEVED, top))
            continue
        picked = tuple(select(q.text, [(key, blurbs[key]) for key in top]))
        if not set(q.gold) <= set(picked):
            outcomes.append(QueryOutcome(q.id, False, NOT_SELECTED, top, picked))
            continue
        # the catalog's own tool is called: the documentation method changes what is picked, not the tool
        failed = verify is not None and any(verify(q, by_key[g]) is False for g in q.gold)
        outcomes.append(QueryOutcome(q.id, not failed, CALL_FAILED if failed else "", top, picked))
    return StepEvaluation(step, method, tuple(outcomes), time.perf_counter() - start)
