"""Trial roles by rule (no model): slot filling, a labelled stand-in answer, and an evidence-class order.

Offline stand-ins for GRETEL's Planner, Simulator and Evaluator (§3.2, Alg. 1), and for our relevance
judge (:mod:`core.trials.relevance`). The re-ranking keeps the paper's instruction (prefer successful
execution or simulation evidence, penalise failed planning or execution) as a fixed order of evidence tiers,
with the initial rank breaking ties so semantic relevance still counts; the tiers below the first are our
definition (GRETEL leaves the order of failures to its LLM).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from core.llm.base import RoleCall
from core.llm.framework import OfflineRoles
from core.models import Tool
from core.trials.evidence import Trial, TrialOutcome
from core.trials.relevance import judge_answer
from core.trials.roles import PlanAnswer, RerankAnswer
from core.trials.slots import plan_arguments

MODEL = "trial-rules-v3"  # v3: relevance judge, simulated evidence grouped with success (GRETEL §3.2.2)

# Lower tier ranks higher (our order below tier 0): an untried tool is unproven, so it sits between shown
# success and shown failure; a tool that ran but gave nothing beats one that could not run at all.
_TIER = {TrialOutcome.FUNCTIONAL_SUCCESS: 0, TrialOutcome.NOT_EXECUTED: 1, TrialOutcome.SEMANTIC_MISMATCH: 2,
         TrialOutcome.EXECUTION_FAILURE: 3, TrialOutcome.PARAMETER_MISMATCH: 4, TrialOutcome.PLANNING_FAILED: 4}
# Where a simulated answer counts. "success": GRETEL §3.2.2 (successful execution *or simulation* evidence
# is preferred), tier 0 with real successes, the initial rank breaking ties. "below_success": our variant,
# unproven evidence between real success and everything else (tier 1), the order used before.
SIMULATED_AS = {"success": 0, "below_success": 1}


def simulated_tier(simulated: str) -> int:
    if simulated not in SIMULATED_AS:
        raise ValueError(f"simulated evidence must be one of {', '.join(SIMULATED_AS)}, not {simulated!r}")
    return SIMULATED_AS[simulated]


def evidence_tier(trial: Trial, simulated: str = "success") -> int:
    """A trial's tier in :func:`evidence_order`: a simulated answer's tier is set by ``simulated``
    (:data:`SIMULATED_AS`), every other trial's by its outcome."""
    if trial.simulation_used:
        return simulated_tier(simulated)
    return _TIER[trial.outcome]


def evidence_order(trials: Sequence[Trial], simulated: str = "success") -> RerankAnswer:
    """GRETEL §3.2.2 by rule: by evidence tier (:func:`evidence_tier`), then by the initial rank."""
    simulated_tier(simulated)
    ordered = sorted(trials, key=lambda t: (evidence_tier(t, simulated), t.rank))
    reasons = {}
    for t in ordered:
        label = ("simulated answer after " if t.simulation_used else "") + t.outcome.lower().replace("_", " ")
        reasons[t.key] = f"tier {evidence_tier(t, simulated)}: {label}; initial rank {t.rank}"
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

    def judge_answer(self, query: str, tool: Tool, arguments: Mapping[str, Any], answer: Any) -> RoleCall:
        """Our overlap rule (:func:`core.trials.relevance.judge_answer`)."""
        return self._call("judge_answer", {"query": query, "tool": tool.key, "arguments": dict(arguments)},
                          lambda _rng: judge_answer(query, arguments, answer))

    def holistic_rerank(self, query: str, trials: Sequence[Trial], *, simulated: str = "success") -> RoleCall:
        payload = {"query": query, "simulated": simulated,
                   "trials": [[t.key, t.outcome, t.simulation_used, t.rank] for t in trials]}
        return self._call("holistic_rerank", payload, lambda _rng: evidence_order(trials, simulated))
