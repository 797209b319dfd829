"""Stage I of CONTDA: relation-guided exploration of one newly introduced tool (Alg. 1 lines 5–22).

Per iteration: find related existing tools (Eqs. 1–2 / 6–7), ask for three probes (App. A.2), drop the
ones too close to what was already explored (App. A.3), run the rest through an executor when one reaches
the tool, turn the traces into suggestions and a refined body (App. A.4, Eqs. 8–9), and stop when the
body settles (Eq. 10) or the budget is spent (App. A.5).

Similarity between tools is computed on documentation *bodies* (relational notes left out): notes name
other tools, and relevance should be about what a tool does, not about whom it is grouped with.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from core.concurrency import map_or_raise
from core.evolution.docs import split_notes
from core.evolution.roles import AdaptationOperators, Peer, Probe, ProbeTrace
from core.evolution.similarity import change_score
from core.models import Tool

Embed = Callable[[Sequence[str]], np.ndarray]
MAX_ITEMS = 3  # lists in a stored response keep their first items: enough to read the shape


@dataclass(frozen=True)
class ExploreConfig:
    """Stage I settings. The paper fixes none of these numbers; they are ours, chosen on MiniLM cosines
    (related tools of one job score 0.45–0.75, paraphrased probes above 0.9)."""

    tau: float = 0.45  # Eq. 1: minimum similarity of a related tool
    k: int = 3  # Eq. 2: related tools sampled per iteration
    max_iterations: int = 3  # App. A.5 budget
    delta: float = 0.92  # Eq. 10 stop threshold on Δ
    redundancy: float = 0.9  # App. A.3: a probe this close to an explored one is dropped
    timeout: float = 10.0  # seconds per probe call
    today: str = "2025-06-02"  # the date relative values in probes resolve against

    def __post_init__(self) -> None:
        for name in ("tau", "delta", "redundancy"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"ExploreConfig.{name} must be in [0, 1], got {value}")
        if self.k < 1 or self.max_iterations < 1:
            raise ValueError(f"ExploreConfig.k and max_iterations must be >= 1, got {self.k} and {self.max_iterations}")
        if self.timeout <= 0:
            raise ValueError(f"ExploreConfig.timeout must be > 0, got {self.timeout}")
        date.fromisoformat(self.today)

    def to_json(self) -> dict[str, Any]:
        return {"tau": self.tau, "k": self.k, "max_iterations": self.max_iterations, "delta": self.delta,
                "redundancy": self.redundancy, "timeout": self.timeout, "today": self.today}


@dataclass(frozen=True)
class Exploration:
    """The outcome of Stage I for one tool: the refined body, every trace (F_i) and a record per
    iteration (related tools with scores, probes kept and dropped, suggestions, Δ, call ids)."""

    key: str
    before: str
    after: str
    traces: tuple[ProbeTrace, ...]
    iterations: tuple[Mapping[str, Any], ...]
    stop: str
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "before": self.before, "after": self.after,
                "traces": [t.to_json() for t in self.traces], "iterations": [dict(i) for i in self.iterations],
                "stop": self.stop, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Exploration:
        return cls(str(data["key"]), str(data["before"]), str(data["after"]),
                   tuple(ProbeTrace.from_json(t) for t in data.get("traces", ())),
                   tuple(dict(i) for i in data.get("iterations", ())), str(data.get("stop", "")),
                   float(data.get("seconds", 0.0)))


@dataclass(frozen=True)
class Anchors:
    """The existing tools of a step (T_t minus the new ones) with their current bodies and body vectors."""

    tools: tuple[Tool, ...]
    bodies: tuple[str, ...]
    vectors: np.ndarray

    def __post_init__(self) -> None:
        if not (len(self.tools) == len(self.bodies) == len(self.vectors)):
            raise ValueError(f"anchors: {len(self.tools)} tools, {len(self.bodies)} bodies and "
                             f"{len(self.vectors)} vectors differ")


def related_tools(vector: np.ndarray, anchors: Anchors, tau: float, k: int,
                  rng: random.Random) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """CONTDA Eqs. 1–2 (6–7): N_i = existing tools with similarity ≥ τ, R_i = k of them drawn at random
    (uniform sampling, as the paper does). Returns (N_i, R_i) as (anchor index, similarity), R_i by score."""
    if len(anchors.tools) == 0:
        return [], []
    sims = anchors.vectors @ vector
    pool = [(int(i), float(sims[i])) for i in np.flatnonzero(sims >= tau)]
    pool.sort(key=lambda p: -p[1])
    sample = rng.sample(pool, min(k, len(pool)))
    return pool, sorted(sample, key=lambda p: -p[1])


def filter_redundant(queries: Sequence[str], vectors: np.ndarray, explored: np.ndarray,
                     threshold: float) -> tuple[list[int], list[int]]:
    """CONTDA App. A.3: keep a probe unless it is at least ``threshold``-similar to an explored query or to
    a probe kept before it in this batch. Returns (kept indices, dropped indices)."""
    kept: list[int] = []
    dropped: list[int] = []
    for i in range(len(queries)):
        previous = [explored] if len(explored) else []
        if kept:
            previous.append(vectors[kept])
        seen = np.vstack(previous) if previous else np.zeros((0, vectors.shape[1]), dtype=np.float32)
        if len(seen) and float(np.max(seen @ vectors[i])) >= threshold:
            dropped.append(i)
        else:
            kept.append(i)
    return kept, dropped


def _excerpt(value: Any, depth: int = 0) -> Any:
    if depth > 4:
        return "…"
    if isinstance(value, Mapping):
        return {str(k): _excerpt(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list | tuple):
        return [_excerpt(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
    if isinstance(value, str) and len(value) > 300:
        return value[:300] + "…"
    if isinstance(value, int | float | bool) or value is None or isinstance(value, str):
        return value
    return str(value)


def execute_probe(tool: Tool, probe: Probe, router: Any, config: ExploreConfig) -> ProbeTrace:
    """CONTDA Alg. 1 line 17 for one probe: the call through the executor that reaches ``tool`` (arguments
    planned from the request when the proposer gave none); without an executor the probe is recorded as
    not executed, and refinement can only use it as an example."""
    from core.trials.evidence import TrialOutcome, classify

    args = dict(probe.arguments) if probe.arguments is not None else None
    executor = router.for_tool(tool) if router is not None else None
    if executor is None:
        return ProbeTrace(probe, False, False, TrialOutcome.NOT_EXECUTED, args or {}, None,
                          "no executor reaches this tool")
    if args is None:
        from core.trials.slots import plan_arguments

        plan = plan_arguments(probe.query, tool, today=date.fromisoformat(config.today))
        if plan.missing:
            return ProbeTrace(probe, False, False, TrialOutcome.PLANNING_FAILED, dict(plan.arguments), None,
                              f"the request gives no value for {', '.join(plan.missing)}")
        args = dict(plan.arguments)
    result = executor.call(tool, args, timeout=config.timeout)
    outcome, reason = classify(result.ok, result.data, result.error_kind, result.error)
    return ProbeTrace(probe, True, outcome == TrialOutcome.FUNCTIONAL_SUCCESS, outcome, args,
                      _excerpt(result.data) if result.ok else None,
                      "" if result.ok else f"{result.error_kind}: {result.error}", result.seconds)


@dataclass
class _Walk:
    """One tool's progress through the probe–refine loop."""

    tool: Tool
    before: str
    body: str
    vector: np.ndarray
    rng: random.Random
    started: float
    traces: list[ProbeTrace] = field(default_factory=list)
    explored: list[str] = field(default_factory=list)
    explored_vecs: np.ndarray | None = None
    suggestions: tuple[str, ...] = ()
    records: list[dict[str, Any]] = field(default_factory=list)
    stop: str = ""
    peers: list[Peer] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    batch: list[ProbeTrace] = field(default_factory=list)
    new_body: str = ""

    def result(self) -> Exploration:
        return Exploration(self.tool.key, self.before, self.body, tuple(self.traces), tuple(self.records),
                           self.stop or "budget", time.perf_counter() - self.started)


def explore_tools(tools: Sequence[Tool], docs: Sequence[str], anchors: Anchors, ops: AdaptationOperators,
                  embed: Embed, *, router: Any = None, config: ExploreConfig | None = None,
                  rngs: Sequence[random.Random] | None = None, concurrency: int = 1) -> list[Exploration]:
    """CONTDA Alg. 1 lines 5–22 for every new tool of a step. The tools advance through their iterations
    together so each iteration embeds all probes, and all refined bodies, in one batch; role calls and
    probe executions run ``concurrency`` at a time. Each tool's loop is the paper's: related tools,
    probes, redundancy filter, execution, suggestions, refinement, stop test."""
    config = config or ExploreConfig()
    if len(docs) != len(tools):
        raise ValueError(f"explore_tools: {len(tools)} tools but {len(docs)} documents")
    rngs = list(rngs) if rngs is not None else [random.Random(i) for i in range(len(tools))]
    bodies = [split_notes(d)[0] for d in docs]
    vectors = embed(bodies) if bodies else np.zeros((0, 1), dtype=np.float32)
    walks = [_Walk(t, b, b, vectors[i], rngs[i], time.perf_counter()) for i, (t, b) in enumerate(zip(tools, bodies,
                                                                                                       strict=True))]
    for m in range(1, config.max_iterations + 1):
        active = [w for w in walks if not w.stop]
        if not active:
            break

        def propose(w: _Walk, m: int = m) -> None:
            pool, sample = related_tools(w.vector, anchors, config.tau, config.k, w.rng)
            w.peers = [Peer(anchors.tools[i].key, anchors.tools[i].name, anchors.bodies[i]) for i, _ in sample]
            record: dict[str, Any] = {"iteration": m, "related_pool": len(pool),
                                      "related": [[anchors.tools[i].key, round(s, 4)] for i, s in sample]}
            call = ops.propose_probes(w.tool, w.body, w.peers, w.explored, w.suggestions, iteration=m - 1)
            record["call_ids"] = [call.call_id]
            w.records.append(record)
            w.probes = list(call.value) if call.ok and call.value else []
            if not w.probes:
                record["error"] = call.error or "no probes"
                w.stop = "probe role failed"

        map_or_raise(propose, active, concurrency)
        active = [w for w in active if not w.stop]
        texts = [p.query for w in active for p in w.probes]
        qvecs = embed(texts) if texts else None
        offset = 0
        for w in active:
            mine = qvecs[offset:offset + len(w.probes)]
            offset += len(w.probes)
            seen = w.explored_vecs if w.explored_vecs is not None else np.zeros((0, mine.shape[1]), np.float32)
            kept, dropped = filter_redundant([p.query for p in w.probes], mine, seen, config.redundancy)
            w.records[-1]["dropped"] = [w.probes[i].query for i in dropped]
            if not kept:
                w.stop = "no new probes"
                continue
            w.explored += [w.probes[i].query for i in kept]
            w.explored_vecs = mine[kept] if w.explored_vecs is None else np.vstack([w.explored_vecs, mine[kept]])
            w.probes = [w.probes[i] for i in kept]
        active = [w for w in active if not w.stop]

        def run_and_refine(w: _Walk) -> None:
            w.batch = [execute_probe(w.tool, p, router, config) for p in w.probes]
            w.traces += w.batch
            record = w.records[-1]
            record["traces"] = len(w.batch)
            sug = ops.suggest(w.tool, w.body, w.batch, w.peers)
            w.suggestions = tuple(sug.value) if sug.ok and sug.value else ()
            ref = ops.refine_doc(w.tool, w.body, w.suggestions, w.peers, w.batch)
            record["call_ids"] += [sug.call_id, ref.call_id]
            record["suggestions"] = list(w.suggestions)
            for c in (sug, ref):
                if not c.ok:
                    record["error"] = c.error
            ok = ref.ok and isinstance(ref.value, str) and ref.value.strip()
            w.new_body = split_notes(ref.value)[0] if ok else w.body

        map_or_raise(run_and_refine, active, concurrency)
        new_vecs = embed([w.new_body for w in active]) if active else []
        for w, vec in zip(active, new_vecs, strict=True):
            delta = change_score(vec, w.vector, w.new_body, w.body)
            w.records[-1]["delta"] = round(delta, 4)
            w.records[-1]["doc"] = w.new_body
            w.body, w.vector = w.new_body, vec
            if delta >= config.delta:
                w.stop = "converged"
    return [w.result() for w in walks]


def explore_tool(tool: Tool, doc: str, anchors: Anchors, ops: AdaptationOperators, embed: Embed, *,
                 router: Any = None, config: ExploreConfig | None = None,
                 rng: random.Random | None = None) -> Exploration:
    """CONTDA Alg. 1 lines 6–22 for one new tool ``tool`` whose current documentation is ``doc``."""
    return explore_tools([tool], [doc], anchors, ops, embed, router=router, config=config,
                         rngs=[rng or random.Random(0)])[0]


def trace_summary(traces: Sequence[ProbeTrace]) -> str:
    """A short text of what exploration showed, embedded with the body for Stage II clustering (App. A.6 names
    the trace summaries F_i; their wording here is our definition)."""
    worked = [t.probe.query.split(" — ")[0] for t in traces if t.ok]
    failed = [t.probe.query.split(" — ")[0] for t in traces if t.executed and not t.ok]
    parts = []
    if worked:
        parts.append("Worked for: " + "; ".join(dict.fromkeys(worked)))
    if failed:
        parts.append("Failed for: " + "; ".join(dict.fromkeys(failed)))
    untested = [t.probe.query.split(" — ")[0] for t in traces if not t.executed]
    if untested and not parts:
        parts.append("Meant for: " + "; ".join(dict.fromkeys(untested)))
    return ". ".join(parts)


# key -> that tool's Stage I traces so far (what Stage II reads as evidence).
TraceMap = Mapping[str, tuple[ProbeTrace, ...]]
