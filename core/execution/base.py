"""The executor interface shared by the MCP client, the Python sandbox and the HTTP caller.

An executor never raises for a failing tool: every outcome, including a crash, a timeout or a refused
host, comes back as an :class:`ExecutionResult` whose ``error_kind`` lets the trial classify it
(GRETEL §3.2.1: a structured error is evidence, not an exception).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from core.models import Tool

# Why a call failed. ``invalid_params`` is the tool rejecting the arguments (GRETEL's parameter mismatch);
# the others are failures of the tool or its host (GRETEL's execution failure).
ERROR_KINDS = (
    "invalid_params",  # missing/unknown/mistyped argument, rejected by the tool or its schema
    "auth",  # authentication or authorisation refused
    "not_found",  # the tool or endpoint does not exist on the server
    "server",  # the tool ran and failed (exception, HTTP 5xx, MCP isError)
    "timeout",  # no answer within the time limit
    "crash",  # the server or sandbox process died mid-call
    "limit",  # a resource limit (memory, output size) stopped the call
    "refused",  # the executor would not make the call (host not on the allow-list, network off)
    "unavailable",  # the executor could not be started or reached
)


@dataclass(frozen=True)
class ExecutionResult:
    """The outcome of one call. ``data`` is the JSON-able answer when ``ok``; ``error`` says what went
    wrong otherwise, and ``error_kind`` is one of :data:`ERROR_KINDS`."""

    ok: bool
    data: Any = None
    error: str | None = None
    error_kind: str | None = None
    seconds: float = 0.0
    executor: str = ""
    # How the call was isolated, for executors that isolate (the Python sandbox: e.g.
    # "bubblewrap+landlock+seccomp+audit"); empty otherwise.
    isolation: str = ""

    def __post_init__(self) -> None:
        if self.ok and (self.error is not None or self.error_kind is not None):
            raise ValueError("ExecutionResult: a successful result carries no error")
        if not self.ok and (not self.error or self.error_kind not in ERROR_KINDS):
            raise ValueError(
                f"ExecutionResult: a failed result needs an error message and an error_kind in {ERROR_KINDS}, "
                f"got {self.error!r} / {self.error_kind!r}"
            )

    @staticmethod
    def failure(kind: str, message: str, *, seconds: float = 0.0, executor: str = "",
                isolation: str = "") -> ExecutionResult:
        return ExecutionResult(False, None, message, kind, seconds, executor, isolation)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "data": self.data, "error": self.error, "error_kind": self.error_kind,
                "seconds": round(self.seconds, 4), "executor": self.executor, "isolation": self.isolation}


@runtime_checkable
class Executor(Protocol):
    """Runs tools of one kind. ``covers`` says whether this executor can run ``tool`` at all (an MCP
    server lists it, a sandbox has its callable, an HTTP tool has a URL); ``call`` runs it once."""

    name: str

    def covers(self, tool: Tool) -> bool: ...

    def call(self, tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 10.0) -> ExecutionResult: ...

    def close(self) -> None: ...


def json_safe(value: Any) -> Any:
    """``value`` made JSON-serialisable (unknown objects become their ``str``), for storage."""
    return json.loads(json.dumps(value, default=str, ensure_ascii=False))


_AUTH = re.compile(r"\b40[13]\b|unauthori[sz]ed|forbidden|api[ _-]?key|authenticat", re.I)
# A tool's own complaint about the values it was given ("Invalid timezone: …", "time must look like HH:MM"):
# the call was wrong, not the host, so it is a parameter failure and never a transient one.
_PARAMS = re.compile(r"\b40[0]\b|\b422\b|invalid param|invalid argument|invalid type|missing required|"
                     r"required propert|validation error|is not of type|unexpected (keyword )?argument|"
                     r"\binvalid\b|\bmust (?:be|look|match|contain|have)\b|\bexpected\b.{0,40}\bformat\b|"
                     r"not a valid|is not valid|unknown (?:time ?zone|timezone|unit|currency|city|location|value|"
                     r"option|parameter|argument|field|format|language|country|code|symbol|ticker)|"
                     r"unsupported (?:value|unit|currency|format|language|option)|no time ?zone found|"
                     r"out of range|bad request|malformed|(?:cannot|could not|unable to) parse|unrecogni[sz]ed", re.I)
_HOST_FAILURE = re.compile(r"\b5\d\d\s+(?:internal|bad gateway|service|gateway|server|error)|internal server error|"
                           r"\bupstream\b", re.I)
_TRANSIENT_HTTP = re.compile(r"\b(?:429|503)\b|too many requests|rate.?limit|temporarily unavailable", re.I)
_NOT_FOUND = re.compile(r"unknown tool|no such tool|tool .{0,80}not found|method not found|\b404\b|not found", re.I)


def classify_error(message: str) -> str:
    """The error kind a tool-level error message points to (GRETEL §3.2.1: parameter mismatch vs
    execution failure): an MCP ``isError`` answer, a protocol error, or the exception a sandboxed tool raised. Authentication wins over everything; a 5xx or upstream failure is the host's
    ("server"; a 503 or rate limit is "unavailable"); a complaint about the given values ("Invalid timezone",
    "must be HH:MM", "out of range") is ``invalid_params``, a permanent failure that is never simulated;
    argument complaints win over "not found", because a validation message may mention a value that was not
    found. Wording nobody recognises stays "server"."""
    if _AUTH.search(message):
        return "auth"
    if _HOST_FAILURE.search(message) and not re.search(r"\b4\d\d\s+[A-Z]", message):
        return "unavailable" if _TRANSIENT_HTTP.search(message) else "server"
    if _TRANSIENT_HTTP.search(message):
        return "unavailable"
    if _PARAMS.search(message):
        return "invalid_params"
    if _NOT_FOUND.search(message):
        return "not_found"
    return "server"
