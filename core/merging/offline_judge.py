"""Offline merge judge: deterministic rules over names, descriptions and parameter schemas. Not an LLM.

Pair rule (for pairs already above the cosine threshold): the same name once case and separators are
ignored is a match; a name carrying an action the other tool never mentions, a required-parameter count
that differs by two or more, or names about different objects with nothing else in common are not.
The audit re-checks every pair inside a cluster with the same rules and splits the cluster into the
groups that survive (stricter than the graph, which links through chains).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from core.llm.base import CallRecord, RoleCall, request_hash
from core.merging.features import PairEvidence, evidence
from core.merging.judge import AuditJudgement, PairJudgement
from core.models import Tool

MODEL = "merge-rules-v1"


def pair_verdict(ev: PairEvidence) -> PairJudgement:
    if ev.same_name:
        return PairJudgement(True, "same name apart from case and separators")
    if ev.conflicting_actions:
        acts = sorted(set(ev.actions[0]) | set(ev.actions[1]))
        return PairJudgement(False, f"different actions: {', '.join(acts)} is not something the other tool does")
    gap = abs(ev.required[0] - ev.required[1])
    if gap >= 2:
        return PairJudgement(False, f"required parameters differ too much ({ev.required[0]} vs {ev.required[1]})")
    if ev.different_objects and (gap or ev.name_overlap == 0):
        return PairJudgement(False, f"about different things: {', '.join(ev.unshared[0])} vs "
                                    f"{', '.join(ev.unshared[1])}")
    return PairJudgement(True, "same job: close wording, compatible required parameters"
                               + (f", shared name words ({ev.name_overlap:.0%})" if ev.name_overlap else ""))


def strict_same(a: Tool, b: Tool) -> bool:
    """The audit's test: the pair rules plus equal required-parameter counts."""
    ev = evidence(a, b)
    return pair_verdict(ev).same and (ev.same_name or ev.required[0] == ev.required[1])


class OfflineJudge:
    name = "offline"
    model = MODEL

    def __init__(self, *, ledger: Any = None, seed: int = 0) -> None:
        self.ledger = ledger
        self.seed = int(seed)

    def _call(self, role: str, payload: dict[str, Any], fn: Callable[[], Any]) -> RoleCall:
        start = time.perf_counter()
        value, error = None, None
        try:
            value = fn()
        except Exception as exc:  # noqa: BLE001 - a rule bug must cost one decision, not the run
            error = f"{type(exc).__name__}: {exc}"
        call_id = None
        if self.ledger is not None:
            shown = value.__dict__ if hasattr(value, "__dict__") else value
            call_id = self.ledger.record(CallRecord(
                role=role, backend=self.name, model=self.model, temperature=0.0,
                request_hash=request_hash(self.name, self.model, role, 0.0, self.seed, payload),
                prompt=json.dumps(payload, ensure_ascii=False, default=str),
                response=json.dumps(shown, ensure_ascii=False, default=str), latency_s=time.perf_counter() - start,
                error=error))
        return RoleCall(value=value, call_id=call_id, ok=error is None, error=error, role=role)

    def classify_pair(self, a: Tool, b: Tool, cosine: float) -> RoleCall:
        return self._call("classify_pair", {"a": a.key, "b": b.key, "cosine": round(float(cosine), 6)},
                          lambda: pair_verdict(evidence(a, b)))

    def audit_cluster(self, members: Sequence[Tool]) -> RoleCall:
        def run() -> AuditJudgement:
            # The graph links through chains (A~B, B~C); the audit asks every member to match every other
            # member of its group, with the same number of required parameters.
            groups: list[list[Tool]] = []
            for t in members:
                home = next((g for g in groups if all(strict_same(t, o) for o in g)), None)
                if home is None:
                    groups.append([t])
                else:
                    home.append(t)
            split = tuple(tuple(t.key for t in g) for g in groups)
            if len(split) == 1:
                return AuditJudgement(True, split, "every pair in the cluster passes the pair rules and needs "
                                                   "the same number of required parameters")
            return AuditJudgement(False, split, f"not every member does the same job as all the others; split into "
                                                f"{len(split)} groups whose members all match each other")
        return self._call("audit_cluster", {"members": [t.key for t in members]}, run)

    def merged_doc(self, representative: Tool, others: Sequence[Tool]) -> RoleCall:
        def run() -> str:
            names = ", ".join(t.name for t in others)
            base = representative.description.strip() or representative.name
            return f"{base} (Also covers: {names}.)" if names else base
        return self._call("merged_doc", {"keep": representative.key, "others": [t.key for t in others]}, run)
