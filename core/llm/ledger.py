"""Where role calls are recorded: the store (``SqlLedger``) or a list (``MemoryLedger``)."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from core.llm.base import CallRecord, request_hash

__all__ = ["Ledger", "MemoryLedger", "SqlLedger", "request_hash"]


@runtime_checkable
class Ledger(Protocol):
    def record(self, record: CallRecord) -> int:
        """Store a call; returns its id."""
        ...

    def find(self, request_hash: str) -> CallRecord | None:
        """The latest successful call with this request hash (replay), or None."""
        ...


class MemoryLedger:
    """A list of records, for notebooks and tests. Thread-safe: population calls record concurrently."""

    def __init__(self, run_id: int | None = None) -> None:
        self.run_id = run_id
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, record: CallRecord) -> int:
        with self._lock:
            rid = len(self.records) + 1
            self.records.append(replace(record, id=rid, run_id=self.run_id, created_at=datetime.now(UTC)))
            return rid

    def find(self, request_hash: str) -> CallRecord | None:
        with self._lock:
            for r in reversed(self.records):
                if r.request_hash == request_hash and r.error is None:
                    return r
        return None


class SqlLedger:
    """Ledger rows in the store (``storage.ledger``), tagged with the run they belong to."""

    def __init__(self, engine: Any, run_id: int | None = None) -> None:
        self.engine = engine
        self.run_id = run_id

    def record(self, record: CallRecord) -> int:
        from storage.ledger import record_call

        return record_call(self.engine, replace(record, run_id=self.run_id))

    def find(self, request_hash: str) -> CallRecord | None:
        from storage.ledger import find_replay

        return find_replay(self.engine, request_hash)
