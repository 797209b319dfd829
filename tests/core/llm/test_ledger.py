import threading

import pytest

from core.llm.base import CallRecord, request_hash
from core.llm.ledger import Ledger, MemoryLedger, SqlLedger
from storage.ledger import count_calls, list_calls

pytestmark = pytest.mark.pg


def rec(role="mutate", error=None, response="out", payload="p"):
    return CallRecord(role=role, backend="openai", model="m", temperature=1.5,
                      request_hash=request_hash("openai", "m", role, 1.5, None, [payload]), prompt=f'["{payload}"]',
                      response=response, tokens_in=3, tokens_out=4, latency_s=0.1, error=error)


def test_both_ledgers_satisfy_the_protocol(db):
    assert isinstance(MemoryLedger(), Ledger) and isinstance(SqlLedger(db), Ledger)


def test_memory_ledger_replays_the_latest_success_only():
    ledger = MemoryLedger(run_id=4)
    assert ledger.record(rec(response="old")) == 1
    assert ledger.record(rec(response="new")) == 2
    ledger.record(rec(error="LLMTimeout: slow", response=""))
    hit = ledger.find(rec().request_hash)
    assert (hit.id, hit.response, hit.run_id) == (2, "new", 4) and hit.created_at.tzinfo is not None
    assert ledger.find(rec(payload="other").request_hash) is None


def test_memory_ledger_is_thread_safe():
    ledger = MemoryLedger()
    threads = [threading.Thread(target=lambda: [ledger.record(rec()) for _ in range(50)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.id for r in ledger.records) == list(range(1, 401))


def test_sql_ledger_records_counts_and_replays(db):
    ledger = SqlLedger(db, run_id=7)
    first = ledger.record(rec(response="old"))
    ledger.record(rec(error="LLMTimeout: slow", response=""))
    assert count_calls(db, run_id=7) == 2 and count_calls(db, run_id=7, errors_only=True) == 1
    hit = ledger.find(rec().request_hash)
    assert hit.id == first and hit.response == "old" and hit.run_id == 7  # errors are never replayed
    assert [c.role for c in list_calls(db, run_id=7)] == ["mutate", "mutate"]
    assert ledger.find("nope") is None
