"""Trial roles by rule (no model): slot filling, a labelled stand-in answer, and an evidence-class order.

Offline stand-ins for GRETEL's Planner, Simulator and Evaluator (§3.2, Alg. 1). The re-ranking keeps
the paper's intent (prefer shown success, penalise failed planning or execution) as a fixed order of
evidence classes, with the initial rank breaking ties so semantic relevance still counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from core.llm.base import RoleCall
from core.llm.framework import OfflineRoles
from core.models import Tool
from core.trials.evidence import Trial, TrialOutcome
from core.trials.roles import PlanAnswer, RerankAnswer
from core.trials.slots import plan_arguments

MODEL = "trial-rules-v2"  # v2: schema-reading planner (formats, zones, bounds, no sentences in name slots)

# Lower tier ranks higher. A simulated answer or an untried tool is unproven, so it sits between shown
# success and shown failure; a tool that ran but gave nothing beats one that could not run at all.
_TIER = {TrialOutcome.FUNCTIONAL_SUCCESS: 0, TrialOutcome.NOT_EXECUTED: 1, TrialOutcome.SEMANTIC_MISMATCH: 2,
         TrialOutcome.EXECUTION_FAILURE: 3, TrialOutcome.PARAMETER_MISMATCH: 4, TrialOutcome.PLANNING_FAILED: 4}
_SIMULATED_TIER = 1


def evidence_tier(trial: Trial) -> int:
    if trial.simulation_used and trial.outcome == TrialOutcome.EXECUTION_FAILURE:
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


class OfflineTrialOperators(OfflineRoles):
    """The :class:`core.trials.roles.TrialOperators` roles by rule (no randomness: the rng goes unused)."""

    model = MODEL

    def plan_call(self, query: str, tool: Tool, *, today: date) -> RoleCall:
        def run(_rng) -> PlanAnswer:
            plan = plan_arguments(query, tool, today=today)
            note = ", ".join(f"{p}: {plan.sources.get(p, 'not found')}" for p in plan.missing)
            return PlanAnswer(dict(plan.arguments), plan.missing, note, dict(plan.sources))
        return self._call("plan_call", {"query": query, "tool": tool.key, "today": today.isoformat()}, run)

    def simulate_response(self, query: str, tool: Tool, arguments: Mapping[str, Any], error: str) -> RoleCall:
        """A stand-in answer shaped by the tool's name and inputs; labelled as simulated, never as data."""
        def run(_rng) -> dict[str, Any]:
            return {"simulated": True, "tool": tool.name, "echo": dict(arguments),
                    "result": f"stand-in answer: {tool.description.split('.')[0][:160]}"}
        return self._call("simulate_response", {"query": query, "tool": tool.key, "arguments": dict(arguments),
                                                "error": error}, run)

    def holistic_rerank(self, query: str, trials: Sequence[Trial]) -> RoleCall:
        return self._call("holistic_rerank", {"query": query, "trials": [[t.key, t.outcome, t.simulation_used, t.rank]
                                                                        for t in trials]},
                          lambda _rng: evidence_order(trials))
