"""Where role calls are recorded: the store (``SqlLedger``) or a list (``MemoryLedger``)."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import replace
from typing import Any, Protocol

from core.llm.base import CallRecord


def request_hash(backend: str, model: str, role: str, temperature: float, seed: int | None, payload: Any) -> str:
    """Identity of a request for replay: same backend, model, role, temperature, seed and prompt."""
    blob = json.dumps([backend, model, role, round(float(temperature), 4), seed, payload], sort_keys=True,
                      ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Ledger(Protocol):
    def record(self, record: CallRecord) -> int: ...

    def find(self, request_hash: str) -> CallRecord | None: ...


class MemoryLedger:
    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, record: CallRecord) -> int:
        with self._lock:
            rid = len(self.records) + 1
            self.records.append(replace(record, id=rid))
            return rid

    def find(self, request_hash: str) -> CallRecord | None:
        with self._lock:
            for r in reversed(self.records):
                if r.request_hash == request_hash and r.error is None:
                    return r
        return None


class SqlLedger:
    """Ledger rows in the store, tagged with the run they belong to."""

    def __init__(self, engine: Any, run_id: int | None = None) -> None:
        self.engine = engine
        self.run_id = run_id

    def record(self, record: CallRecord) -> int:
        from storage.ledger import record_call

        return record_call(self.engine, replace(record, run_id=self.run_id))

    def find(self, request_hash: str) -> CallRecord | None:
        from storage.ledger import find_replay

        return find_replay(self.engine, request_hash)
