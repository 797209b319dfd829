from core.llm.base import CallRecord
from core.llm.ledger import SqlLedger, request_hash
from storage.ledger import count_calls, list_calls


def rec(role="mutate", error=None, response="out"):
    return CallRecord(role=role, backend="openai", model="m", temperature=1.5,
                      request_hash=request_hash("openai", "m", role, 1.5, None, ["p"]), prompt='["p"]',
                      response=response, tokens_in=3, tokens_out=4, latency_s=0.1, error=error)


def test_sql_ledger_records_counts_and_replays(db):
    ledger = SqlLedger(db, run_id=7)
    first = ledger.record(rec(response="old"))
    ledger.record(rec(error="LLMTimeout: slow", response=""))
    assert count_calls(db, run_id=7) == 2 and count_calls(db, run_id=7, errors_only=True) == 1
    hit = ledger.find(rec().request_hash)
    assert hit.id == first and hit.response == "old"  # errors are never replayed
    assert [c.role for c in list_calls(db, run_id=7)] == ["mutate", "mutate"]
    assert ledger.find("nope") is None
