"""A tiny server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, scripted per request."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    request_queue_size = 64  # the default backlog of 5 drops concurrent connects (1 s SYN retry)
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that timed out and hung up is part of the script, not a failure


class FakeOpenAI:
    """``script`` entries, one per request (then ``default``):
    ("ok", text) | ("status", code, headers, body) | ("sleep", seconds, text) | ("garbage",)."""

    def __init__(self) -> None:
        self.script: list[tuple] = []
        self.default: tuple = ("ok", "{BEGIN} default {END}")
        self.seen: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0  # most chat requests the server was answering at the same moment
        self._lock = threading.Lock()
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

    def _next(self) -> tuple:
        with self._lock:
            return self.script.pop(0) if self.script else self.default

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, body: bytes, headers: dict | None = None) -> None:
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
                try:
                    self._answer(body, fake._next())
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

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
                else:
                    payload = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": step[1]}}],
                               "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}}
                    self._send(200, json.dumps(payload).encode())

        return Handler
