"""The three LLM roles of a trial behind one protocol (the ``trials`` family of :mod:`core.llm.framework`).

Roles (GRETEL §3.2, Table 1's components): the Planner fills a call from the query and the tool's schema,
the Simulator stands in a plausible answer when a call failed for a reason outside the tool's design, and
the Evaluator re-ranks all candidates on the gathered evidence. A fourth role, the Judge, says whether a
non-empty answer serves the request (GRETEL §4.4 counts one that does not as a semantic mismatch but names
no component for it; the role is ours). Every role returns a
:class:`core.llm.base.RoleCall` and never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from core.llm.base import RoleCall
from core.models import Tool
from core.trials.evidence import Trial


@dataclass(frozen=True)
class PlanAnswer:
    """A planned call: its arguments, the required parameters the query could not supply, and notes."""

    arguments: Mapping[str, Any]
    missing: tuple[str, ...] = ()
    note: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RerankAnswer:
    keys: tuple[str, ...]
    reasons: Mapping[str, str] = field(default_factory=dict)


class TrialOperators(Protocol):
    name: str
    model: str

    def plan_call(self, query: str, tool: Tool, *, today: date) -> RoleCall:
        """GRETEL Alg. 1 line 1 (PLAN): arguments for ``tool`` from ``query`` (value: :class:`PlanAnswer`)."""
        ...

    def simulate_response(self, query: str, tool: Tool, arguments: Mapping[str, Any], error: str) -> RoleCall:
        """GRETEL Alg. 1 line 10 (SIMULATE): a plausible answer for a call that failed (value: JSON-able)."""
        ...

    def judge_answer(self, query: str, tool: Tool, arguments: Mapping[str, Any], answer: Any) -> RoleCall:
        """Does a call's non-empty answer serve the request (value: :class:`core.trials.relevance.Relevance`)?
        Not relevant makes the trial a SEMANTIC_MISMATCH (GRETEL §4.4)."""
        ...

    def holistic_rerank(self, query: str, trials: Sequence[Trial], *, simulated: str = "success") -> RoleCall:
        """GRETEL §3.2.2: all candidates re-ranked on their evidence (value: :class:`RerankAnswer`).
        ``simulated`` is where a simulated answer counts (:data:`core.trials.offline.SIMULATED_AS`)."""
        ...

