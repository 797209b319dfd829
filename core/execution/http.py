"""The HTTP executor: call an operation imported from an OpenAPI document (GRETEL §3.2.1's Executor, for
web APIs).

Off by default and fenced by a host allow-list: the host of every URL — the first request and each
redirect hop — is checked before any connection is made. Status codes become the error kinds of
:mod:`core.execution.base`. The configured headers (typically an API key) are sent only to the origin
of the first request and never appear in a result or a message.
"""

from __future__ import annotations

import json
import math
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

from core.execution.base import ExecutionResult
from core.models import Tool

try:  # httpx when the environment has it (the openai package usually brings it), urllib otherwise
    import httpx
except ImportError:  # pragma: no cover - depends on the environment
    httpx = None

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_REDIRECTS = (301, 302, 303, 307, 308)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NO_BODY_METHODS = frozenset({"GET", "HEAD", "DELETE", "OPTIONS", "TRACE"})
_MAX_MESSAGE_BODY = 300


@dataclass(frozen=True)
class _Request:
    method: str
    url: str
    headers: dict[str, str] = field(repr=False)
    body: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class _Response:
    status: int
    reason: str
    content_type: str
    location: str | None
    body: bytes
    truncated: bool


class _CallError(Exception):
    """A failure with its error kind, raised while building or sending a request."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def parse_allow_entry(entry: str) -> tuple[str, int | None]:
    """``"api.example.com"`` (any port), ``"127.0.0.1:8080"`` or ``"[::1]:8080"`` as (host, port or None)."""
    if not isinstance(entry, str) or not entry.strip():
        raise ValueError(f"HttpExecutor: allow_hosts entries must be non-empty strings, got {entry!r}")
    text = entry.strip()
    if "/" in text or "@" in text or "?" in text or "#" in text:
        raise ValueError(f"HttpExecutor: allow_hosts takes host names (optionally host:port), not URLs: {entry!r}")
    parts = urlsplit("//" + text)
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"HttpExecutor: bad port in allow_hosts entry {entry!r}") from exc
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise ValueError(f"HttpExecutor: no host in allow_hosts entry {entry!r}")
    return host, port


class HttpExecutor:
    """Calls OpenAPI operations over HTTP(S), only to allow-listed hosts and only when ``enabled``.

    ``timeout`` is a ceiling a call's own ``timeout`` can only lower; it bounds connecting, each read
    and the whole answer. ``client`` picks the transport: ``"auto"`` (httpx when installed), ``"httpx"``
    or ``"urllib"``. Redirects are followed by hand, at most ``max_redirects`` hops, each re-checked.
    """

    def __init__(self, allow_hosts: Collection[str], *, enabled: bool = False, timeout: float = 10.0,
                 headers: Mapping[str, str] | None = None, name: str = "http", client: str = "auto",
                 max_body_bytes: int = 1_000_000, max_redirects: int = 5) -> None:
        if isinstance(allow_hosts, str) or not isinstance(allow_hosts, Collection):
            raise TypeError("HttpExecutor: allow_hosts must be a collection of host names, not a single string")
        self.allow_hosts = frozenset(parse_allow_entry(entry) for entry in allow_hosts)
        _check_seconds(timeout)
        headers = dict(headers or {})
        for key, value in headers.items():
            if not isinstance(key, str) or not isinstance(value, str) or _has_newline(key + value):
                raise ValueError("HttpExecutor: headers must map header names to single-line strings")
        if client not in ("auto", "httpx", "urllib"):
            raise ValueError(f"HttpExecutor: client must be auto, httpx or urllib, not {client!r}")
        if client == "httpx" and httpx is None:
            raise ValueError("HttpExecutor: client='httpx' but httpx is not installed")
        for label, value in (("max_body_bytes", max_body_bytes), ("max_redirects", max_redirects)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"HttpExecutor: {label} must be an int >= 0, got {value!r}")
        if not isinstance(name, str) or not name:
            raise ValueError("HttpExecutor: name must be a non-empty string")
        self.enabled = bool(enabled)
        self.timeout = float(timeout)
        self._headers = headers  # private: may hold credentials
        self.name = name
        self.client = ("httpx" if httpx is not None else "urllib") if client == "auto" else client
        self.max_body_bytes = max_body_bytes
        self.max_redirects = max_redirects
        self._closed = False

    def __repr__(self) -> str:  # no headers: they may hold an API key
        hosts = sorted(h if p is None else f"{h}:{p}" for h, p in self.allow_hosts)
        return f"HttpExecutor(allow_hosts={hosts}, enabled={self.enabled}, name={self.name!r})"

    # -- Executor protocol -------------------------------------------------------------------------

    def covers(self, tool: Tool) -> bool:
        extra = tool.extra if isinstance(tool.extra, Mapping) else {}
        server = extra.get("server")
        return (isinstance(extra.get("method"), str) and isinstance(extra.get("path"), str)
                and isinstance(server, str) and urlsplit(server).scheme in _DEFAULT_PORTS
                and bool(urlsplit(server).hostname))

    def call(self, tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 10.0) -> ExecutionResult:
        _check_seconds(timeout)
        started = time.monotonic()
        try:
            if self._closed:
                raise _CallError("unavailable", "the HTTP executor is closed")
            if not self.enabled:
                raise _CallError("refused", "the HTTP executor is off; enable it to call web APIs")
            if not self.covers(tool):
                raise _CallError("not_found", f"tool {tool.key!r} has no HTTP method, path and absolute server URL")
            request = build_request(tool, arguments)
            response, request = self._follow(request, min(self.timeout, float(timeout)), started)
        except _CallError as exc:
            return ExecutionResult.failure(exc.kind, str(exc), seconds=time.monotonic() - started,
                                           executor=self.name)
        seconds = time.monotonic() - started
        data = _decode_body(response)
        if 200 <= response.status < 300:
            return ExecutionResult(True, data, seconds=seconds, executor=self.name)
        snippet = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        message = f"HTTP {response.status} {response.reason} from {_where(request)}".rstrip()
        if snippet:
            message += f": {snippet[:_MAX_MESSAGE_BODY]}"
        return ExecutionResult.failure(_status_kind(response.status), self._redact(message), seconds=seconds,
                                       executor=self.name)

    def _redact(self, message: str) -> str:
        # A server may echo a rejected key in its error body; the message must not carry it on.
        for value in self._headers.values():
            if len(value) >= 4:
                message = message.replace(value, "[redacted]")
        return message

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> HttpExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------------------

    def host_allowed(self, url: str) -> bool:
        """Whether ``url`` is http(s) to a host (and port, when the entry names one) on the allow-list."""
        parts = urlsplit(url)
        if parts.scheme not in _DEFAULT_PORTS:
            return False
        try:
            port = parts.port or _DEFAULT_PORTS[parts.scheme]
        except ValueError:
            return False
        host = (parts.hostname or "").rstrip(".")
        return bool(host) and ((host, None) in self.allow_hosts or (host, port) in self.allow_hosts)

    def _follow(self, request: _Request, limit: float, started: float) -> tuple[_Response, _Request]:
        first_origin = _origin(request.url)
        for hop in range(self.max_redirects + 1):
            if not self.host_allowed(request.url):
                what = "host" if hop == 0 else "redirect to host"
                raise _CallError("refused", f"{what} {_host_label(request.url)!r} is not on the HTTP "
                                            "allow-list; no request was sent to it")
            remaining = limit - (time.monotonic() - started)
            if remaining <= 0:
                raise _CallError("timeout", f"no answer within {limit:g} s")
            response = self._send(request, remaining, credentials=_origin(request.url) == first_origin)
            if response.status not in _REDIRECTS or not response.location:
                return response, request
            target = urljoin(request.url, response.location)
            method, body = request.method, request.body
            if response.status == 303 or (response.status in (301, 302) and method == "POST"):
                method, body = "GET", None
            headers = dict(request.headers)
            if body is None:
                headers.pop("Content-Type", None)
            if _origin(target) != first_origin:
                # Credentials and header arguments are meant for the first origin only.
                headers = {"Accept": headers.get("Accept", "application/json")}
            request = _Request(method, target, headers, body)
        raise _CallError("server", f"more than {self.max_redirects} redirects from {_where(request)}")

    def _send(self, request: _Request, limit: float, *, credentials: bool) -> _Response:
        headers = dict(request.headers)
        if credentials:
            # The configured headers win over same-named header arguments: a planned call must not be
            # able to swap out the credentials.
            configured = {k.lower() for k in self._headers}
            headers = {k: v for k, v in headers.items() if k.lower() not in configured} | self._headers
        deadline = time.monotonic() + limit
        if self.client == "httpx":
            return _send_httpx(request, headers, limit, deadline, self.max_body_bytes)
        return _send_urllib(request, headers, limit, deadline, self.max_body_bytes)


# -- building the request ----------------------------------------------------------------------------


def build_request(tool: Tool, arguments: Mapping[str, Any]) -> _Request:
    """The HTTP request for one call: path parameters substituted, the rest into query, headers or body
    as the tool's ``extra["parameter_in"]`` says (guessing from the path and method when it is silent)."""
    if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
        raise _CallError("invalid_params", "arguments must be an object with string keys")
    extra = tool.extra
    method = str(extra["method"]).upper()
    route = str(extra["path"])
    located = extra.get("parameter_in")
    located = dict(located) if isinstance(located, Mapping) else {}
    placeholders = set(_PLACEHOLDER.findall(route))

    query: list[tuple[str, str]] = []
    headers: dict[str, str] = {"Accept": "application/json"}
    body: dict[str, Any] = {}
    for key, value in arguments.items():
        where = located.get(key) or ("path" if key in placeholders else
                                     "query" if method in _NO_BODY_METHODS else "body")
        if located and key not in located and key not in placeholders:
            raise _CallError("invalid_params", f"unknown argument {key!r} for {method} {route}")
        if where == "path":
            continue
        if value is None:
            continue
        if where == "query":
            items = value if isinstance(value, list | tuple) else [value]
            query += [(key, _text(item)) for item in items]
        elif where == "header":
            text = _text(value)
            if _has_newline(key + text):
                raise _CallError("invalid_params", f"header argument {key!r} contains a line break")
            headers[key] = text
        elif where == "body":
            body[key] = value
        else:
            raise _CallError("invalid_params", f"argument {key!r} goes in {where!r}, which cannot be sent")

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        if arguments.get(key) is None:
            raise _CallError("invalid_params", f"missing path parameter {key!r} for {method} {route}")
        return quote(_text(arguments[key]), safe="")

    url = str(extra["server"]).rstrip("/") + "/" + _PLACEHOLDER.sub(substitute, route).lstrip("/")
    if query:
        url += ("&" if urlsplit(url).query else "?") + urlencode(query)
    payload = None
    if body:
        payload, content_type = _encode_body(body, located, str(extra.get("body_media_type") or ""))
        headers["Content-Type"] = content_type
    return _Request(method, url, headers, payload)


def _encode_body(body: dict[str, Any], located: Mapping[str, str], media: str) -> tuple[bytes, str]:
    body_names = [k for k, v in located.items() if v == "body"]
    # The importer files a body without properties under one "body" argument: that value is the body.
    value: Any = body["body"] if body_names == ["body"] and set(body) == {"body"} else body
    if media.split(";")[0].strip().lower() == "application/x-www-form-urlencoded" and isinstance(value, dict):
        pairs = [(k, _text(v)) for k, v in value.items() if v is not None]
        return urlencode(pairs).encode("ascii"), "application/x-www-form-urlencoded"
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise _CallError("invalid_params", f"the request body is not JSON: {exc}") from exc
    return encoded, media if "json" in media.lower() else "application/json"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


# -- sending -----------------------------------------------------------------------------------------


def _send_httpx(request: _Request, headers: Mapping[str, str], limit: float, deadline: float,
                cap: int) -> _Response:
    try:
        # trust_env=False: no proxy from the environment may carry the call past the allow-list check.
        with httpx.Client(follow_redirects=False, trust_env=False, timeout=httpx.Timeout(limit)) as client, \
                client.stream(request.method, request.url, headers=dict(headers), content=request.body) as resp:
            chunks: list[bytes] = []
            size = 0
            for chunk in resp.iter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > cap:
                    break
                if time.monotonic() > deadline:
                    raise _CallError("timeout", f"the answer took longer than {limit:g} s")
            body = b"".join(chunks)
            return _Response(resp.status_code, resp.reason_phrase or "", resp.headers.get("content-type", ""),
                             resp.headers.get("location"), body[:cap], size > cap)
    except httpx.TimeoutException as exc:
        raise _CallError("timeout", f"no answer within {limit:g} s from {_where(request)}") from exc
    except httpx.ConnectError as exc:
        raise _CallError("unavailable", f"cannot connect to {_where(request)}: {exc}") from exc
    except httpx.HTTPError as exc:
        raise _CallError("unavailable", f"HTTP error talking to {_where(request)}: {type(exc).__name__}") from exc


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # hand the 3xx back to the caller, which re-checks the host itself


def _send_urllib(request: _Request, headers: Mapping[str, str], limit: float, deadline: float,
                 cap: int) -> _Response:
    # An empty ProxyHandler: no proxy from the environment may carry the call past the allow-list check.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    req = urllib.request.Request(request.url, data=request.body, headers=dict(headers), method=request.method)
    try:
        try:
            resp = opener.open(req, timeout=limit)
        except urllib.error.HTTPError as err:  # non-2xx: still an answer to read
            resp = err
        with resp:
            chunks: list[bytes] = []
            size = 0
            while size <= cap:
                chunk = resp.read(min(65_536, cap + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() > deadline:
                    raise _CallError("timeout", f"the answer took longer than {limit:g} s")
            body = b"".join(chunks)
            status = resp.status if resp.status is not None else resp.code
            return _Response(status, str(resp.reason or ""), resp.headers.get("content-type", ""),
                             resp.headers.get("location"), body[:cap], size > cap)
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError | socket.timeout):
            raise _CallError("timeout", f"no answer within {limit:g} s from {_where(request)}") from exc
        raise _CallError("unavailable", f"cannot connect to {_where(request)}: {reason}") from exc
    except TimeoutError as exc:
        raise _CallError("timeout", f"no answer within {limit:g} s from {_where(request)}") from exc
    except OSError as exc:
        raise _CallError("unavailable", f"connection to {_where(request)} failed: {exc}") from exc


# -- reading the answer ------------------------------------------------------------------------------


def _decode_body(response: _Response) -> Any:
    if not response.body:
        return None
    text = response.body.decode("utf-8", "replace")
    if not response.truncated and ("json" in response.content_type.lower() or text.lstrip()[:1] in ("{", "[")):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text + (" …[truncated]" if response.truncated else "")


def _status_kind(status: int) -> str:
    """The error kind of an HTTP status. Only a 5xx, a 408 (timeout) and a 429 (rate limit, "unavailable")
    are transient: every other 4xx is the request's own fault (bad values, a missing endpoint, refused
    credentials) and is never bridged by a simulated answer."""
    if status in (401, 403, 407):
        return "auth"
    if status in (404, 405, 410, 501):
        return "not_found"
    if status == 408:
        return "timeout"
    if status == 429:
        return "unavailable"
    if status == 413:
        return "limit"
    if 400 <= status < 500:
        return "invalid_params"
    return "server"


def _where(request: _Request) -> str:
    # Method, host and path only: the query string may carry values that should not end up in logs.
    parts = urlsplit(request.url)
    return f"{request.method} {parts.scheme}://{_host_label(request.url)}{parts.path}"


def _host_label(url: str) -> str:
    """host[:port] of ``url``, without any user:password@ part."""
    scheme, host, port = _origin(url)
    host = f"[{host}]" if ":" in host else host
    return host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        port = None
    return parts.scheme, (parts.hostname or "").rstrip("."), port


def _has_newline(text: str) -> bool:
    return "\r" in text or "\n" in text


def _check_seconds(value: Any) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"HttpExecutor: timeout must be a positive number of seconds, got {value!r}")
