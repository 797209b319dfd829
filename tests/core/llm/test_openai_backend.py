"""The OpenAI-compatible backend against a local server that speaks the chat-completions protocol."""

import time

import pytest

from core.concurrency import map_concurrent
from core.llm.base import LLMBadResponse, LLMError, LLMRateLimited, LLMServerError, LLMTimeout
from core.llm.ledger import MemoryLedger
from core.llm.openai_backend import LLMRejected, OpenAIChatBackend, retry_after_seconds
from core.llm.prompted import PromptedOperators

SECRET = "sk-test-very-secret-0123456789"
MSG = [{"role": "user", "content": "hi"}]


def backend(url, **kw):
    kw.setdefault("backoff", 0.01)
    return OpenAIChatBackend(url, "tiny-model", SECRET, **kw)


def test_normal_answer_carries_text_tokens_and_request_fields(fake):
    fake.script = [("ok", "hello")]
    reply = backend(fake.url).chat(MSG, temperature=0.3, seed=5, max_tokens=7)
    assert (reply.text, reply.model, reply.tokens_in, reply.tokens_out, reply.cached) == \
        ("hello", "tiny-model", 11, 5, False)
    body = fake.seen[0]["body"]
    assert fake.seen[0]["path"] == "/v1/chat/completions"
    assert (body["temperature"], body["seed"], body["max_tokens"], body["messages"]) == (0.3, 5, 7, MSG)


def test_429_twice_then_success_backs_off_exponentially(fake):
    fake.script = [("status", 429, {}, "slow down"), ("status", 429, {}, "slow down"), ("ok", "fine")]
    b = backend(fake.url, backoff=0.05)
    sleeps = []
    b._sleep = lambda s: (sleeps.append(s), time.sleep(s))
    assert b.chat(MSG, temperature=0).text == "fine"
    assert len(fake.seen) == 3
    # backoff·2^attempt with up to 25 % jitter: [0.05, 0.0625] then [0.1, 0.125]
    assert 0.05 <= sleeps[0] <= 0.0625 and 0.1 <= sleeps[1] <= 0.125
    assert fake.seen[1]["t"] - fake.seen[0]["t"] >= 0.05 and fake.seen[2]["t"] - fake.seen[1]["t"] >= 0.1


def test_retry_after_header_is_honoured(fake):
    fake.script = [("status", 503, {"Retry-After": "0.2"}, "busy"), ("ok", "later")]
    b = backend(fake.url, backoff=0.001)
    sleeps = []
    b._sleep = sleeps.append
    assert b.chat(MSG, temperature=0).text == "later"
    assert 0.2 <= sleeps[0] <= 0.25


def test_persistent_500_raises_server_error_after_all_attempts(fake):
    fake.default = ("status", 500, {}, "boom")
    with pytest.raises(LLMServerError, match="500"):
        backend(fake.url, max_retries=2).chat(MSG, temperature=0)
    assert len(fake.seen) == 3


def test_persistent_429_raises_rate_limited(fake):
    fake.default = ("status", 429, {}, "quota")
    with pytest.raises(LLMRateLimited):
        backend(fake.url, max_retries=1).chat(MSG, temperature=0)
    assert len(fake.seen) == 2


def test_client_errors_are_not_retried(fake):
    fake.default = ("status", 404, {}, "model tiny-model does not exist")
    with pytest.raises(LLMRejected, match="404.*does not exist"):
        backend(fake.url, max_retries=3).chat(MSG, temperature=0)
    assert len(fake.seen) == 1


def test_slow_answer_times_out(fake):
    fake.script = [("sleep", 1.5, "too late")]
    start = time.monotonic()
    with pytest.raises(LLMTimeout):
        backend(fake.url, timeout=0.3, max_retries=0).chat(MSG, temperature=0)
    assert time.monotonic() - start < 1.4


def test_garbage_body_is_a_bad_response(fake):
    fake.script = [("garbage",)]
    with pytest.raises(LLMBadResponse):
        backend(fake.url, max_retries=3).chat(MSG, temperature=0)
    assert len(fake.seen) == 1  # an unreadable answer is not retried


def test_unreachable_endpoint_is_a_server_error():
    b = OpenAIChatBackend("http://127.0.0.1:9/v1", "m", "k", max_retries=1, backoff=0.0, timeout=2)
    with pytest.raises(LLMServerError, match="cannot reach"):
        b.chat(MSG, temperature=0)


def test_key_is_sent_but_never_recorded_or_shown(fake):
    # The server echoes the key it rejects, as some real endpoints do.
    fake.script = [("ok", "{BEGIN} fine {END}"), ("status", 401, {}, f"Incorrect API key provided: {SECRET}")]
    ledger = MemoryLedger()
    b = backend(fake.url)
    ops = PromptedOperators(b, ledger, seed=1)
    good, bad = ops.mutate("a", "b"), ops.mutate("c", "d")
    assert good.ok and not bad.ok
    assert fake.seen[0]["auth"] == f"Bearer {SECRET}"
    with pytest.raises(LLMError) as info:
        fake.script = [("status", 401, {}, f"Incorrect API key provided: {SECRET}")]
        b.chat(MSG, temperature=0)
    texts = [str(info.value), repr(info.value), repr(b), repr(ops), bad.error]
    texts += [r.prompt + r.response + (r.error or "") + r.model + r.backend for r in ledger.records]
    assert all(SECRET not in t for t in texts)
    assert "***" in str(info.value)


def test_key_never_comes_from_the_environment(fake, monkeypatch):
    """No key given: the placeholder, never the server's OPENAI_API_KEY (the endpoint may be anyone's)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    OpenAIChatBackend(fake.url, "tiny-model").chat(MSG, temperature=0)
    assert fake.seen[0]["auth"] == "Bearer not-needed"


def test_concurrent_calls_overlap(fake):
    fake.default = ("sleep", 0.3, "done")
    b = backend(fake.url, concurrency=8)
    out = map_concurrent(lambda _: b.chat(MSG, temperature=0).text, range(8), max_workers=8)
    assert [o.value for o in out] == ["done"] * 8
    assert fake.max_in_flight > 1


def test_concurrency_limit_bounds_parallel_requests(fake):
    fake.default = ("sleep", 0.2, "done")
    b = backend(fake.url, concurrency=2)
    map_concurrent(lambda _: b.chat(MSG, temperature=0), range(6), max_workers=6)
    assert len(fake.seen) == 6 and fake.max_in_flight == 2


def test_check_lists_models_or_reports_the_failure(fake):
    ok, msg = backend(fake.url).check()
    assert ok and "tiny-model" in msg and fake.seen[-1]["path"] == "/v1/models"
    ok, msg = OpenAIChatBackend(fake.url, "other-model", SECRET).check()  # not listed: a 1-token chat decides
    assert ok and fake.seen[-1]["body"]["max_tokens"] == 1
    fake.default = ("status", 404, {}, "no such model")
    ok, msg = OpenAIChatBackend(fake.url, "other-model", SECRET, max_retries=0).check()
    assert not ok and "LLMRejected" in msg and "tiny-model" in msg


def test_constructor_validation_names_the_field():
    for kwargs, field in [({"timeout": 0}, "timeout"), ({"max_retries": -1}, "max_retries"),
                          ({"backoff": -1.0}, "backoff"), ({"concurrency": 0}, "concurrency")]:
        with pytest.raises(ValueError, match=field):
            OpenAIChatBackend(None, "m", "k", **kwargs)
    with pytest.raises(ValueError, match="model"):
        OpenAIChatBackend(None, "", "k")


def test_retry_after_parsing():
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds(None) is None


def test_strategy_run_survives_bad_answers(fake, tiny_tools, hashing_embedder):
    from core.search.engine import SearchEngine
    from core.strategies.registry import make_strategy

    fake.script = [
        ("ok", "I think you need a weather tool."),           # pseudo_tools without {BEGIN} blocks
        ("status", 429, {}, "x"), ("ok", "{BEGIN} current weather lookup for a city {END}"),
        ("garbage",),                                        # unreadable HTTP body
        ("sleep", 1.0, "late"),                              # slower than the timeout
        ("ok", "{BEGIN} forecast of rain and temperature {END}"),
    ]
    ledger = MemoryLedger()
    ops = PromptedOperators(backend(fake.url, timeout=0.5, max_retries=1), ledger, seed=0)
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    res = make_strategy("scattershot", engine, context={"operators": ops}, fan_out=3, max_workers=1).retrieve(
        "weather in Oslo", 3)
    assert len(res.keys) == 3  # the run completes
    assert [r.error is None for r in ledger.records].count(False) >= 2
    assert all(r.role in {"pseudo_tools", "scatter"} for r in ledger.records)
