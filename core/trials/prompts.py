"""Prompts for the trial roles, in our own words. Answers come back as JSON objects."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from core.models import Tool
from core.trials.evidence import Trial

SYSTEM = ("You test whether tools can really serve a user's request. Work only from the request, the tool "
          "documentation and the evidence you are given, never invent values the user did not provide, and "
          "answer with a single JSON object in the format asked for.")

_MAX_EVIDENCE_CHARS = 600


def _spec(tool: Tool) -> str:
    return json.dumps({"name": tool.name, "description": tool.description, "parameters": tool.parameters},
                      ensure_ascii=False)


def plan_call(query: str, tool: Tool, today: date) -> str:
    return (
        f"Today is {today.isoformat()}.\n"
        f"User request: {query}\n\n"
        f"Tool documentation (JSON schema of its inputs):\n{_spec(tool)}\n\n"
        "Fill in the arguments for one call of this tool that would serve the request. Take values from the "
        "request (relative dates may be resolved against today). If a required input cannot be known from "
        "the request, do not guess it: list it as missing.\n"
        'Answer as {"arguments": {...}, "missing": ["name", ...], "note": "one short sentence"}.'
    )


def simulate_response(query: str, tool: Tool, arguments: Mapping[str, Any], error: str) -> str:
    return (
        f"User request: {query}\n\n"
        f"Tool documentation:\n{_spec(tool)}\n\n"
        f"The call {tool.name}({json.dumps(dict(arguments), ensure_ascii=False)}) failed with: {error[:300]}\n\n"
        "Write the JSON body a working version of this tool would most plausibly have returned for this call. "
        'Answer as {"response": ...}.'
    )


def _evidence(trial: Trial) -> dict[str, Any]:
    execute = trial.step("execute")
    shown: Any = execute.output if execute is not None else None
    text = json.dumps(shown, ensure_ascii=False, default=str)
    return {"tool": trial.key, "initial_rank": trial.rank, "outcome": trial.outcome, "reason": trial.reason,
            "simulated": trial.simulation_used, "arguments": trial.arguments,
            "response": text[:_MAX_EVIDENCE_CHARS]}


def holistic_rerank(query: str, trials: Sequence[Trial]) -> str:
    evidence = json.dumps([_evidence(t) for t in trials], ensure_ascii=False, indent=1)
    return (
        f"User request: {query}\n\n"
        f"Each candidate tool was tried on this request. Evidence per candidate:\n{evidence}\n\n"
        "Order ALL candidates from most to least useful for the request. Prefer tools that were shown to "
        "work and gave relevant results; a simulated answer is weaker evidence than a real one; push down "
        "tools whose arguments could not be built, that were rejected, that failed to run, or that returned "
        "nothing useful. Keep the initial order where the evidence does not separate two tools.\n"
        'Answer as {"ranking": ["tool", ...], "reasons": {"tool": "short reason", ...}}.'
    )
