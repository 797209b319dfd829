"""Trial roles by rule (no model): slot filling, a labelled stand-in answer, and an evidence-class order.

Offline stand-ins for GRETEL's Planner, Simulator and Evaluator (§3.2, Alg. 1). The re-ranking keeps
the paper's intent (prefer shown success, penalise failed planning or execution) as a fixed order of
evidence classes, with the initial rank breaking ties so semantic relevance still counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from core.llm.base import RoleCall, rule_call
from core.models import Tool
from core.trials.evidence import (
    EXECUTION_FAILURE,
    FUNCTIONAL_SUCCESS,
    NOT_EXECUTED,
    PARAMETER_MISMATCH,
    PLANNING_FAILED,
    SEMANTIC_MISMATCH,
    Trial,
)
from core.trials.roles import PlanAnswer, RerankAnswer
from core.trials.slots import plan_arguments

MODEL = "trial-rules-v2"  # v2: schema-reading planner (formats, zones, bounds, no sentences in name slots)

# Lower tier ranks higher. A simulated answer or an untried tool is unproven, so it sits between shown
# success and shown failure; a tool that ran but gave nothing beats one that could not run at all.
_TIER = {FUNCTIONAL_SUCCESS: 0, NOT_EXECUTED: 1, SEMANTIC_MISMATCH: 2, EXECUTION_FAILURE: 3,
         PARAMETER_MISMATCH: 4, PLANNING_FAILED: 4}
_SIMULATED_TIER = 1


def evidence_tier(trial: Trial) -> int:
    if trial.simulation_used and trial.outcome == EXECUTION_FAILURE:
        return _SIMULATED_TIER
    return _TIER[trial.outcome]


def evidence_order(trials: Sequence[Trial]) -> RerankAnswer:
    """GRETEL §3.2.2 by rule: by evidence tier, then by the initial rank."""
    ordered = sorted(trials, key=lambda t: (evidence_tier(t), t.rank))
    reasons = {}
    for t in ordered:
        label = f"{t.outcome.lower().replace('_', ' ')}{' (simulated answer)' if t.simulation_used else ''}"
        reasons[t.key] = f"tier {evidence_tier(t)}: {label}; initial rank {t.rank}"
    return RerankAnswer(tuple(t.key for t in ordered), reasons)


class OfflineTrialOperators:
    name = "offline"
    model = MODEL

    def __init__(self, *, ledger: Any = None, seed: int = 0) -> None:
        self.ledger = ledger
        self.seed = int(seed)

    def _call(self, role: str, payload: dict[str, Any], fn) -> RoleCall:
        return rule_call(self.ledger, backend=self.name, model=self.model, role=role, seed=self.seed,
                         payload=payload, fn=fn)

    def plan_call(self, query: str, tool: Tool, *, today: date) -> RoleCall:
        def run() -> PlanAnswer:
            plan = plan_arguments(query, tool, today=today)
            note = ", ".join(f"{p}: {plan.sources.get(p, 'not found')}" for p in plan.missing)
            return PlanAnswer(dict(plan.arguments), plan.missing, note, dict(plan.sources))
        return self._call("plan_call", {"query": query, "tool": tool.key, "today": today.isoformat()}, run)

    def simulate_response(self, query: str, tool: Tool, arguments: Mapping[str, Any], error: str) -> RoleCall:
        """A stand-in answer shaped by the tool's name and inputs; labelled as simulated, never as data."""
        def run() -> dict[str, Any]:
            return {"simulated": True, "tool": tool.name, "echo": dict(arguments),
                    "result": f"stand-in answer: {tool.description.split('.')[0][:160]}"}
        return self._call("simulate_response", {"query": query, "tool": tool.key, "arguments": dict(arguments),
                                                "error": error}, run)

    def holistic_rerank(self, query: str, trials: Sequence[Trial]) -> RoleCall:
        return self._call("holistic_rerank", {"query": query, "trials": [[t.key, t.outcome, t.simulation_used, t.rank]
                                                                        for t in trials]},
                          lambda: evidence_order(trials))
