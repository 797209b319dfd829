"""Trial roles answered by a chat model through :class:`core.llm.prompted.PromptedOperators` (same backend,
ledger, retries and replay as the strategies)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from core.llm.base import LLMBadResponse, RoleCall
from core.llm.framework import PromptedRoles
from core.llm.parsing import parse_json_object
from core.models import Tool
from core.trials import prompts
from core.trials.evidence import Trial
from core.trials.offline import evidence_order
from core.trials.relevance import Relevance
from core.trials.roles import PlanAnswer, RerankAnswer


def parse_plan(text: str, tool: Tool) -> PlanAnswer:
    """``{"arguments": {...}, "missing": [...]}``; a required parameter absent from the arguments counts as
    missing even when the model did not say so, and unknown argument names are dropped with a note."""
    obj = parse_json_object(text, {"arguments": dict})
    missing = obj.get("missing") or []
    if not isinstance(missing, list):
        raise LLMBadResponse("'missing' should be a list of parameter names")
    args = obj["arguments"]
    known = set(tool.parameter_names)
    dropped = sorted(k for k in args if known and k not in known)
    args = {k: v for k, v in args.items() if k not in dropped and v is not None and v != ""}
    missing = sorted({str(m) for m in missing} | {r for r in tool.required if r not in args})
    note = str(obj.get("note", "")).strip()
    if dropped:
        note = f"{note} (dropped unknown arguments: {', '.join(dropped)})".strip()
    return PlanAnswer(args, tuple(missing), note)


def parse_judge(text: str) -> Relevance:
    """``{"relevant": true|false, "reason": "..."}``."""
    obj = parse_json_object(text, {"relevant": bool})
    return Relevance(obj["relevant"], str(obj.get("reason", "")).strip()[:300] or
                     ("the model judged the answer relevant" if obj["relevant"] else "the model judged it off-topic"))


def parse_rerank(text: str, trials: Sequence[Trial], simulated: str = "success") -> RerankAnswer:
    """The model's order, kept to known candidates; candidates it left out follow in evidence order."""
    obj = parse_json_object(text, {"ranking": list})
    keys = {t.key for t in trials}
    order: list[str] = []
    for item in obj["ranking"]:
        key = item if isinstance(item, str) else (item[0] if isinstance(item, list) and item else None)
        if isinstance(key, str) and key in keys and key not in order:
            order.append(key)
    if not order:
        raise LLMBadResponse("the ranking names none of the candidates")
    order += [k for k in evidence_order(trials, simulated).keys if k not in order]
    reasons = obj.get("reasons") if isinstance(obj.get("reasons"), dict) else {}
    return RerankAnswer(tuple(order), {str(k): str(v) for k, v in reasons.items() if k in keys})


class PromptedTrialOperators(PromptedRoles):
    """The :class:`core.trials.roles.TrialOperators` roles, each one chat call through prompted operators."""

    family = "trials"
    system = prompts.SYSTEM

    def plan_call(self, query: str, tool: Tool, *, today: date) -> RoleCall:
        return self._ask("plan_call", prompts.plan_call(query, tool, today), lambda t: parse_plan(t, tool), 0.0)

    def simulate_response(self, query: str, tool: Tool, arguments: Mapping[str, Any], error: str) -> RoleCall:
        def parse(text: str) -> Any:
            return parse_json_object(text, {"response": (dict, list, str, int, float)})["response"]
        return self._ask("simulate_response", prompts.simulate_response(query, tool, arguments, error), parse, 0.3)

    def judge_answer(self, query: str, tool: Tool, arguments: Mapping[str, Any], answer: Any) -> RoleCall:
        return self._ask("judge_answer", prompts.judge_answer(query, tool, arguments, answer), parse_judge, 0.0)

    def holistic_rerank(self, query: str, trials: Sequence[Trial], *, simulated: str = "success") -> RoleCall:
        return self._ask("holistic_rerank", prompts.holistic_rerank(query, trials, simulated),
                         lambda t: parse_rerank(t, trials, simulated), 0.0)
