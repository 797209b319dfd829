"""A merge run as its reviewer left it: the stored decisions (``storage.merges``) replayed in order over the
run's clusters, and the reviewed catalog with its key map φ."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.merging.graph import representative
from core.merging.pipeline import MergeResult
from core.models import Tool
from storage.merges import Decision


@dataclass(frozen=True)
class ReviewedCluster:
    cluster_id: str
    status: str  # "pending", "accepted" or "rejected"
    groups: tuple[tuple[str, ...], ...]
    docs: Mapping[int, str]  # group index → edited description


def review_state(result: MergeResult, decisions: Sequence[Decision]) -> dict[str, ReviewedCluster]:
    """Each cluster after the reviewer's decisions, replayed in order: moves change the split, edits change
    a group's merged description, and the latest accept/reject sets the status."""
    state: dict[str, ReviewedCluster] = {c.id: ReviewedCluster(c.id, "pending", c.groups, {}) for c in result.clusters}
    for d in decisions:
        cur = state.get(d.cluster_id)
        if cur is None:
            continue  # a decision about a cluster this result no longer has (e.g. another threshold)
        if d.action in ("accept", "reject"):
            state[d.cluster_id] = ReviewedCluster(cur.cluster_id, d.action + "ed", cur.groups, cur.docs)
        elif d.action == "move":
            key, to = d.payload["key"], int(d.payload["to_group"])
            groups = [[k for k in g if k != key] for g in cur.groups]
            if to >= len(groups):
                groups.append([])
            groups[to].append(key)
            state[d.cluster_id] = ReviewedCluster(cur.cluster_id, cur.status,
                                                  tuple(tuple(g) for g in groups if g), cur.docs)
        elif d.action == "edit_doc":
            state[d.cluster_id] = ReviewedCluster(cur.cluster_id, cur.status, cur.groups,
                                                  {**cur.docs, int(d.payload["group"]): d.payload["description"]})
    return state


def apply_decisions(result: MergeResult, decisions: Sequence[Decision], tools: Sequence[Tool]
                    ) -> tuple[tuple[Tool, ...], dict[str, str]]:
    """The reviewed catalog and φ: rejected clusters stay separate tools, accepted and pending ones merge as
    their (possibly edited) split says, with the reviewer's descriptions where given."""
    from core.merging.docs import merged_tool

    by_key = {t.key: t for t in tools}
    phi = {t.key: t.key for t in tools}
    merged: dict[str, Tool] = {}
    states = review_state(result, decisions)
    for c in result.clusters:
        rc = states[c.id]
        if rc.status == "rejected":
            continue
        for i, grp in enumerate(rc.groups):
            if len(grp) < 2:
                continue
            rep = representative([by_key[k] for k in grp])
            others = [by_key[k] for k in grp if k != rep.key]
            auto = result.merged_tools.get(rep.key)
            same_members = auto is not None and set(auto.extra.get("merged_from", [])) == {t.key for t in others}
            text = rc.docs.get(i) or (auto.description if same_members else rep.description)
            merged[rep.key] = merged_tool(rep, others, text)
            for k in grp:
                phi[k] = rep.key
    reviewed = tuple(merged.get(t.key, t) for t in tools if phi[t.key] == t.key)
    return reviewed, phi


@dataclass(frozen=True)
class Review:
    """A merge run as reviewed so far: its decisions in order, each cluster's state, the reviewed catalog, φ."""

    decisions: tuple[Decision, ...]
    states: Mapping[str, ReviewedCluster]
    reviewed: tuple[Tool, ...]
    phi: Mapping[str, str]

    def history(self, cluster_id: str) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.cluster_id == cluster_id)


def load_review(workspace: Any, run_id: int, result: MergeResult, tools: Sequence[Tool]) -> Review:
    """The stored decisions of merge run ``run_id`` replayed over its ``result`` (see :func:`apply_decisions`)."""
    from storage.merges import list_decisions

    decisions = list_decisions(workspace.db, run_id)
    reviewed, phi = apply_decisions(result, decisions, tools)
    return Review(decisions, review_state(result, decisions), reviewed, phi)


def decide(workspace: Any, run_id: int, cluster_id: str, action: str,
           payload: Mapping[str, Any] | None = None) -> Decision:
    """Store one reviewer decision on a cluster of merge run ``run_id`` (``accept``, ``reject``, ``move``
    {key, to_group}, ``edit_doc`` {group, description}); ValueError names the valid actions."""
    from storage.merges import record_decision

    return record_decision(workspace.db, run_id, cluster_id, action, payload)
