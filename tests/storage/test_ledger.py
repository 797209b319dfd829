import pytest
from sqlalchemy import inspect

from core.llm.base import CallRecord, request_hash
from storage.ledger import count_calls, find_replay, list_calls, record_call

pytestmark = pytest.mark.pg


def rec(role="refine", response="ok", error=None, run_id=None, payload="p", model="m"):
    return CallRecord(role=role, backend="openai", model=model, temperature=0.7,
                      request_hash=request_hash("openai", model, role, 0.7, 1, [payload]), prompt=f'["{payload}"]',
                      response=response, tokens_in=12, tokens_out=5, latency_s=0.25, error=error, run_id=run_id)


def test_init_db_creates_the_llm_call_table(db):
    columns = {c["name"] for c in inspect(db).get_columns("llm_call")}
    assert {"id", "role", "backend", "model", "temperature", "request_hash", "prompt", "response", "tokens_in",
            "tokens_out", "latency_s", "error", "run_id", "created_at"} <= columns
    assert any(ix["column_names"] == ["request_hash"] for ix in inspect(db).get_indexes("llm_call"))


def test_record_round_trips_every_field(db):
    call_id = record_call(db, rec(run_id=3))
    [row] = list_calls(db)
    assert row.id == call_id and row.run_id == 3
    assert (row.role, row.backend, row.model, row.temperature, row.prompt, row.response) == \
        ("refine", "openai", "m", 0.7, '["p"]', "ok")
    assert (row.tokens_in, row.tokens_out, row.latency_s, row.error) == (12, 5, 0.25, None)
    assert row.created_at.tzinfo is not None


def test_find_replay_returns_the_latest_successful_call(db):
    record_call(db, rec(response="first"))
    latest = record_call(db, rec(response="second"))
    record_call(db, rec(response="", error="LLMServerError: 500"))
    hit = find_replay(db, rec().request_hash)
    assert hit.id == latest and hit.response == "second"
    assert find_replay(db, rec(payload="never").request_hash) is None


def test_list_and_count_filter_by_run_role_ids_and_errors(db):
    a = record_call(db, rec(run_id=1, role="mutate"))
    b = record_call(db, rec(run_id=1, role="refine", error="LLMBadResponse: no block"))
    c = record_call(db, rec(run_id=2, role="mutate"))
    assert [r.id for r in list_calls(db)] == [a, b, c]
    assert [r.id for r in list_calls(db, run_id=1)] == [a, b]
    assert [r.id for r in list_calls(db, role="mutate")] == [a, c]
    assert [r.id for r in list_calls(db, ids=[c, a])] == [a, c]
    assert [r.id for r in list_calls(db, limit=2)] == [a, b]
    assert (count_calls(db), count_calls(db, run_id=1), count_calls(db, run_id=1, errors_only=True),
            count_calls(db, errors_only=True), count_calls(db, run_id=9)) == (3, 2, 1, 1, 0)


def test_long_model_names_are_stored(db):
    long_model = "/models/" + "x" * 400 + ".gguf"
    call_id = record_call(db, rec(model=long_model))
    assert list_calls(db, ids=[call_id])[0].model == long_model[:300]
    assert find_replay(db, rec(model=long_model).request_hash).id == call_id  # the hash keeps the full name


def test_limit_is_validated(db):
    with pytest.raises(ValueError, match="limit"):
        list_calls(db, limit=0)
