"""The LLM call ledger: every call, its prompt, answer, tokens, latency and error.

API keys are never passed here; the prompt column holds only the messages sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import Column, Text
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, func, select

from core.models import CallRecord
from storage.tables import utcnow


class LLMCallRow(SQLModel, table=True):
    __tablename__ = "llm_call"
    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, index=True)
    role: str = Field(max_length=60, index=True)
    backend: str = Field(max_length=60)
    model: str = Field(default="", max_length=300)
    temperature: float = 0.0
    request_hash: str = Field(max_length=64, index=True)
    prompt: str = Field(sa_column=Column(Text, nullable=False))
    response: str = Field(sa_column=Column(Text, nullable=False))
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


def _aware(when: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without their zone; every stored time is UTC (utcnow).
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


def _record(r: LLMCallRow) -> CallRecord:
    return CallRecord(role=r.role, backend=r.backend, model=r.model, temperature=r.temperature,
                      request_hash=r.request_hash, prompt=r.prompt, response=r.response, tokens_in=r.tokens_in,
                      tokens_out=r.tokens_out, latency_s=r.latency_s, error=r.error, id=r.id, run_id=r.run_id,
                      created_at=_aware(r.created_at))


def record_call(engine: Engine, record: CallRecord) -> int:
    """Store one call; returns its id (the ``call_id`` a strategy trace points at)."""
    # VARCHAR limits are enforced by PostgreSQL; a long GGUF path as model name must not fail the run.
    row = LLMCallRow(run_id=record.run_id, role=record.role[:60], backend=record.backend[:60],
                     model=record.model[:300],
                     temperature=record.temperature, request_hash=record.request_hash, prompt=record.prompt,
                     response=record.response, tokens_in=record.tokens_in, tokens_out=record.tokens_out,
                     latency_s=record.latency_s, error=record.error)
    with Session(engine) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
        return int(row.id)


def find_replay(engine: Engine, request_hash: str) -> CallRecord | None:
    """The latest successful call with this request hash."""
    with Session(engine) as session:
        row = session.exec(
            select(LLMCallRow).where(LLMCallRow.request_hash == request_hash, col(LLMCallRow.error).is_(None))
            .order_by(col(LLMCallRow.id).desc())
        ).first()
        return _record(row) if row else None


def list_calls(engine: Engine, *, run_id: int | None = None, role: str | None = None,
               ids: Iterable[int] | None = None,
               limit: int = 500) -> tuple[CallRecord, ...]:
    """Calls in the order they were made, optionally of one run, one role or the given ids."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, not {limit!r}")
    with Session(engine) as session:
        stmt = select(LLMCallRow).order_by(LLMCallRow.id)
        if run_id is not None:
            stmt = stmt.where(LLMCallRow.run_id == run_id)
        if role:
            stmt = stmt.where(LLMCallRow.role == role)
        if ids is not None:
            stmt = stmt.where(col(LLMCallRow.id).in_(list(ids)))
        return tuple(_record(r) for r in session.exec(stmt.limit(limit)).all())


def count_calls(engine: Engine, *, run_id: int | None = None, errors_only: bool = False) -> int:
    """How many calls (of one run; only the failed ones with ``errors_only``)."""
    with Session(engine) as session:
        stmt = select(func.count()).select_from(LLMCallRow)
        if run_id is not None:
            stmt = stmt.where(LLMCallRow.run_id == run_id)
        if errors_only:
            stmt = stmt.where(col(LLMCallRow.error).is_not(None))
        return int(session.exec(stmt).one())
