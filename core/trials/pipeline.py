"""GRETEL trials for one query: plan → execute → simulate → classify per candidate, then re-rank.

The candidates' trials are one resumable stage (core.concurrency.run_stage): they run concurrently (bounded)
and each finished trial is handed to ``store`` at once, so an interrupted query resumes without redoing the
candidates it already tried.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from core.concurrency import run_stage
from core.execution.base import ExecutionResult, json_safe
from core.models import Tool
from core.trials.evidence import (
    Rerank,
    Step,
    Trial,
    TrialOutcome,
    TrialReport,
    classify,
)
from core.trials.offline import evidence_order, simulated_tier
from core.trials.relevance import judge_answer
from core.trials.roles import TrialOperators

# Failures outside the tool's design (a flaky host, a slow answer): GRETEL's "non-critical failures" that
# the simulator may bridge. Auth, missing endpoints and rejected arguments are the tool's own defects.
TRANSIENT_KINDS = ("server", "timeout", "crash", "unavailable")


@dataclass(frozen=True)
class TrialConfig:
    """How trials run and are reported.

    ``k`` is the pool: how many of the initial ranking's candidates are tried and re-ranked (default 20).
    ``cutoffs`` are the K of Recall@K, nDCG@K and Pass@K reported (GRETEL §4.1 reports K = 5 and 10); trying
    more candidates than the largest cut-off lets a tool from below it move into it, so @10 can change.
    ``simulated_evidence`` is where a simulated answer counts in the offline re-rank and the re-rank prompt
    (:data:`core.trials.offline.SIMULATED_AS`: "success" is GRETEL §3.2.2, "below_success" our variant).
    ``judge`` asks the judge role whether a non-empty answer serves the request (off: every answer that is
    neither empty nor a reported failure is a success).
    """

    k: int = 20
    simulate: bool = True
    simulate_on: tuple[str, ...] = TRANSIENT_KINDS
    simulate_unexecuted: bool = False
    timeout: float = 10.0
    concurrency: int = 4
    today: str | None = None  # ISO date relative dates are resolved against; None = the day of the run
    cutoffs: tuple[int, ...] = (5, 10)
    simulated_evidence: str = "success"
    judge: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"TrialConfig.k must be a positive integer, not {self.k!r}")
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ValueError(f"TrialConfig.concurrency must be a positive integer, not {self.concurrency!r}")
        if not self.timeout > 0:
            raise ValueError(f"TrialConfig.timeout must be positive, not {self.timeout!r}")
        cutoffs = tuple(self.cutoffs)
        if not cutoffs or any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in cutoffs):
            raise ValueError(f"TrialConfig.cutoffs must be positive integers, not {self.cutoffs!r}")
        object.__setattr__(self, "cutoffs", tuple(sorted(set(cutoffs))))
        object.__setattr__(self, "simulate_on", tuple(self.simulate_on))
        simulated_tier(self.simulated_evidence)
        if self.today is not None:
            date.fromisoformat(self.today)

    @property
    def report_at(self) -> tuple[int, ...]:
        """The cut-offs reported: those within the pool, or the pool size when all lie beyond it."""
        return tuple(c for c in self.cutoffs if c <= self.k) or (self.k,)

    def day(self) -> date:
        return date.fromisoformat(self.today) if self.today else date.today()

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "simulate": self.simulate, "simulate_on": list(self.simulate_on),
                "simulate_unexecuted": self.simulate_unexecuted, "timeout": self.timeout,
                "concurrency": self.concurrency, "today": self.today, "cutoffs": list(self.cutoffs),
                "simulated_evidence": self.simulated_evidence, "judge": self.judge}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> TrialConfig:
        """A stored config. One stored before the pool, cut-offs, judge and simulated-evidence settings
        existed reads as it ran: simulated answers below success, no judge, cut-offs 5 and its K."""
        d = dict(d)
        if "cutoffs" not in d:
            k = int(d.get("k", 10))
            d.update(cutoffs=tuple(sorted({min(5, k), k})), simulated_evidence="below_success", judge=False)
        fields = {f for f in TrialConfig.__dataclass_fields__}
        return TrialConfig(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k in fields})


class Router(Protocol):
    def for_tool(self, tool: Tool) -> Any: ...


class TrialStore(Protocol):
    def load(self, query_id: str) -> Mapping[str, Trial]: ...

    def save(self, query_id: str, trial: Trial) -> None: ...


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def run_trial(query: str, tool: Tool, rank: int, router: Router | None, ops: TrialOperators,
              config: TrialConfig) -> Trial:
    """GRETEL Alg. 1 for one candidate, every step recorded with its input, output, status and time."""
    steps: list[Step] = []
    plan_call, secs = _timed(lambda: ops.plan_call(query, tool, today=config.day()))
    plan = plan_call.value
    if not plan_call.ok or plan is None:
        steps.append(Step("plan", "failed", {"tool": tool.key}, None, secs, plan_call.call_id,
                          f"the planner gave no usable plan: {plan_call.error}"))
        return Trial(tool.key, tool.name, rank, TrialOutcome.PLANNING_FAILED, f"no usable plan ({plan_call.error})", tuple(steps))
    plan_out = {"arguments": json_safe(dict(plan.arguments)), "missing": list(plan.missing), "note": plan.note,
                "sources": dict(plan.sources)}
    if plan.missing:
        steps.append(Step("plan", "failed", {"tool": tool.key}, plan_out, secs, plan_call.call_id,
                          f"the request gives no value for {', '.join(plan.missing)}"))
        reason = f"required input the request cannot supply: {', '.join(plan.missing)}"
        return Trial(tool.key, tool.name, rank, TrialOutcome.PLANNING_FAILED, reason, tuple(steps))
    steps.append(Step("plan", "ok", {"tool": tool.key}, plan_out, secs, plan_call.call_id))

    executor = router.for_tool(tool) if router is not None else None
    if executor is None:
        steps.append(Step("execute", "skipped", {"arguments": plan_out["arguments"]}, None, 0.0,
                          note="no executor can reach this tool"))
        if config.simulate and config.simulate_unexecuted:
            return _simulated(query, tool, rank, ops, plan.arguments, "no executor can reach this tool", steps,
                              TrialOutcome.NOT_EXECUTED, "not executed: no executor", "")
        return Trial(tool.key, tool.name, rank, TrialOutcome.NOT_EXECUTED, "no executor can reach this tool", tuple(steps))
    result: ExecutionResult = executor.call(tool, plan.arguments, timeout=config.timeout)
    call_in = {"executor": executor.name, "tool": tool.name, "arguments": plan_out["arguments"]}
    if result.isolation:  # which isolation held for this call (the sandbox says; MCP and HTTP calls carry none)
        call_in["isolation"] = result.isolation
    steps.append(Step("execute", "ok" if result.ok else "failed", call_in,
                      json_safe(result.data) if result.ok else {"error": result.error, "kind": result.error_kind},
                      result.seconds))
    outcome, reason = classify(result.ok, result.data, result.error_kind, result.error, tool=tool,
                               arguments=plan.arguments)
    if not result.ok and config.simulate and result.error_kind in config.simulate_on:
        return _simulated(query, tool, rank, ops, plan.arguments, str(result.error), steps, outcome, reason,
                          executor.name)
    if outcome == TrialOutcome.FUNCTIONAL_SUCCESS and config.judge:
        outcome, reason = _judged(query, tool, plan.arguments, result.data, ops, steps)
    steps.append(Step("classify", "ok", {}, {"outcome": outcome}, 0.0, note=reason))
    return Trial(tool.key, tool.name, rank, outcome, reason, tuple(steps), False, executor.name)


def _judged(query: str, tool: Tool, arguments: Mapping[str, Any], answer: Any, ops: TrialOperators,
            steps: list[Step]) -> tuple[TrialOutcome, str]:
    """Ask the judge role whether a non-empty answer serves the request (GRETEL §4.4: one that does not is a
    semantic mismatch). When the role fails, our offline rule (:func:`core.trials.relevance.judge_answer`)
    decides and the failure is noted on the step."""
    call, secs = _timed(lambda: ops.judge_answer(query, tool, arguments, answer))
    verdict, note = call.value, ""
    if not call.ok or verdict is None:
        verdict, note = judge_answer(query, arguments, answer), f"judge failed ({call.error}); the offline rule decided"
    steps.append(Step("judge", "ok" if call.ok else "failed", {"tool": tool.key},
                      {"relevant": verdict.relevant, "reason": verdict.reason}, secs, call.call_id, note))
    if verdict.relevant:
        return TrialOutcome.FUNCTIONAL_SUCCESS, "the call ran and its answer serves the request"
    return TrialOutcome.SEMANTIC_MISMATCH, verdict.reason


def _simulated(query: str, tool: Tool, rank: int, ops: TrialOperators, arguments: Mapping[str, Any], error: str,
               steps: list[Step], outcome: str, reason: str, executor: str) -> Trial:
    """GRETEL Alg. 1 lines 9–11: stand in a plausible answer and flag it (simulation_used)."""
    sim, secs = _timed(lambda: ops.simulate_response(query, tool, arguments, error))
    used = bool(sim.ok)
    steps.append(Step("simulate", "ok" if used else "failed", {"error": error},
                      json_safe(sim.value) if used else None, secs, sim.call_id,
                      "" if used else f"simulation failed: {sim.error}"))
    steps.append(Step("classify", "ok", {}, {"outcome": outcome, "simulation_used": used}, 0.0, note=reason))
    return Trial(tool.key, tool.name, rank, outcome, reason, tuple(steps), used, executor)


def rerank(query: str, trials: Sequence[Trial], ops: TrialOperators, simulated: str = "success") -> Rerank:
    """GRETEL §3.2.2; when the role fails the evidence order is used and the failure is kept. ``simulated``:
    where a simulated answer counts (:data:`core.trials.offline.SIMULATED_AS`)."""
    call, secs = _timed(lambda: ops.holistic_rerank(query, trials, simulated=simulated))
    if call.ok and call.value is not None:
        return Rerank(tuple(call.value.keys), dict(call.value.reasons), ops.name, call.call_id, None, secs)
    fallback = evidence_order(trials, simulated)
    return Rerank(fallback.keys, dict(fallback.reasons), "evidence order (fallback)", call.call_id, call.error, secs)


def run_trials(query_id: str, query: str, gold: Sequence[str], candidates: Sequence[Tool], router: Router | None,
               ops: TrialOperators, config: TrialConfig, *, strategy: str = "", store: TrialStore | None = None,
               progress: Callable[[int, int], None] | None = None) -> TrialReport:
    """Trials for the top ``config.k`` candidates of an initial ranking (the pool), then the holistic re-rank
    of all of them."""
    top = list(candidates)[: config.k]
    if len({t.key for t in top}) != len(top):
        raise ValueError(f"query {query_id!r}: the candidate list repeats a tool")

    def save(_item: tuple[int, Tool], trial: Trial) -> None:
        if store is not None:
            store.save(query_id, trial)

    def report(done: int, total: int, _name: str) -> None:
        if progress:
            progress(done, total)

    done = run_stage([(i + 1, t) for i, t in enumerate(top)],
                     lambda item: run_trial(query, item[1], item[0], router, ops, config),
                     key=lambda item: item[1].key, stored=store.load(query_id) if store is not None else None,
                     save=save, workers=config.concurrency, name=query_id, progress=report)
    trials = tuple(done[t.key] for t in top)
    return TrialReport(query_id, query, tuple(gold), tuple(t.key for t in top), trials,
                       rerank(query, trials, ops, config.simulated_evidence), strategy)


def rerun_candidate(report: TrialReport, tool: Tool, router: Router | None, ops: TrialOperators,
                    config: TrialConfig) -> TrialReport:
    """Try one candidate again (say, after fixing its server) and re-rank with the new evidence."""
    old = report.trial(tool.key)
    if old is None:
        raise ValueError(f"query {report.query_id!r}: {tool.key!r} is not one of its candidates")
    fresh = run_trial(report.query, tool, old.rank, router, ops, config)
    trials = tuple(fresh if t.key == tool.key else t for t in report.trials)
    return TrialReport(report.query_id, report.query, report.gold, report.before, trials,
                       rerank(report.query, trials, ops, config.simulated_evidence), report.strategy)
