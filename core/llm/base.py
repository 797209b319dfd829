"""Types shared by every backend and role: replies, errors, role outcomes, ledger records, request identity."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from core.models import CallRecord  # noqa: F401 - what the ledger keeps of a call; defined with the models

T = TypeVar("T")


class LLMError(Exception):
    """A call that produced no usable answer."""


class LLMTimeout(LLMError):
    """No answer within the backend's timeout."""


class LLMRateLimited(LLMError):
    """The endpoint kept answering 429 after every retry."""


class LLMServerError(LLMError):
    """5xx answers or an unreachable endpoint after every retry."""


class LLMRejected(LLMError):
    """The endpoint refused the request (4xx other than 429): wrong model, bad key, bad parameters."""


class LLMBadResponse(LLMError):
    """An answer arrived but could not be read (bad HTTP body, or a malformed role answer)."""


@dataclass(frozen=True)
class ChatReply:
    """One chat answer. ``cached`` is True when it came from the ledger instead of the endpoint."""

    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"ChatReply.text must be a string, not {type(self.text).__name__}")
        if self.tokens_in < 0 or self.tokens_out < 0:
            raise ValueError("ChatReply.tokens_in and tokens_out must be >= 0")


@runtime_checkable
class ChatBackend(Protocol):
    """A chat endpoint. ``chat`` raises :class:`LLMError` subclasses, nothing else."""

    name: str
    model: str

    def chat(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None = None,
             seed: int | None = None) -> ChatReply: ...


@dataclass(frozen=True)
class RoleCall(Generic[T]):
    """The outcome of one role call: its value (None on failure) and the ledger id of the call."""

    value: T | None
    call_id: int | None = None
    ok: bool = True
    error: str | None = None
    role: str = ""

    def __post_init__(self) -> None:
        if self.ok and self.error is not None:
            raise ValueError("RoleCall.error must be None when ok is True")
        if not self.ok and not self.error:
            raise ValueError("RoleCall.error must say what went wrong when ok is False")


def request_hash(backend: str, model: str, role: str, temperature: float, seed: int | None, payload: Any) -> str:
    """Identity of a request for replay: sha256 of backend, model, role, temperature, seed and messages."""
    # Rounding keeps 0.7 and 0.7000000001 (from temperature schedules) the same request.
    blob = json.dumps([backend, model, role, round(float(temperature), 4), seed, payload], sort_keys=True,
                      ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()

