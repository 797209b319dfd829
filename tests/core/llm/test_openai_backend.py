"""The OpenAI-compatible client against a small local server that speaks the same protocol."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.llm.base import LLMBadResponse, LLMRateLimited, LLMServerError, LLMTimeout
from core.llm.ledger import MemoryLedger
from core.llm.openai_backend import OpenAIChatBackend
from core.llm.prompted import PromptedOperators
from core.llm.replay import ReplayingBackend

SECRET = "sk-test-very-secret"


class FakeOpenAI(BaseHTTPRequestHandler):
    script: list = []  # per request: ("ok", text) | ("status", code) | ("sleep", s) | ("garbage", None)
    seen: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.seen.append({"auth": self.headers.get("Authorization"), "body": body})
        kind, arg = FakeOpenAI.script.pop(0) if FakeOpenAI.script else ("ok", "{BEGIN} default {END}")
        if kind == "sleep":
            time.sleep(arg)
            kind, arg = "ok", "{BEGIN} slow {END}"
        if kind == "status":
            self.send_response(arg)
            self.send_header("Content-Type", "application/json")
            self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "nope"}}')
            return
        payload = b"not json at all" if kind == "garbage" else json.dumps({
            "id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": arg}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server():
    FakeOpenAI.script, FakeOpenAI.seen = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def backend(url, **kw):
    return OpenAIChatBackend(url, "tiny-model", SECRET, backoff=0.01, **kw)


def test_answer_tokens_and_key(server):
    FakeOpenAI.script = [("ok", "hello")]
    reply = backend(server).chat([{"role": "user", "content": "hi"}], temperature=0.3, seed=5)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("hello", 11, 5)
    assert FakeOpenAI.seen[0]["auth"] == f"Bearer {SECRET}"
    assert FakeOpenAI.seen[0]["body"]["seed"] == 5 and FakeOpenAI.seen[0]["body"]["temperature"] == 0.3
    assert SECRET not in repr(backend(server))


def test_retries_429_then_succeeds(server):
    FakeOpenAI.script = [("status", 429), ("status", 429), ("ok", "fine")]
    assert backend(server).chat([{"role": "user", "content": "x"}], temperature=0).text == "fine"
    assert len(FakeOpenAI.seen) == 3


def test_persistent_errors_map_to_our_types(server):
    FakeOpenAI.script = [("status", 500)] * 3
    with pytest.raises(LLMServerError):
        backend(server, max_retries=2).chat([{"role": "user", "content": "x"}], temperature=0)
    assert len(FakeOpenAI.seen) == 3
    FakeOpenAI.script = [("status", 429)]
    with pytest.raises(LLMRateLimited):
        backend(server, max_retries=0).chat([{"role": "user", "content": "x"}], temperature=0)
    FakeOpenAI.script = [("garbage", None)]
    with pytest.raises(LLMBadResponse):
        backend(server, max_retries=0).chat([{"role": "user", "content": "x"}], temperature=0)


def test_timeout(server):
    FakeOpenAI.script = [("sleep", 1.5)]
    with pytest.raises(LLMTimeout):
        backend(server, timeout=0.3, max_retries=0).chat([{"role": "user", "content": "x"}], temperature=0)


def test_concurrent_calls_overlap(server):
    from concurrent.futures import ThreadPoolExecutor

    FakeOpenAI.script = [("sleep", 0.3)] * 8
    b = backend(server, concurrency=8)
    start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: b.chat([{"role": "user", "content": "x"}], temperature=0), range(8)))
    assert time.perf_counter() - start < 1.5  # 8 x 0.3 s in sequence would take 2.4 s


def test_prompted_roles_ledger_and_replay(server):
    ledger = MemoryLedger()
    FakeOpenAI.script = [("ok", "Here: {BEGIN} Get weather for a city {END} {BEGIN} Convert currency {END}"),
                         ("ok", "garbage without json")]
    ops = PromptedOperators(backend(server), ledger, seed=1)
    call = ops.pseudo_tools("weather in Oslo and 20 USD in NOK")
    assert call.ok and call.value == ["Get weather for a city", "Convert currency"] and call.call_id == 1
    bad = ops.extract_intents("x")
    assert not bad.ok and "no JSON object" in bad.error and ledger.records[-1].error
    assert all(SECRET not in r.prompt + r.response + (r.error or "") for r in ledger.records)
    replay = PromptedOperators(ReplayingBackend(None, ledger, mode="replay-only", name="openai",
                                                model="tiny-model"), ledger, seed=1)
    before = len(FakeOpenAI.seen)
    assert replay.pseudo_tools("weather in Oslo and 20 USD in NOK").value == call.value
    assert len(FakeOpenAI.seen) == before  # answered from the ledger
    missing = replay.pseudo_tools("something never asked")
    assert not missing.ok and "replay-only" in missing.error


def test_strategy_run_survives_bad_answers(server, tiny_tools, hashing_embedder):
    from core.search.engine import SearchEngine
    from core.strategies.registry import make_strategy

    FakeOpenAI.script = [
        ("ok", "I think you need a weather tool."),            # pseudo_tools without {BEGIN} blocks
        ("status", 429), ("ok", "{BEGIN} current weather lookup for a city {END}"),
        ("garbage", None),                                      # unreadable HTTP body
        ("sleep", 1.0),                                         # slower than the timeout
        ("ok", "{BEGIN} forecast of rain and temperature {END}"),
    ]
    ledger = MemoryLedger()
    ops = PromptedOperators(backend(server, timeout=0.5, max_retries=1), ledger, seed=0)
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    res = make_strategy("scattershot", engine, context={"operators": ops}, fan_out=3, max_workers=1).retrieve(
        "weather in Oslo", 3)
    assert len(res.keys) == 3  # the run completes
    errors = [r for r in ledger.records if r.error]
    assert errors and all(r.role in {"pseudo_tools", "scatter"} for r in ledger.records)
    assert any(e.kind == "fallback" for e in res.trace)  # no parsable pseudo-tool: the query stood in
