"""Offline merge judge: deterministic rules over names, descriptions and parameter schemas. Not an LLM.

Pair rule (for pairs already above the cosine threshold): two operations of one API at different endpoints
(``GET /movie/popular`` / ``GET /tv/popular``, or GET / DELETE of one path) are kept apart; otherwise the
same name once case and separators are ignored is a match. Otherwise the pair is kept apart when a name
carries an action the other tool never mentions (add_task / list_tasks), when one tool requires inputs the
other cannot take even as optional parameters (get_weather(city) / get_forecast(city, days)), when one tool
consumes what the other looks up (get_current_time(timezone) / get_timezone), when each requires the
identifier of a different thing (movie_id / series_id), when the required-parameter counts differ by two or
more, when each name carries a subject word the other tool never mentions (simple_interest /
compound_interest, movie_popular / tv_popular), or when the names' head nouns differ and the tools do not
name each other's (convert_units / convert_data_size, get_user / get_playlist), or when the names qualify
one head noun differently (get_marine_forecast / get_wind_forecast).
The audit re-checks every pair inside a cluster with the same rules plus equal required-parameter counts
and splits the cluster into groups whose members all match each other (stricter than the graph, which
links through chains); the split is always a partition of the cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.llm.base import RoleCall
from core.llm.framework import OfflineRoles
from core.merging.docs import merged_description
from core.merging.features import PairEvidence, evidence
from core.merging.judge import AuditJudgement, PairJudgement
from core.models import Tool

MODEL = "merge-rules-v2"  # v2: endpoints, identifiers and head nouns; descriptions for a reader


def pair_verdict(ev: PairEvidence) -> PairJudgement:
    """ToolScope §3.2 step 2 (pair classification M_C, Eq. 1), answered by rules instead of a model (the
    rules are ours; see the module docstring)."""
    if ev.endpoints:
        return PairJudgement(False, ev.endpoints)
    if ev.same_name:
        return PairJudgement(True, "same name apart from case and separators")
    if ev.conflicting_actions:
        acts = sorted(set(ev.actions[0]) | set(ev.actions[1]))
        return PairJudgement(False, f"different actions: {', '.join(acts)} is not something the other tool does")
    if ev.extra_inputs:
        return PairJudgement(False, f"one tool requires {', '.join(ev.extra_inputs)}, which the other cannot take")
    if ev.chain:
        return PairJudgement(False, f"steps of one task, not the same job: {ev.chain}")
    if ev.id_conflict:
        return PairJudgement(False, f"act on different things: one needs {ev.id_conflict[0]!r}, the other "
                                    f"{ev.id_conflict[1]!r}")
    gap = abs(ev.required[0] - ev.required[1])
    if gap >= 2:
        return PairJudgement(False, f"required parameters differ too much ({ev.required[0]} vs {ev.required[1]})")
    if ev.different_objects:
        return PairJudgement(False, f"about different things: {', '.join(ev.unshared[0])} vs "
                                    f"{', '.join(ev.unshared[1])}")
    if ev.heads:
        return PairJudgement(False, f"the names are about different things: {ev.heads[0]} vs {ev.heads[1]}")
    if ev.kinds:
        return PairJudgement(False, f"different kinds of one thing: {ev.kinds[0]} vs {ev.kinds[1]}")
    return PairJudgement(True, "same job: close wording, compatible required parameters"
                               + (f", shared name words ({ev.name_overlap:.0%})" if ev.name_overlap else ""))


def strict_same(a: Tool, b: Tool) -> bool:
    """The audit's test: the pair rules plus equal required-parameter counts."""
    ev = evidence(a, b)
    return pair_verdict(ev).same and (ev.same_name or ev.required[0] == ev.required[1])


class OfflineJudge(OfflineRoles):
    """The :class:`core.merging.judge.MergeJudge` roles by rule (no randomness: the rng goes unused)."""

    model = MODEL

    def classify_pair(self, a: Tool, b: Tool, cosine: float) -> RoleCall:
        return self._call("classify_pair", {"a": a.key, "b": b.key, "cosine": round(float(cosine), 6)},
                          lambda _rng: pair_verdict(evidence(a, b)))

    def audit_cluster(self, members: Sequence[Tool]) -> RoleCall:
        def run(_rng) -> AuditJudgement:
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
        def run(_rng) -> str:
            return merged_description(representative, others)
        return self._call("merged_doc", {"keep": representative.key, "others": [t.key for t in others]}, run)
