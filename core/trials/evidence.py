"""What a trial leaves behind: its steps, its outcome class, and the report over all candidates.

Outcome classes (:class:`TrialOutcome`) follow GRETEL §4.4 (Table 4) plus the two states a trial can stop
in before the tool answers: PLANNING_FAILED (Alg. 1 line 3) and NOT_EXECUTED (no executor reaches the tool).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class TrialOutcome(StrEnum):
    """How a trial (or a CONTDA probe) ended. Each value equals its name, the string stored before this
    enum existed, so stored runs read back unchanged and a member compares equal to that string. The
    order is the order reports and tables show the classes in."""

    FUNCTIONAL_SUCCESS = "FUNCTIONAL_SUCCESS"  # GRETEL Table 4: the call ran and served the request
    SEMANTIC_MISMATCH = "SEMANTIC_MISMATCH"  # ran, but the answer is empty, a failure or off-topic
    PARAMETER_MISMATCH = "PARAMETER_MISMATCH"  # the tool rejected the arguments
    PLANNING_FAILED = "PLANNING_FAILED"  # no usable call could be planned (Alg. 1 line 3)
    EXECUTION_FAILURE = "EXECUTION_FAILURE"  # the tool or its host failed
    NOT_EXECUTED = "NOT_EXECUTED"  # no executor reaches the tool (ours)


def as_outcome(value: Any, owner: str) -> TrialOutcome:
    """``value`` (a member or its stored string) as a :class:`TrialOutcome`; a ValueError naming ``owner``
    and the valid classes otherwise."""
    if not isinstance(value, str) or value not in TrialOutcome.__members__:
        raise ValueError(f"{owner} must be one of {', '.join(TrialOutcome)}, not {value!r}")
    return TrialOutcome(value)


# The executor's error kinds GRETEL counts as the tool rejecting its arguments; all others are the
# tool or its host failing (core.execution.base.ERROR_KINDS).
_PARAMETER_KINDS = frozenset({"invalid_params"})
STEP_NAMES = ("plan", "execute", "simulate", "judge", "classify")
EVIDENCE = ("success", "simulated", "untried", "failure")  # Trial.evidence, strongest first


@dataclass(frozen=True)
class Step:
    """One step of a trial (GRETEL Alg. 1): what went in, what came out, how it ended and how long."""

    name: str
    status: str  # "ok" | "failed" | "skipped"
    input: Mapping[str, Any] = field(default_factory=dict)
    output: Any = None
    seconds: float = 0.0
    call_id: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.name not in STEP_NAMES:
            raise ValueError(f"Step.name must be one of {STEP_NAMES}, not {self.name!r}")
        if self.status not in ("ok", "failed", "skipped"):
            raise ValueError(f"Step.status must be ok, failed or skipped, not {self.status!r}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "input": dict(self.input), "output": self.output,
                "seconds": round(self.seconds, 4), "call_id": self.call_id, "note": self.note}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Step:
        return Step(d["name"], d["status"], d.get("input") or {}, d.get("output"), float(d.get("seconds", 0.0)),
                    d.get("call_id"), d.get("note", ""))


@dataclass(frozen=True)
class Trial:
    """The evidence for one candidate tool (GRETEL Alg. 1's (status, result, metadata) tuple, kept whole)."""

    key: str
    name: str
    rank: int  # 1-based position in the initial ranking
    outcome: TrialOutcome
    reason: str
    steps: tuple[Step, ...]
    simulation_used: bool = False
    executor: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "outcome", as_outcome(self.outcome, "Trial.outcome"))

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.steps)

    @property
    def evidence(self) -> str:
        """What the trial tells the re-ranker, one of :data:`EVIDENCE`. GRETEL §3.2.2 ranks on "successful
        execution or simulation evidence" against failed planning or execution, so a simulated answer is its
        own kind, "simulated", beside "success" (the tool ran and served the request); "untried" is a tool no
        executor reaches (ours), "failure" any other outcome. Stored with the trial (``to_json``)."""
        if self.simulation_used:
            return "simulated"
        if self.outcome == TrialOutcome.FUNCTIONAL_SUCCESS:
            return "success"
        return "untried" if self.outcome == TrialOutcome.NOT_EXECUTED else "failure"

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)

    @property
    def arguments(self) -> Mapping[str, Any] | None:
        plan = self.step("plan")
        return plan.output.get("arguments") if plan and isinstance(plan.output, Mapping) else None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "rank": self.rank, "outcome": str(self.outcome),
                "reason": self.reason, "simulation_used": self.simulation_used, "evidence": self.evidence,
                "executor": self.executor,
                "seconds": round(self.seconds, 4), "steps": [s.to_json() for s in self.steps]}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Trial:
        return Trial(d["key"], d["name"], int(d["rank"]), d["outcome"], d.get("reason", ""),
                     tuple(Step.from_json(s) for s in d.get("steps", ())), bool(d.get("simulation_used")),
                     d.get("executor", ""))


@dataclass(frozen=True)
class Rerank:
    """The holistic re-ranking (GRETEL §3.2.2): the new order, why, and whether the role fell back."""

    keys: tuple[str, ...]
    reasons: Mapping[str, str] = field(default_factory=dict)
    method: str = ""
    call_id: int | None = None
    error: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"keys": list(self.keys), "reasons": dict(self.reasons), "method": self.method,
                "call_id": self.call_id, "error": self.error, "seconds": round(self.seconds, 4)}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Rerank:
        return Rerank(tuple(d["keys"]), d.get("reasons") or {}, d.get("method", ""), d.get("call_id"), d.get("error"),
                      float(d.get("seconds", 0.0)))


@dataclass(frozen=True)
class TrialReport:
    """All trials of one query: the ranking before and after, and every candidate's evidence."""

    query_id: str
    query: str
    gold: tuple[str, ...]
    before: tuple[str, ...]
    trials: tuple[Trial, ...]
    rerank: Rerank
    strategy: str = ""

    @property
    def after(self) -> tuple[str, ...]:
        return self.rerank.keys

    def trial(self, key: str) -> Trial | None:
        return next((t for t in self.trials if t.key == key), None)

    def moves(self) -> dict[str, int]:
        """Places each candidate moved (positive: promoted)."""
        return {k: self.before.index(k) - i for i, k in enumerate(self.after) if k in self.before}

    def to_json(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "query": self.query, "gold": list(self.gold), "before": list(self.before),
                "after": list(self.after), "strategy": self.strategy, "trials": [t.to_json() for t in self.trials],
                "rerank": self.rerank.to_json()}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> TrialReport:
        return TrialReport(d["query_id"], d["query"], tuple(d.get("gold", ())), tuple(d["before"]),
                           tuple(Trial.from_json(t) for t in d["trials"]), Rerank.from_json(d["rerank"]),
                           d.get("strategy", ""))


def is_empty(data: Any) -> bool:
    """Did a call that ran give nothing back? None, "", [] and {} are empty, and so is an object whose
    collections are all empty ({"origin": "SFO", "flights": []}: the inputs echoed, no results). An
    object of plain values ({"result": 0}) is an answer, even when the value is zero."""
    if data is None:
        return True
    if isinstance(data, str):
        return not data.strip()
    if isinstance(data, list | tuple):
        return len(data) == 0
    if isinstance(data, Mapping):
        if not data:
            return True
        collections = [v for v in data.values() if isinstance(v, list | tuple | Mapping)]
        return bool(collections) and all(is_empty(v) for v in collections)
    return False


_ERROR_FIELDS = ("error", "errors", "error_message", "errorMessage", "fault")
_FAILED_STATUSES = {"error", "fail", "failed", "failure", "not_found", "not found"}


def reported_failure(data: Any) -> str | None:
    """The failure an answer reports in-band, else None: many APIs answer 200 with ``{"error": "..."}``,
    ``{"status": "failed"}`` or ``{"success": false}``. The call ran, yet nothing in it serves the request."""
    if not isinstance(data, Mapping):
        return None
    for name in _ERROR_FIELDS:
        value = data.get(name)
        if value not in (None, "", [], {}, False):
            return f"{name}: {str(value)[:200]}"
    status = data.get("status")
    if isinstance(status, str) and status.strip().lower() in _FAILED_STATUSES:
        detail = data.get("message") or data.get("detail")
        return f"status {status!r}" + (f": {str(detail)[:200]}" if detail else "")
    if data.get("success") is False or data.get("ok") is False:
        detail = data.get("message") or data.get("detail")
        return "success: false" + (f": {str(detail)[:200]}" if detail else "")
    return None


def classify(ok: bool, data: Any = None, error_kind: str | None = None, error: str | None = None, *,
             tool: Any = None, arguments: Mapping[str, Any] | None = None) -> tuple[TrialOutcome, str]:
    """GRETEL §4.4 taxonomy of one executed call by rule: (outcome, reason). A call that ran is a semantic
    mismatch when its answer is empty or reports a failure of its own (:func:`reported_failure`), and a
    parameter mismatch when a name slot was given a sentence (:func:`misplaced_sentence`, given the tool and
    arguments). Whether a non-empty answer serves the request is the judge role's question
    (:meth:`core.trials.roles.TrialOperators.judge_answer`), asked by the pipeline after this."""
    if ok:
        if is_empty(data):
            return TrialOutcome.SEMANTIC_MISMATCH, "the call ran but returned nothing"
        failure = reported_failure(data)
        if failure is not None:
            return TrialOutcome.SEMANTIC_MISMATCH, f"the call ran but its answer reports a failure ({failure})"
        if tool is not None:
            misplaced = misplaced_sentence(tool, arguments or {})
            if misplaced is not None:
                return TrialOutcome.PARAMETER_MISMATCH, misplaced
        return TrialOutcome.FUNCTIONAL_SUCCESS, "the call ran and returned a result"
    if error_kind in _PARAMETER_KINDS:
        return TrialOutcome.PARAMETER_MISMATCH, f"the tool rejected the arguments: {error}"
    return TrialOutcome.EXECUTION_FAILURE, f"{error_kind or 'error'}: {error}"


def misplaced_sentence(tool: Any, arguments: Mapping[str, Any]) -> str | None:
    """Our rule (GRETEL gives none): a parameter that asks for a name, code, number or identifier (not prose:
    :func:`core.trials.shapes.is_free_text`) given a free sentence (:func:`core.trials.shapes.looks_like_sentence`)
    means the tool was asked about the wrong thing, whatever it answered: the reason, else None."""
    from core.trials.shapes import is_free_text, looks_like_sentence

    schema = getattr(tool, "parameters", None)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    name = getattr(tool, "name", "")
    for key, value in arguments.items():
        spec = props.get(key) if isinstance(props.get(key), Mapping) else {}
        if isinstance(value, str) and spec and not is_free_text(key, spec, name) and looks_like_sentence(value):
            shown = value if len(value) <= 60 else value[:57] + "…"
            return f"the call ran, but '{key}' was given a sentence instead of a name or value: \"{shown}\""
    return None
