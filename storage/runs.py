"""Runs and their items, written item by item so an interrupted run resumes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.db import insert_ignoring_duplicates
from storage.readcache import cached
from storage.tables import GridRun, Run, RunItem, utcnow


@dataclass(frozen=True)
class RunInfo:
    id: int
    kind: str
    version_id: int | None
    query_set_id: int | None
    strategy: str
    config: Mapping[str, Any]
    status: str
    n_items: int
    metrics: Mapping[str, Any]
    created_at: datetime
    finished_at: datetime | None


def config_hash(kind: str, config: Mapping[str, Any]) -> str:
    payload = json.dumps({"kind": kind, **config}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _sorted_keys(value: Any) -> Any:
    """``value`` with the keys of every dict in it in sorted order: a run's config is stored in the order of
    its hash's text (``sort_keys``), so it reads back the same however the caller ordered it (ours)."""
    if isinstance(value, dict):
        return {k: _sorted_keys(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_sorted_keys(v) for v in value]
    return value


def _info(r: Run) -> RunInfo:
    return RunInfo(
        r.id, r.kind, r.version_id, r.query_set_id, r.strategy, r.config_json, r.status,
        r.n_items, r.metrics_json, r.created_at, r.finished_at,
    )


def open_run(
    engine: Engine,
    kind: str,
    config: Mapping[str, Any],
    *,
    version_id: int | None = None,
    query_set_id: int | None = None,
    strategy: str = "",
    resume: bool = True,
) -> RunInfo:
    """Return the unfinished run with this exact config (to resume it) or start a new one (:func:`find_done`
    finds a finished one, for callers that show it instead of storing the same work twice)."""
    digest = config_hash(kind, config)
    with Session(engine) as session:
        if resume:
            existing = session.exec(_unfinished(select(Run), digest)).first()
            if existing is not None:
                return _info(existing)
        run = Run(
            kind=kind,
            version_id=version_id,
            query_set_id=query_set_id,
            strategy=strategy,
            config_hash=digest,
            config_json=_sorted_keys(dict(config)),
        )
        session.add(run)
        session.commit()
        session.refresh(run)
        return _info(run)


def find_done(engine: Engine, kind: str, config: Mapping[str, Any], *, version_id: int | None = None) -> RunInfo | None:
    """The newest finished run of ``kind`` with exactly this config (and on ``version_id`` when given), or None:
    callers show it instead of storing the same work twice, and run again only when asked."""
    digest = config_hash(kind, config)
    return cached(engine, ("find_done", digest, version_id), ("run",), lambda: _find_done(engine, digest, version_id))


def _find_done(engine: Engine, digest: str, version_id: int | None) -> RunInfo | None:
    wanted = [Run.config_hash == digest, Run.status == "done"]
    if version_id is not None:
        wanted.append(Run.version_id == version_id)
    with Session(engine) as session:
        found = session.exec(select(Run).where(*wanted).order_by(col(Run.id).desc())).first()
        return _info(found) if found is not None else None


def unfinished_run(engine: Engine, kind: str, config: Mapping[str, Any]) -> int | None:
    """The id of the newest unfinished run of ``kind`` with exactly this config (the one :func:`open_run`
    resumes), or None."""
    with Session(engine) as session:
        return session.exec(_unfinished(select(Run.id), config_hash(kind, config))).first()


def _unfinished(query, digest: str):
    """``query`` narrowed to the unfinished runs with config hash ``digest``, newest first."""
    return query.where(Run.config_hash == digest, Run.status != "done").order_by(col(Run.id).desc())


def done_item_keys(engine: Engine, run_id: int) -> set[str]:
    with Session(engine) as session:
        return set(session.exec(select(RunItem.item_key).where(RunItem.run_id == run_id)).all())


def add_item(engine: Engine, run_id: int, item_key: str, result: Mapping[str, Any], seconds: float = 0.0) -> bool:
    """Write one finished item. Returns False when it was already stored (never duplicates)."""
    row = {
        "run_id": run_id,
        "item_key": item_key,
        "result_json": result,
        "seconds": seconds,
        "created_at": utcnow(),
    }
    with engine.begin() as conn:
        return insert_ignoring_duplicates(conn, RunItem.__table__, [row]) == 1


def put_item(engine: Engine, run_id: int, item_key: str, result: Mapping[str, Any], seconds: float = 0.0) -> None:
    """Write one item, replacing what is stored under its key: a retried item (a verdict that failed
    before an interruption) overwrites the failure, so the run still holds one result per item."""
    values = {"result_json": result, "seconds": seconds, "created_at": utcnow()}
    table = RunItem.__table__
    with engine.begin() as conn:
        changed = conn.execute(update(table).where(table.c.run_id == run_id, table.c.item_key == item_key)
                               .values(**values)).rowcount
        if not changed:
            insert_ignoring_duplicates(conn, table, [{"run_id": run_id, "item_key": item_key, **values}])


def load_items(engine: Engine, run_id: int) -> dict[str, dict[str, Any]]:
    with Session(engine) as session:
        rows = session.exec(select(RunItem).where(RunItem.run_id == run_id).order_by(RunItem.id)).all()
        return {r.item_key: r.result_json for r in rows}


def item_seconds(engine: Engine, run_id: int) -> dict[str, float]:
    with Session(engine) as session:
        return dict(session.exec(select(RunItem.item_key, RunItem.seconds).where(RunItem.run_id == run_id)).all())


def finish_run(engine: Engine, run_id: int, metrics: Mapping[str, Any], *, status: str = "done") -> RunInfo:
    with Session(engine) as session:
        run = session.get(Run, run_id)
        if run is None:
            raise ValueError(f"no run with id {run_id}")
        run.metrics_json = dict(metrics)
        run.status = status
        run.n_items = len(session.exec(select(RunItem.id).where(RunItem.run_id == run_id)).all())
        run.finished_at = utcnow()
        session.add(run)
        session.commit()
        session.refresh(run)
        return _info(run)


def list_runs(engine: Engine, *, kind: str | None = None, version_id: int | None = None,
              limit: int = 200) -> tuple[RunInfo, ...]:
    """Newest first (through the engine's read cache, :mod:`storage.readcache`)."""
    return cached(engine, ("list_runs", kind or None, version_id, limit), ("run",),
                  lambda: _list_runs(engine, kind, version_id, limit))


def _list_runs(engine: Engine, kind: str | None, version_id: int | None, limit: int) -> tuple[RunInfo, ...]:
    with Session(engine) as session:
        stmt = select(Run).order_by(col(Run.id).desc()).limit(limit)
        if kind:
            stmt = stmt.where(Run.kind == kind)
        if version_id is not None:
            stmt = stmt.where(Run.version_id == version_id)
        return tuple(_info(r) for r in session.exec(stmt).all())


def get_run(engine: Engine, run_id: int) -> RunInfo | None:
    return cached(engine, ("get_run", run_id), ("run",), lambda: _get_run(engine, run_id))


def _get_run(engine: Engine, run_id: int) -> RunInfo | None:
    with Session(engine) as session:
        run = session.get(Run, run_id)
        return None if run is None else _info(run)


def add_to_grid(engine: Engine, grid: str, run_id: int) -> bool:
    """Record that run ``run_id`` belongs to grid ``grid``; False when it already did (never a duplicate, so
    shards and reruns may record the same run again)."""
    with engine.begin() as conn:
        return insert_ignoring_duplicates(conn, GridRun.__table__,
                                          [{"grid": grid, "run_id": run_id, "created_at": utcnow()}]) == 1


def grid_names(engine: Engine) -> tuple[str, ...]:
    """Every grid with a run in the store, by name."""
    return cached(engine, ("grid_names",), ("grid_run",), lambda: _grid_names(engine))


def _grid_names(engine: Engine) -> tuple[str, ...]:
    with Session(engine) as session:
        return tuple(session.exec(select(GridRun.grid).distinct().order_by(GridRun.grid)).all())


def grid_run_ids(engine: Engine, grid: str) -> tuple[int, ...]:
    """The runs of grid ``grid``, in the order they were recorded."""
    return cached(engine, ("grid_run_ids", grid), ("grid_run",), lambda: _grid_run_ids(engine, grid))


def _grid_run_ids(engine: Engine, grid: str) -> tuple[int, ...]:
    with Session(engine) as session:
        return tuple(session.exec(select(GridRun.run_id).where(GridRun.grid == grid).order_by(GridRun.id)).all())
