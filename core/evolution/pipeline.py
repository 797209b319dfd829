"""The continual procedure (CONTDA Alg. 1, §4.3) for every method over one toolset sequence.

At each step t ≥ 1 a method starts from its documentation of step t−1: retained tools keep their
adapted documentation (Alg. 1 lines 2–3), a renamed tool keeps its old one, and new tools — and tools the
catalog itself rewrote, whose old adaptation no longer describes them — start from the catalog's text
(renamed and rewritten tools are our definition: the paper's toolsets only gain and lose tools).
Stage I then explores the new tools, Stage II re-annotates the toolset, and the step is evaluated. Step 0
is evaluated on the catalog's documentation for every method (the paper's loop starts at t = 1).

Results come out one (step, method) at a time through ``on_result`` so the caller can store them; a run
resumes by handing back the stored results in ``done`` — the documentation state is rebuilt from their
revisions, and nothing finished is recomputed.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.concurrency import run_stage
from core.evolution.adjust import AdjustConfig, adjust
from core.evolution.docs import (
    STAGE_ADJUST,
    STAGE_EXPLORE,
    STAGE_SOURCE,
    Revision,
    compose,
    split_notes,
)
from core.evolution.evaluate import Retrieve, StepEvaluation, evaluate_step
from core.evolution.explore import Anchors, Embed, Exploration, ExploreConfig, explore_tools
from core.evolution.methods import check_methods, get_method
from core.evolution.roles import AdaptationOperators, ProbeTrace
from core.evolution.sequence import ToolsetSequence
from core.models import Query

JUDGES = ("selection", "execution")


@dataclass(frozen=True)
class EvolutionConfig:
    k: int = 5  # top-k retrieval (the paper's setting, App. B.4)
    explore: ExploreConfig = field(default_factory=ExploreConfig)
    adjust: AdjustConfig = field(default_factory=AdjustConfig)
    concurrency: int = 1  # new tools explored at once (prompted roles and executors wait on I/O)
    judge: str = "selection"  # "execution": a picked gold tool must also answer a real call (needs executors)
    index_notes: bool = False  # retrieval indexes bodies only; notes are for the selecting agent (see evaluate_step)
    # after a failed call the agent may follow the relational notes to a fallback (CONTDA Fig. 9; our rule, see
    # core.evolution.evaluate): takes effect with the execution judge and where notes name a fallback
    fallback: bool = True

    def __post_init__(self) -> None:
        if self.judge not in JUDGES:
            raise ValueError(f"unknown judge {self.judge!r}; valid judges: {', '.join(JUDGES)}")
        if self.k < 1:
            raise ValueError(f"EvolutionConfig.k must be >= 1, got {self.k}")
        if self.concurrency < 1:
            raise ValueError(f"EvolutionConfig.concurrency must be >= 1, got {self.concurrency}")

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "explore": self.explore.to_json(), "adjust": self.adjust.to_json(),
                "concurrency": self.concurrency, "judge": self.judge, "index_notes": self.index_notes,
                "fallback": self.fallback}


@dataclass(frozen=True)
class StepResult:
    """One method at one step: the evaluation, every documentation revision made at this step (with its
    evidence), Stage I's explorations and Stage II's clusters."""

    seed: int
    step: int
    method: str
    evaluation: StepEvaluation
    revisions: tuple[Revision, ...] = ()
    explorations: tuple[Exploration, ...] = ()
    adjustment: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self, *, with_explorations: bool = True) -> dict[str, Any]:
        out = {"seed": self.seed, "step": self.step, "method": self.method, "evaluation": self.evaluation.to_json(),
               "revisions": [r.to_json() for r in self.revisions], "adjustment": dict(self.adjustment),
               "seconds": round(self.seconds, 4)}
        if with_explorations:
            out["explorations"] = [e.to_json() for e in self.explorations]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepResult:
        return cls(int(data["seed"]), int(data["step"]), str(data["method"]),
                   StepEvaluation.from_json(data["evaluation"]),
                   tuple(Revision.from_json(r) for r in data.get("revisions", ())),
                   tuple(Exploration.from_json(e) for e in data.get("explorations", ())),
                   dict(data.get("adjustment") or {}), float(data.get("seconds", 0.0)))


@dataclass
class _State:
    """A method's documentation of the current toolset and the Stage I evidence of its tools."""

    docs: dict[str, str]
    traces: dict[str, tuple[ProbeTrace, ...]] = field(default_factory=dict)
    clusters: tuple[tuple[str, ...], ...] = ()  # Stage II's last clusters, which seed the next step's


def _hash(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def carry_over(prev: _State, sequence: ToolsetSequence, t: int) -> tuple[_State, list[Revision], list[str]]:
    """Alg. 1 lines 2–4: documentation for T_t from a method's T_{t−1} state. Returns the new state, the
    source revisions (tools the catalog rewrote) and NEW_t (added tools plus rewritten ones)."""
    diff = sequence.diffs[t - 1]
    renamed_from = {new: old for old, new in diff.renamed}
    renamed_to = dict(diff.renamed)
    changed = set(diff.changed)
    docs: dict[str, str] = {}
    traces: dict[str, tuple[ProbeTrace, ...]] = {}
    revisions: list[Revision] = []
    new: list[str] = []
    for tool in sequence.steps[t]:
        old = renamed_from.get(tool.key, tool.key)
        if old in prev.docs and tool.key not in changed:
            docs[tool.key] = prev.docs[old]
            if old in prev.traces:
                traces[tool.key] = prev.traces[old]
            continue
        docs[tool.key] = tool.description
        new.append(tool.key)
        if tool.key in changed and tool.key in prev.docs:
            revisions.append(Revision(tool.key, t, STAGE_SOURCE, prev.docs[tool.key], tool.description,
                                      {"reason": "the catalog rewrote this tool's documentation or schema"}))
    clusters = tuple(tuple(renamed_to.get(k, k) for k in c) for c in prev.clusters)
    return _State(docs, traces, clusters), revisions, new


class ContinualRunner:
    """Runs every method of one seed over a sequence. Collaborators are passed in: the adaptation roles,
    the embedding function (normalised vectors, cached), the retriever, the selector and an optional
    executor router for probes; ``fallback`` is the agent's choice after a failed call (default: the
    selector's ``fallback`` method when it has one; ``config.fallback=False`` turns it off)."""

    def __init__(self, sequence: ToolsetSequence, queries: Sequence[Query], *, ops: AdaptationOperators,
                 embed: Embed, retrieve: Retrieve, select: Callable[..., Sequence[str]], router: Any = None,
                 config: EvolutionConfig | None = None, seed: int = 0, verify: Any = None,
                 fallback: Any = None) -> None:
        self.sequence = sequence
        self.queries = list(queries)
        self.ops = ops
        self.embed = embed
        self.retrieve = retrieve
        self.select = select
        self.router = router
        self.config = config or EvolutionConfig()
        self.seed = int(seed)
        self.verify = verify
        # the agent's fallback choice: given, else the selector's own (MemoSelector.fallback); off by config
        self.fallback = (fallback or getattr(select, "fallback", None)) if self.config.fallback else None
        self._explored: dict[str, Exploration] = {}
        self._notes_cache: dict[str, Mapping[str, str]] = {}
        self._lock = threading.Lock()

    # -- stages -----------------------------------------------------------------------------------

    def _explore(self, t: int, state: _State, new: Sequence[str]) -> list[Exploration]:
        """Stage I for NEW_t. Runs with identical inputs (same tool, same text, same anchor bodies) are
        shared between methods: CONTDA and its no-adjustment ablation explore the same way."""
        new_set = set(new)
        tools = {tool.key: tool for tool in self.sequence.steps[t]}
        anchor_tools = tuple(tool for tool in self.sequence.steps[t] if tool.key not in new_set)
        bodies = tuple(split_notes(state.docs[tool.key])[0] for tool in anchor_tools)
        vectors = self.embed(list(bodies)) if bodies else np.zeros((0, 1), dtype=np.float32)
        anchors = Anchors(anchor_tools, bodies, vectors)
        anchor_sig = _hash(*(f"{tool.key}={b}" for tool, b in zip(anchor_tools, bodies, strict=True)))

        memos = {key: _hash(t, key, state.docs[key], anchor_sig) for key in new}
        with self._lock:
            todo = [key for key in new if memos[key] not in self._explored]
        if todo:
            rngs = [random.Random(int(_hash(self.seed, t, key)[:15], 16)) for key in todo]
            fresh = explore_tools([tools[k] for k in todo], [state.docs[k] for k in todo], anchors, self.ops,
                                  self.embed, router=self.router, config=self.config.explore, rngs=rngs,
                                  concurrency=self.config.concurrency)
            with self._lock:
                for key, result in zip(todo, fresh, strict=True):
                    self._explored[memos[key]] = result
        with self._lock:
            return [self._explored[memos[key]] for key in new]

    def _adjust(self, t: int, state: _State) -> tuple[dict[str, str], dict[str, Any]]:
        tools = self.sequence.steps[t]
        keys = [tool.key for tool in tools]
        bodies = [split_notes(state.docs[k])[0] for k in keys]
        result = adjust(keys, [tool.name for tool in tools], bodies, self.embed(bodies), state.traces, self.ops,
                        self.embed, config=self.config.adjust, cache=self._notes_cache, previous=state.clusters)
        state.clusters = result.clusters
        return dict(result.notes), result.to_json()

    # -- the procedure ----------------------------------------------------------------------------

    def advance(self, t: int, method: str, prev: _State) -> tuple[_State, StepResult]:
        """One method from step t−1 to step t (Alg. 1 body), then its evaluation."""
        start = time.perf_counter()
        spec = get_method(method)
        state, revisions, new = carry_over(prev, self.sequence, t)
        explorations: list[Exploration] = []
        if spec.explore and new:
            explorations = self._explore(t, state, new)
            for e in explorations:
                before = state.docs[e.key]
                after = compose(e.after, split_notes(before)[1])
                state.traces[e.key] = e.traces
                if after != before:
                    state.docs[e.key] = after
                    revisions.append(Revision(e.key, t, STAGE_EXPLORE, before, after, _exploration_evidence(e)))
        adjustment: dict[str, Any] = {}
        if spec.adjust:
            notes, adjustment = self._adjust(t, state)
            clusters = {k: c for c in adjustment.get("clusters", []) for k in c}
            for key in list(state.docs):
                before = state.docs[key]
                after = compose(split_notes(before)[0], notes.get(key, ""))
                if after != before:
                    state.docs[key] = after
                    revisions.append(Revision(key, t, STAGE_ADJUST, before, after,
                                              {"cluster": list(clusters.get(key, [key]))}))
        evaluation = self._evaluate(t, method, state)
        return state, StepResult(self.seed, t, method, evaluation, tuple(revisions), tuple(explorations),
                                 adjustment, time.perf_counter() - start)

    def _evaluate(self, t: int, method: str, state: _State) -> StepEvaluation:
        return evaluate_step(t, method, self.sequence.steps[t], state.docs, self.queries, self.retrieve,
                             self.select, k=self.config.k, verify=self.verify, index_notes=self.config.index_notes,
                             fallback=self.fallback)

    def initial(self) -> _State:
        return _State({tool.key: tool.description for tool in self.sequence.steps[0]})

    def replay(self, prev: _State, t: int, stored: StepResult) -> _State:
        """A method's state at t rebuilt from a stored result (resume): carry over, then its revisions."""
        state, _, _ = carry_over(prev, self.sequence, t)
        for e in stored.explorations:
            if e.key in state.docs:
                state.traces[e.key] = e.traces
        for r in stored.revisions:
            if r.key in state.docs:
                state.docs[r.key] = r.after
        if stored.adjustment.get("clusters"):
            state.clusters = tuple(tuple(c) for c in stored.adjustment["clusters"])
        return state

    def run(self, methods: Sequence[str], *, done: Mapping[tuple[int, str], StepResult] | None = None,
            on_result: Callable[[StepResult], None] | None = None,
            cancelled: Callable[[], bool] | None = None,
            progress: Callable[[float, str], None] | None = None) -> list[StepResult]:
        """Every method over every step; ``done`` results are reused, new ones go to ``on_result``.

        Each step is a resumable stage over the methods (core.concurrency.run_stage), one method at a time:
        a step's state comes from the one before it. ``cancelled()`` is asked after each new result and
        raises :class:`core.concurrency.StageCancelled` (what finished has gone to ``on_result``)."""
        methods = check_methods(methods)
        done = dict(done or {})
        out: list[StepResult] = []
        states = {m: self.initial() for m in methods}
        total = len(self.sequence.steps) * len(methods)
        for t in range(len(self.sequence.steps)):
            stored = {m: done[(t, m)] for m in methods if (t, m) in done}
            if t > 0:
                for method, result in stored.items():
                    states[method] = self.replay(states[method], t, result)

            def work(method: str, t: int = t) -> StepResult:
                if progress is not None:
                    share = (t * len(methods) + methods.index(method)) / total
                    progress(share, f"seed {self.seed}: step {t}, {get_method(method).label}")
                if t == 0:
                    return StepResult(self.seed, 0, method, self._evaluate(0, method, states[method]))
                states[method], result = self.advance(t, method, states[method])
                return result

            results = run_stage(methods, work, key=lambda m: m, stored=stored,
                                save=(lambda _m, result: on_result(result)) if on_result is not None else None,
                                workers=1, name=f"step {t}", cancelled=cancelled)
            out.extend(results.values())
        if progress is not None:
            progress(1.0, f"seed {self.seed}: done")
        return out


def _exploration_evidence(e: Exploration) -> dict[str, Any]:
    """What a Stage I revision rests on, small enough to keep with the revision."""
    return {"stop": e.stop, "iterations": len(e.iterations),
            "probes": [[tr.probe.track, tr.probe.query, tr.outcome] for tr in e.traces],
            "related": [r for it in e.iterations for r in it.get("related", [])][:6],
            "suggestions": [s for it in e.iterations for s in it.get("suggestions", [])][-6:]}
