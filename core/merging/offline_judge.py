"""Offline merge judge: deterministic rules over names, descriptions and parameter schemas. Not an LLM.

Pair rule (for pairs already above the cosine threshold): the same name once case and separators are
ignored is a match. Otherwise the pair is kept apart when a name carries an action the other tool never
mentions (add_task / list_tasks), when one tool requires inputs the other cannot take even as optional
parameters (get_weather(city) / get_forecast(city, days)), when one tool consumes what the other looks up
(get_current_time(timezone) / get_timezone), when the required-parameter counts differ by two or more, or
when each name carries a word the other tool never mentions (simple_interest / compound_interest).
The audit re-checks every pair inside a cluster with the same rules plus equal required-parameter counts
and splits the cluster into groups whose members all match each other (stricter than the graph, which
links through chains); the split is always a partition of the cluster.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from core.llm.base import RoleCall, rule_call
from core.merging.features import PairEvidence, evidence
from core.merging.judge import AuditJudgement, PairJudgement
from core.models import Tool

MODEL = "merge-rules-v1"


def pair_verdict(ev: PairEvidence) -> PairJudgement:
    """ToolScope §3.2 step 2 (pair classification M_C, Eq. 1), answered by rules instead of a model."""
    if ev.same_name:
        return PairJudgement(True, "same name apart from case and separators")
    if ev.conflicting_actions:
        acts = sorted(set(ev.actions[0]) | set(ev.actions[1]))
        return PairJudgement(False, f"different actions: {', '.join(acts)} is not something the other tool does")
    if ev.extra_inputs:
        return PairJudgement(False, f"one tool requires {', '.join(ev.extra_inputs)}, which the other cannot take")
    if ev.chain:
        return PairJudgement(False, f"steps of one task, not the same job: {ev.chain}")
    gap = abs(ev.required[0] - ev.required[1])
    if gap >= 2:
        return PairJudgement(False, f"required parameters differ too much ({ev.required[0]} vs {ev.required[1]})")
    if ev.different_objects:
        return PairJudgement(False, f"about different things: {', '.join(ev.unshared[0])} vs "
                                    f"{', '.join(ev.unshared[1])}")
    return PairJudgement(True, "same job: close wording, compatible required parameters"
                               + (f", shared name words ({ev.name_overlap:.0%})" if ev.name_overlap else ""))


def merged_description(representative: Tool, others: Sequence[Tool], *, limit: int = 3) -> str:
    """ToolScope §3.2 step 6 (M_D) without a model: the representative's description, then the merged tools'
    names and the first sentence of each description that adds words the kept text lacks."""
    base = " ".join(representative.description.split()) or representative.name
    if not others:
        return base
    seen = _plain_words(base)
    notes = []
    for t in others:
        first = re.split(r"(?<=[.!?])\s", " ".join(t.description.split()), maxsplit=1)[0].rstrip(".")
        new = _plain_words(first) - seen
        if first and len(new) >= 2 and len(notes) < limit:
            notes.append(f"{first} ({t.name})")
            seen |= new
    names = ", ".join(t.name for t in others)
    text = f"{base.rstrip('.')}. Replaces {names}."
    return text + (" Also described as: " + "; ".join(notes) + "." if notes else "")


def _plain_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


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
        return rule_call(self.ledger, backend=self.name, model=self.model, role=role, seed=self.seed,
                         payload=payload, fn=fn)

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
            return merged_description(representative, others)
        return self._call("merged_doc", {"keep": representative.key, "others": [t.key for t in others]}, run)
