"""A tiny server on 127.0.0.1 that speaks the OpenAI chat-completions and embeddings protocols, scripted per
request."""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULT_KINDS = ("timeout", "429", "500", "garbage")


class _Server(ThreadingHTTPServer):
    request_queue_size = 64  # the default backlog of 5 drops concurrent connects (1 s SYN retry)
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that timed out and hung up is part of the script, not a failure


class FakeOpenAI:
    """``script`` entries, one per request (then ``default``):
    ("ok", text) | ("status", code, headers, body) | ("sleep", seconds, text) | ("garbage",) |
    ("vectors", dim): an embeddings answer with ``dim``-dimensional vectors (a server that changed its model).
    A POST to ``/v1/embeddings`` answered "ok" gets one vector per input: :func:`text_vector` of
    ``embedding_dim`` dimensions, listed in reverse order with their ``index`` (clients must sort by it).
    With the script empty, ``respond`` (when set) answers from the request body instead of ``default``.

    ``faults(rate, seed=…)`` turns on a seeded fault mode: each POST not answered by the script fails with
    probability ``rate`` with one of ``kinds`` (see :meth:`faults`); every injected fault is appended to
    ``injected``. Off by default, so scripted tests behave as before."""

    def __init__(self) -> None:
        self.script: list[tuple] = []
        self.default: tuple = ("ok", "{BEGIN} default {END}")
        self.respond = None  # Callable[[dict], str]: an answer computed from the request
        self.seen: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0  # most chat requests the server was answering at the same moment
        self._lock = threading.Lock()
        self.fault_rate = 0.0
        self.fault_kinds: tuple[str, ...] = FAULT_KINDS
        self.fault_sleep = 1.0
        self._fault_rng = random.Random(0)  # noqa: S311 - test randomness
        self.injected: list[str] = []  # the kind of every fault injected, in order
        self.answered = 0  # POSTs answered normally (script, respond or default)
        self.delay = 0.0  # seconds every POST waits before it is answered (a slow model)
        self.embedding_dim = 8  # dimensions of the vectors /v1/embeddings answers with
        handler = self._handler()
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def faults(self, rate: float = 0.3, *, seed: int = 0, kinds: Sequence[str] = FAULT_KINDS,
               sleep: float = 1.0) -> FakeOpenAI:
        """Fail each unscripted POST with probability ``rate``, with a kind drawn from ``kinds``:

        ``timeout`` sleeps ``sleep`` seconds (set it above the client timeout) before answering;
        ``429`` answers Too Many Requests with ``Retry-After: 0``; ``500`` a server error; ``garbage`` a 200
        whose body is not JSON, or (every other time) a well-formed completion whose content holds nothing
        any role can read (no block, no JSON, no verdict, no number). The draw is seeded and serialised,
        so the same sequence of requests meets the same faults."""
        unknown = sorted(set(kinds) - set(FAULT_KINDS))
        if unknown or not kinds or not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate in [0, 1] and kinds among {FAULT_KINDS}, not {rate!r} / {unknown}")
        with self._lock:
            self.fault_rate = float(rate)
            self.fault_kinds = tuple(kinds)
            self.fault_sleep = float(sleep)
            self._fault_rng = random.Random(seed)  # noqa: S311 - test randomness
        return self

    def _fault(self) -> tuple | None:
        # Called with the lock held.
        if self.fault_rate <= 0 or self._fault_rng.random() >= self.fault_rate:
            return None
        kind = self._fault_rng.choice(self.fault_kinds)
        self.injected.append(kind)
        if kind == "timeout":
            return ("sleep", self.fault_sleep, "{BEGIN} too late {END}")
        if kind == "429":
            return ("status", 429, {"Retry-After": "0"}, "rate limited (injected)")
        if kind == "500":
            return ("status", 500, {}, "internal error (injected)")
        if sum(k == "garbage" for k in self.injected) % 2:
            return ("garbage",)
        return ("ok", "```\n```")  # readable transport, unreadable answer for every role

    def _next(self, body: dict | None = None) -> tuple:
        with self._lock:
            if self.script:
                self.answered += 1
                return self.script.pop(0)
            fault = self._fault() if body is not None else None
            if fault is not None:
                return fault
            if body is not None:
                self.answered += 1
        chat = body is not None and "messages" in body  # ``respond`` answers chats; embeddings need no text
        return ("ok", self.respond(body)) if self.respond is not None and chat else self.default

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _release(self) -> None:
                if getattr(self, "_counted", False):
                    self._counted = False
                    with fake._lock:
                        fake.in_flight -= 1

            def _send(self, code: int, body: bytes, headers: dict | None = None) -> None:
                # Out of flight before the first byte goes out: the client may read the answer and send its
                # next request before this thread runs again, which would count one request twice.
                self._release()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802 - http.server naming
                fake.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "t": time.monotonic()})
                body = {"object": "list", "data": [{"id": "tiny-model", "object": "model", "created": 0,
                                                    "owned_by": "test"}]}
                self._send(200, json.dumps(body).encode())

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    fake.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body,
                                      "t": time.monotonic()})
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                self._counted = True
                try:
                    if fake.delay:
                        time.sleep(fake.delay)
                    self._answer(body, fake._next(body))
                finally:
                    self._release()

            def _answer(self, body: dict, step: tuple) -> None:
                kind = step[0]
                if kind == "sleep":
                    time.sleep(step[1])
                    step = ("ok", step[2])
                    kind = "ok"
                if kind == "status":
                    _, code, headers, text = step
                    self._send(code, json.dumps({"error": {"message": text}}).encode(), headers)
                elif kind == "garbage":
                    self._send(200, b"this is not json {")
                elif self.path.endswith("/embeddings"):
                    dim = step[1] if kind == "vectors" else fake.embedding_dim
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [{"object": "embedding", "index": i, "embedding": text_vector(t, dim)}
                            for i, t in enumerate(texts)][::-1]
                    payload = {"object": "list", "data": data, "model": body["model"],
                               "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}}
                    self._send(200, json.dumps(payload).encode())
                else:
                    payload = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": step[1]}}],
                               "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}}
                    self._send(200, json.dumps(payload).encode())

        return Handler


def text_vector(text: str, dim: int) -> list[float]:
    """The fake's embedding of ``text``: a fixed pseudo-random vector per text (not normalised)."""
    rng = random.Random(hashlib.sha256(text.encode()).digest())  # noqa: S311 - test data
    return [round(rng.uniform(-2.0, 2.0), 6) for _ in range(dim)]


# -- plausible answers per role (the JSON / block shapes of core/llm, core/merging and core/trials prompts) --

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def _after(text: str, label: str) -> str | None:
    m = re.search(re.escape(label) + r"\s*\"?(.+?)\"?\s*$", text, re.MULTILINE)
    return m.group(1).strip() if m else None


def _subject(prompt: str) -> str:
    for label in ("Current description:", "Description A:", "Description:", "Tool idea:", "Goal:",
                  "User request:", "A user asked:\n"):
        found = _after(prompt, label)
        if found:
            return found.strip('"')
    return "a tool that answers the request"


def _blocks(texts: Sequence[str]) -> str:
    return "\n".join(f"{{BEGIN}} {t} {{END}}" for t in texts)


def _json_after(prompt: str, start: str, end: str):
    i = prompt.find(start)
    j = prompt.find(end, i + len(start)) if i >= 0 else -1
    if i < 0 or j < 0:
        return None
    try:
        return json.loads(prompt[i + len(start):j])
    except json.JSONDecodeError:
        return None


def role_of(prompt: str) -> str:
    """Which role a user prompt belongs to (from the fixed wording of each template)."""
    checks = (("Imagine the tools that would answer", "pseudo_tools"),
              ("Rewrite the current description", "refine"), ("Improve the set of descriptions", "refine_all"),
              ("Answer with a single word: yes or no", "judge_sufficiency"),
              ("Write one alternative description", "scatter"), ("different descriptions of a tool", "seed_population"),
              ("Combine the strongest parts", "crossover"), ("Change this description", "mutate"),
              ("moves away from tools like these", "guided_mutate"), ("Reply with one number", "score_retrieval"),
              ("different requests a real user", "synthetic_queries"), ('{"intents"', "extract_intents"),
              ('{"tools": ["key"', "select_tools"), ('{"same": true or false', "classify_pair"),
              ("MERGE_OK", "audit_cluster"), ("Write its description", "merged_doc"),
              ('"missing": ["name"', "plan_call"), ('{"response": ...}', "simulate_response"),
              ('{"ranking"', "holistic_rerank"))
    return next((role for marker, role in checks if marker in prompt), "unknown")


def role_answer(body: dict) -> str:
    """A valid, plausible answer to the role the request's prompt asks for (a ``respond`` hook)."""
    prompt = body["messages"][-1]["content"]
    role = role_of(prompt)
    subject = _subject(prompt)
    if role in ("pseudo_tools", "refine_all"):
        return _blocks([f"Tool that handles: {subject}", f"Service returning data for {subject}"])
    if role in ("refine", "scatter", "crossover", "mutate", "guided_mutate"):
        return _blocks([f"{subject} ({role})"])
    if role in ("seed_population", "synthetic_queries"):
        n = int((re.search(r"Write (\d+) different", prompt) or [0, 3])[1])
        return _blocks([f"{subject} variant {i}" for i in range(n)])
    if role == "judge_sufficiency":
        return "no"
    if role == "score_retrieval":
        return "0.6"
    if role == "extract_intents":
        return json.dumps({"intents": [subject]})
    if role == "select_tools":
        keys = re.findall(r"^- ([^:\n]+):", prompt, re.MULTILINE)
        return json.dumps({"tools": keys[:1]})
    if role == "classify_pair":
        docs = re.findall(r"what it does: (.*)$", prompt, re.MULTILINE)
        a, b = ({w.lower() for w in _WORD.findall(d)} for d in (docs + ["", ""])[:2])
        same = bool(a and b) and len(a & b) / len(a | b) >= 0.3
        return json.dumps({"same": same, "reason": "overlapping wording" if same else "different jobs"})
    if role == "audit_cluster":
        return json.dumps({"verdict": "MERGE_OK", "reason": "same goal"})
    if role == "merged_doc":
        return _blocks([f"Combined tool: {subject}"])
    if role == "plan_call":
        spec = _json_after(prompt, "Tool documentation (JSON schema of its inputs):\n", "\n\nFill in") or {}
        props = (spec.get("parameters") or {}).get("properties") or {}
        words = _WORD.findall(_after(prompt, "User request:") or "x")
        args = {name: words[i % len(words)] for i, name in enumerate(props)}
        return json.dumps({"arguments": args, "missing": [], "note": "filled from the request"})
    if role == "simulate_response":
        return json.dumps({"response": {"ok": True, "result": subject}})
    if role == "holistic_rerank":
        evidence = _json_after(prompt, "Evidence per candidate:\n", "\n\nOrder ALL") or []
        order = sorted(evidence, key=lambda e: (e.get("outcome") != "ok", e.get("initial_rank", 0)))
        return json.dumps({"ranking": [e["tool"] for e in order], "reasons": {}})
    return "{BEGIN} default {END}"
