"""Merge runs in the store: judge answers as run items (so a run resumes), reviewer decisions as rows.

A merge run is a ``run`` row of kind ``merge``; its pair verdicts, audits and merged docs are
``run_item`` rows keyed by a digest of the tools they concern. Review decisions are kept in
``merge_decision`` with their time, never overwritten: the latest decision per cluster wins.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Text
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from core.merging.graph import representative
from core.merging.pipeline import ClusterAudit, MergedDoc, MergeResult, PairVerdict
from core.models import Tool
from storage import runs
from storage.tables import utcnow

ACTIONS = ("accept", "reject", "move", "edit_doc")


class MergeDecisionRow(SQLModel, table=True):
    __tablename__ = "merge_decision"
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    cluster_id: str = Field(max_length=40, index=True)
    action: str = Field(max_length=20)
    payload_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    created_at: datetime = Field(default_factory=utcnow)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:40]


class SqlMergeStore:
    """The pipeline's store (``core.merging.pipeline.MergeStore``) on one run's items."""

    def __init__(self, db: Engine, run_id: int) -> None:
        self.db = db
        self.run_id = run_id

    def _items(self, prefix: str) -> list[dict[str, Any]]:
        return [v for k, v in runs.load_items(self.db, self.run_id).items() if k.startswith(prefix)]

    def load_pairs(self) -> Mapping[tuple[str, str], PairVerdict]:
        return {(d["a"], d["b"]): PairVerdict(**d) for d in self._items("pair:")}

    def save_pair(self, verdict: PairVerdict) -> None:
        runs.put_item(self.db, self.run_id, f"pair:{_digest(verdict.a + chr(9) + verdict.b)}", verdict.__dict__)

    def load_audits(self) -> Mapping[str, ClusterAudit]:
        out = {}
        for d in self._items("audit:"):
            groups = tuple(tuple(g) for g in d["groups"])
            out[d["members_key"]] = ClusterAudit(d["ok"], groups, d["reason"], d.get("call_id"), d.get("error"))
        return out

    def save_audit(self, members_key: str, audit: ClusterAudit) -> None:
        runs.put_item(self.db, self.run_id, f"audit:{_digest(members_key)}",
                      {"members_key": members_key, **audit.__dict__})

    def load_docs(self) -> Mapping[str, MergedDoc]:
        return {d["group_key"]: MergedDoc(d["description"], d.get("call_id"), d.get("error"))
                for d in self._items("doc:")}

    def save_doc(self, group_key: str, doc: MergedDoc) -> None:
        runs.put_item(self.db, self.run_id, f"doc:{_digest(group_key)}", {"group_key": group_key, **doc.__dict__})


def open_merge_run(db: Engine, version_id: int, config: Mapping[str, Any], judge_id: str,
                   *, resume: bool = True) -> runs.RunInfo:
    """The unfinished merge run with this config and judge (to resume) or a new one."""
    return runs.open_run(db, "merge", {"version_id": version_id, **dict(config), "judge": judge_id},
                         version_id=version_id, strategy=judge_id, resume=resume)


RUN_STATUSES = ("done", "failed", "stopped")


def finish_merge_run(db: Engine, run_id: int, summary: Mapping[str, Any], *, status: str = "done") -> runs.RunInfo:
    """Close a merge run with its summary (``MergeResult.summary()``) as ``done``, or as ``failed`` or
    ``stopped`` (interrupted; the next run with the same settings resumes it)."""
    if status not in RUN_STATUSES:
        raise ValueError(f"merge run {run_id}: status {status!r} is not one of {', '.join(RUN_STATUSES)}")
    return runs.finish_run(db, run_id, dict(summary), status=status)


def list_merge_runs(db: Engine, version_id: int | None = None) -> tuple[runs.RunInfo, ...]:
    return tuple(r for r in runs.list_runs(db, kind="merge") if version_id is None or r.version_id == version_id)


@dataclass(frozen=True)
class Decision:
    id: int
    cluster_id: str
    action: str
    payload: Mapping[str, Any]
    created_at: datetime


def record_decision(db: Engine, run_id: int, cluster_id: str, action: str,
                    payload: Mapping[str, Any] | None = None) -> Decision:
    """Store one reviewer decision (``accept``, ``reject``, ``move`` {key, to_group}, ``edit_doc``
    {group, description}) with its time."""
    if action not in ACTIONS:
        raise ValueError(f"unknown review action {action!r}; valid actions: {', '.join(ACTIONS)}")
    payload = dict(payload or {})
    if action == "move" and not (isinstance(payload.get("key"), str) and isinstance(payload.get("to_group"), int)):
        raise ValueError("a move needs payload {'key': tool key, 'to_group': group index}")
    if action == "edit_doc" and not (isinstance(payload.get("group"), int)
                                     and isinstance(payload.get("description"), str)):
        raise ValueError("an edit_doc needs payload {'group': group index, 'description': text}")
    row = MergeDecisionRow(run_id=run_id, cluster_id=cluster_id, action=action,
                           payload_json=json.dumps(payload, ensure_ascii=False))
    with Session(db) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
        return Decision(row.id, row.cluster_id, row.action, payload, row.created_at)


def list_decisions(db: Engine, run_id: int) -> tuple[Decision, ...]:
    with Session(db) as session:
        rows = session.exec(select(MergeDecisionRow).where(MergeDecisionRow.run_id == run_id)
                            .order_by(col(MergeDecisionRow.id))).all()
        return tuple(Decision(r.id, r.cluster_id, r.action, json.loads(r.payload_json), r.created_at) for r in rows)


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
