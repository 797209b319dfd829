"""One step's evaluation: E(q, r_t) for every query on the toolset T_t with one method's documentation
(CONTDA App. B.3, Eq. 13).

A query succeeds when every gold tool is available at t, is retrieved in the top k over the method's
documentation, and is picked by the agent's selection step shown those k candidates with their
documentation. With the execution judge, a picked gold tool that an executor reaches must also answer a
call planned from the query (a GRETEL-style trial). The first condition that fails is the query's cause
(CONTDA Table 1: tool unavailable, retrieval failure, selection confusion; plus a failed call), which the
timeline's regression list reports.

Fallback (CONTDA Fig. 9, App. C.2.1; switch ``fallback``): with the execution judge every picked tool is
called, and when a call fails the agent may follow the failed tool's relational notes to a fallback and call
that instead (the ``choose_fallback`` role). The paper shows this in a case study only and gives no rule; the
rule here is our definition: at most ``MAX_FALLBACK_CALLS`` fallback calls per failed pick, each chosen among
the retrieved candidates and the present tools the notes name; a fallback that answers counts as called.
The query is solved when every gold tool was called and answered, picked directly or reached as a fallback,
or was picked and failed and a fallback reached from it answered (the fallback stood in for it, as the notes
say it may: with the execution judge an answer counts when the trial classes it a functional success, which
asks the answer to address the request).
Without an executor there is no call and so nothing to fall back from. E(q, r_t) is our offline stand-in
for the paper's LLM judge of the response (App. B.3): the gold-tool rule above is our definition.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.evolution.docs import fallback_keys, split_notes
from core.evolution.metrics import success_rate
from core.models import Query, Tool

REMOVED = "tool removed"
NOT_RETRIEVED = "not retrieved"
NOT_SELECTED = "not selected"
CALL_FAILED = "call failed"
CAUSES = (REMOVED, NOT_RETRIEVED, NOT_SELECTED, CALL_FAILED)
MAX_FALLBACK_CALLS = 2  # fallback calls after one failed pick (our definition; the paper gives no limit)


@dataclass(frozen=True)
class QueryOutcome:
    qid: str
    success: bool
    cause: str = ""  # "" on success, else one of CAUSES
    retrieved: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()
    # (failed tool, fallback called, whether it answered), in call order; () when no call failed or no fallback
    fallbacks: tuple[tuple[str, str, bool], ...] = ()

    def to_json(self) -> list[Any]:
        out = [self.qid, self.success, self.cause, list(self.retrieved), list(self.selected)]
        return [*out, [list(f) for f in self.fallbacks]] if self.fallbacks else out

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> QueryOutcome:
        """Reads both shapes: five fields (stored before fallbacks existed, or with none) or six."""
        hops = tuple((str(a), str(b), bool(ok)) for a, b, ok in data[5]) if len(data) > 5 else ()
        return cls(str(data[0]), bool(data[1]), str(data[2]), tuple(data[3]), tuple(data[4]), hops)


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

    @property
    def rescued(self) -> int:
        """Queries solved thanks to a fallback call that answered."""
        return sum(1 for o in self.outcomes if o.success and any(ok for _a, _b, ok in o.fallbacks))

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
        self._fallbacks: dict[str, str | None] = {}
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

    def fallback(self, query: str, failed: tuple[str, str], error: str,
                 candidates: Sequence[tuple[str, str]]) -> str | None:
        """The ``choose_fallback`` role, remembered like a selection (a failed call answers None: stop)."""
        blob = "\x1f".join(["fallback", query, *failed, error, *(f"{k}\x1e{t}" for k, t in candidates)])
        key = hashlib.sha256(blob.encode()).hexdigest()
        with self._lock:
            if key in self._fallbacks:
                return self._fallbacks[key]
        call = self.ops.choose_fallback(query, failed, error, list(candidates))
        known = {k for k, _ in candidates}
        chosen = str(call.value) if call.ok and call.value is not None and str(call.value) in known else None
        with self._lock:
            self.calls += 1
            self.failures += 0 if call.ok else 1
            if call.ok:
                self._fallbacks[key] = chosen
        return chosen


def doc_tools(tools: Sequence[Tool], docs: Mapping[str, str]) -> list[Tool]:
    """The step's tools with each description replaced by the method's documentation."""
    return [replace(t, description=docs.get(t.key, t.description)) for t in tools]


Verify = Callable[[Query, Tool], "bool | None"]
Fallback = Callable[[str, tuple[str, str], str, Sequence[tuple[str, str]]], "str | None"]


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
        self._errors: dict[tuple[str, str, str], str] = {}
        self._lock = threading.Lock()

    def __call__(self, query: Query, tool: Tool) -> bool | None:
        from core.trials.evidence import TrialOutcome
        from core.trials.pipeline import run_trial

        key = (query.id, query.text, tool.key)
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        error = ""
        if self.router.for_tool(tool) is None:
            verdict = None
        else:
            trial = run_trial(query.text, tool, 1, self.router, self.ops, self.config)
            verdict = None if trial.outcome == TrialOutcome.NOT_EXECUTED else trial.outcome == TrialOutcome.FUNCTIONAL_SUCCESS
            error = "" if verdict is not False else f"{trial.outcome}: {trial.reason}"
        with self._lock:
            self._memo[key] = verdict
            self._errors[key] = error
        return verdict

    def error_of(self, query: Query, tool: Tool) -> str:
        """What the remembered call of ``tool`` for ``query`` failed with ('' when it did not fail)."""
        with self._lock:
            return self._errors.get((query.id, query.text, tool.key), "")


def evaluate_step(step: int, method: str, tools: Sequence[Tool], docs: Mapping[str, str],
                  queries: Sequence[Query], retrieve: Retrieve, select: Callable[..., Sequence[str]], *,
                  k: int = 5, verify: Verify | None = None, index_notes: bool = False,
                  fallback: Fallback | None = None) -> StepEvaluation:
    """CONTDA App. B.3: E(q, r_t) ∈ {0, 1} for each query (see the module docstring for the rule; the rule
    is our offline stand-in for the paper's LLM judge).

    Retrieval indexes each tool's documentation body; the relational notes are shown to the selection step
    only. ``index_notes=True`` indexes the whole documentation, notes appended, which is what the paper
    describes: the notes are appended to d_{i,t} and the agent works from D*_t (§4.2, and Fig. 10 shows the
    adapted documentation changing retrieval). Body-only indexing is our default, a named departure: the
    notes name other tools and list what they share, which on our measurements pulled tools out of the top k
    for their own queries (demo timeline, MiniLM).

    ``fallback`` (the ``choose_fallback`` role; None: off) is asked when a picked tool's call fails; it needs
    ``verify`` (the execution judge), since only a call can fail. With it off, or without ``verify``, the
    outcome is exactly the one-pass rule: gold picked, then the gold tools' calls checked."""
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
    error_of = getattr(verify, "error_of", None)
    outcomes = []
    for q in queries:
        if q.id not in rankings:
            outcomes.append(QueryOutcome(q.id, False, REMOVED))
            continue
        top = tuple(rankings[q.id][:k])
        if verify is not None and fallback is not None:
            # the agent picks and calls even when a gold tool was not retrieved: a fallback the notes name
            # may still reach it
            picked = tuple(select(q.text, [(key, blurbs[key]) for key in top]))
            outcomes.append(_with_fallback(q, top, picked, by_key, blurbs, verify, fallback, error_of))
            continue
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


def _origin(key: str, hops: Sequence[tuple[str, str, bool]]) -> str:
    """The picked tool a chain of fallback calls started from (``key`` itself when it was picked)."""
    back = {b: a for a, b, _ok in hops}
    while key in back:
        key = back[key]
    return key


def _with_fallback(q: Query, top: tuple[str, ...], picked: tuple[str, ...], by_key: Mapping[str, Tool],
                   blurbs: Mapping[str, str], verify: Verify, fallback: Fallback, error_of: Any) -> QueryOutcome:
    """One query with calls and fallbacks (module docstring; our definition of the paper's Fig. 9 agent):
    every picked tool is called; a failed one lets the agent choose, up to ``MAX_FALLBACK_CALLS`` times, a
    tool among the retrieved candidates and the present tools the failed tool's notes name."""
    answered: list[str] = []
    hops: list[tuple[str, str, bool]] = []
    tried = set(picked)
    for p in picked:
        if p not in by_key:
            continue
        if verify(q, by_key[p]) is not False:  # answered, or no executor reaches it (selection stands)
            answered.append(p)
            continue
        current = p
        for _ in range(MAX_FALLBACK_CALLS):
            named = [key for key in fallback_keys(split_notes(blurbs[current])[1]) if key in by_key]
            offer = [key for key in dict.fromkeys([*top, *named]) if key not in tried]
            if not offer:
                break
            error = error_of(q, by_key[current]) if error_of is not None else ""
            chosen = fallback(q.text, (current, blurbs[current]), error or "the call failed",
                              [(key, blurbs[key]) for key in offer])
            if chosen is None or chosen not in offer:
                break
            tried.add(chosen)
            ok = verify(q, by_key[chosen]) is not False
            hops.append((current, chosen, ok))
            if ok:
                answered.append(chosen)
                break
            current = chosen
    gold = set(q.gold)
    # a fallback that answered in place of a failed gold tool stands in for it ("use X when this tool fails")
    stood_in = {_origin(a, hops) for a, _b, ok in hops if ok}
    if gold <= set(answered) | stood_in:
        return QueryOutcome(q.id, True, "", top, picked, tuple(hops))
    reached = set(picked) | {b for _a, b, _ok in hops}
    cause = CALL_FAILED if gold <= reached else NOT_SELECTED if gold <= set(top) | reached else NOT_RETRIEVED
    # the one-pass rule records no selection for a gold tool that was not retrieved; neither does this
    shown = picked if cause != NOT_RETRIEVED or hops else ()
    return QueryOutcome(q.id, False, cause, top, shown, tuple(hops))
