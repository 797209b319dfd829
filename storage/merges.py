"""Merge runs in the store and reviewer decisions as rows.

A merge run is a ``run`` row of kind ``merge``; its pair verdicts, audits and merged docs are ``run_item``
rows (written through :class:`core.merging.store.SqlMergeStore`). Review decisions are kept in
``merge_decision`` with their time, never overwritten: replaying them in order
(:mod:`core.merging.review`) gives each cluster's reviewed state. This module knows tables and rows only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from storage import runs
from storage.tables import utcnow

ACTIONS = ("accept", "reject", "move", "edit_doc")


class MergeDecisionRow(SQLModel, table=True):
    __tablename__ = "merge_decision"
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    cluster_id: str = Field(max_length=40, index=True)
    action: str = Field(max_length=20)
    payload_json: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    created_at: datetime = Field(default_factory=utcnow)


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
    row = MergeDecisionRow(run_id=run_id, cluster_id=cluster_id, action=action, payload_json=payload)
    with Session(db) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
        return Decision(row.id, row.cluster_id, row.action, payload, row.created_at)


def list_decisions(db: Engine, run_id: int) -> tuple[Decision, ...]:
    with Session(db) as session:
        rows = session.exec(select(MergeDecisionRow).where(MergeDecisionRow.run_id == run_id)
                            .order_by(col(MergeDecisionRow.id))).all()
        return tuple(Decision(r.id, r.cluster_id, r.action, r.payload_json, r.created_at) for r in rows)
