"""The HTTP executor against a real local server, with tools imported from a real OpenAPI document."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from core.execution import http as http_module
from core.execution.base import Executor
from core.execution.http import HttpExecutor, build_request
from core.importers.openapi import parse_openapi
from core.models import Tool

API_KEY = "secret-key-123"
CLIENTS = ["urllib"] + (["httpx"] if http_module.httpx is not None else [])


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _reply(self, status: int, payload, content_type: str = "application/json", headers=()) -> None:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append({"method": self.command, "path": parts.path, "host": self.headers.get("Host"),
                                 "key": self.headers.get("X-Api-Key"), "body": body})
        port = self.server.server_address[1]
        if parts.path.startswith("/pets/") and self.command == "GET":
            self._reply(200, {"id": parts.path.rsplit("/", 1)[1], "query": parse_qs(parts.query)})
        elif parts.path == "/pets" and self.command == "POST":
            self._reply(201, {"created": json.loads(body)})
        elif parts.path == "/secret":
            self._reply(401, {"error": f"key {self.headers.get('X-Api-Key')} is not valid"})
        elif parts.path == "/boom":
            self._reply(500, {"error": "exploded"})
        elif parts.path == "/bad":
            self._reply(422, {"error": "name must be a string"})
        elif parts.path == "/slow":
            time.sleep(3)
            self._reply(200, {"late": True})
        elif parts.path == "/text":
            self._reply(200, b"plain words", "text/plain")
        elif parts.path == "/away":  # another host name for the same server: off the allow-list
            self._reply(302, b"", "text/plain", [("Location", f"http://localhost:{port}/pets/9")])
        elif parts.path == "/hop":
            self._reply(302, b"", "text/plain", [("Location", "/pets/7")])
        else:
            self._reply(404, {"error": "no such path"})

    do_GET = do_POST = _handle


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.seen = []
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def openapi_tools(base: str) -> dict[str, Tool]:
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "pets", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/pets/{petId}": {"get": {"operationId": "getPet", "parameters": [
                {"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                {"name": "tag", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
            ]}},
            "/pets": {"post": {"operationId": "addPet", "requestBody": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}},
            **{f"/{p}": {"get": {"operationId": p}} for p in ("secret", "boom", "bad", "slow", "text", "away",
                                                               "hop", "missing")},
        },
    }
    return {t.key: t for t in parse_openapi(json.dumps(doc), "pets.json")}


@pytest.fixture
def tools(server):
    return openapi_tools(f"http://127.0.0.1:{server.server_address[1]}")


def executor_for(server, client: str, **kwargs) -> HttpExecutor:
    kwargs.setdefault("enabled", True)
    kwargs.setdefault("headers", {"X-Api-Key": API_KEY})
    return HttpExecutor([f"127.0.0.1:{server.server_address[1]}"], client=client, **kwargs)


@pytest.mark.parametrize("client", CLIENTS)
def test_calls_an_allow_listed_host(server, tools, client):
    executor = executor_for(server, client)
    assert isinstance(executor, Executor) and executor.covers(tools["getPet"])
    result = executor.call(tools["getPet"], {"petId": "a b/c", "verbose": True, "tag": ["x", "y"]})
    assert result.ok, result
    assert result.data == {"id": "a%20b%2Fc", "query": {"verbose": ["true"], "tag": ["x", "y"]}}
    assert server.seen[-1]["key"] == API_KEY
    posted = executor.call(tools["addPet"], {"name": "Rex"})
    assert posted.ok and posted.data == {"created": {"name": "Rex"}}
    assert executor.call(tools["text"], {}).data == "plain words"


@pytest.mark.parametrize("client", CLIENTS)
def test_status_codes_map_to_error_kinds(server, tools, client):
    executor = executor_for(server, client)
    expected = {"secret": "auth", "missing": "not_found", "boom": "server", "bad": "invalid_params"}
    for key, kind in expected.items():
        result = executor.call(tools[key], {})
        assert result.error_kind == kind, result
        assert API_KEY not in result.error and "X-Api-Key" not in result.error
    assert "exploded" in executor.call(tools["boom"], {}).error
    assert "[redacted]" in executor.call(tools["secret"], {}).error  # the server echoed the key


@pytest.mark.parametrize("client", CLIENTS)
def test_header_arguments_cannot_replace_the_credentials(server, client):
    tool = Tool(key="h", name="h", extra={"method": "GET", "path": "/pets/1", "parameter_in": {"x-api-key": "header"},
                                           "server": f"http://127.0.0.1:{server.server_address[1]}"})
    assert executor_for(server, client).call(tool, {"x-api-key": "forged"}).ok
    assert server.seen[-1]["key"] == API_KEY


@pytest.mark.parametrize("client", CLIENTS)
def test_slow_answer_times_out(server, tools, client):
    executor = executor_for(server, client, timeout=0.5)
    start = time.monotonic()
    result = executor.call(tools["slow"], {})
    assert result.error_kind == "timeout", result
    assert time.monotonic() - start < 2.5


@pytest.mark.parametrize("client", CLIENTS)
def test_host_off_the_list_is_refused_before_connecting(server, tools, client):
    port = server.server_address[1]
    for hosts in (["example.com"], [f"127.0.0.1:{port + 1 if port < 65535 else port - 1}"], ["localhost"]):
        result = HttpExecutor(hosts, enabled=True, client=client).call(tools["getPet"], {"petId": "1"})
        assert result.error_kind == "refused", result
        assert "allow-list" in result.error
    assert server.seen == []


@pytest.mark.parametrize("client", CLIENTS)
def test_disabled_executor_refuses(server, tools, client):
    result = executor_for(server, client, enabled=False).call(tools["getPet"], {"petId": "1"})
    assert result.error_kind == "refused" and "off" in result.error
    assert server.seen == []


@pytest.mark.parametrize("client", CLIENTS)
def test_redirects_are_rechecked_per_hop(server, tools, client):
    executor = executor_for(server, client)
    away = executor.call(tools["away"], {})
    assert away.error_kind == "refused" and "localhost" in away.error, away
    assert [s["path"] for s in server.seen] == ["/away"]  # the off-list hop was never requested
    hop = executor.call(tools["hop"], {})
    assert hop.ok and hop.data["id"] == "7"
    assert [s["path"] for s in server.seen][-2:] == ["/hop", "/pets/7"]


@pytest.mark.parametrize("client", CLIENTS)
def test_connection_refused_is_unavailable(client):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tools = openapi_tools(f"http://127.0.0.1:{port}")
    result = HttpExecutor([f"127.0.0.1:{port}"], enabled=True, client=client).call(tools["boom"], {})
    assert result.error_kind == "unavailable", result


def test_request_building_and_parameter_errors(tools, server):
    executor = executor_for(server, "urllib")
    assert executor.call(tools["getPet"], {}).error_kind == "invalid_params"  # path parameter missing
    assert executor.call(tools["getPet"], {"petId": "1", "color": "red"}).error_kind == "invalid_params"
    assert server.seen == []
    request = build_request(tools["addPet"], {"name": "Rex"})
    assert request.method == "POST" and request.body == b'{"name": "Rex"}'
    assert request.headers["Content-Type"] == "application/json"
    assert "headers" not in repr(request) and API_KEY not in repr(executor)


def test_covers_and_validation(tools):
    executor = HttpExecutor(["api.example.com", "127.0.0.1:8080", "[::1]:9000"])
    assert executor.covers(tools["getPet"])
    assert not executor.covers(Tool(key="x", name="x"))
    assert not executor.covers(Tool(key="x", name="x", extra={"method": "GET", "path": "/a", "server": "/v1"}))
    assert executor.host_allowed("https://api.example.com/v1/x")
    assert executor.host_allowed("http://127.0.0.1:8080/")
    assert not executor.host_allowed("http://127.0.0.1:8081/")
    assert not executor.host_allowed("http://api.example.com@evil.example.org/")
    assert not executor.host_allowed("http://sub.api.example.com/")
    assert not executor.host_allowed("ftp://api.example.com/")
    assert executor.host_allowed("http://[::1]:9000/")
    with pytest.raises(ValueError):
        HttpExecutor(["https://api.example.com/v1"])
    with pytest.raises(TypeError):
        HttpExecutor("api.example.com")
    with pytest.raises(ValueError):
        HttpExecutor(["a.com"], headers={"X-Key": "line\nbreak"})
