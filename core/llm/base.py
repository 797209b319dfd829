"""Types shared by every backend and role."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")


class LLMError(Exception):
    """A call that produced no usable answer."""


class LLMTimeout(LLMError):
    pass


class LLMRateLimited(LLMError):
    pass


class LLMServerError(LLMError):
    pass


class LLMBadResponse(LLMError):
    pass


@dataclass(frozen=True)
class ChatReply:
    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False


class ChatBackend(Protocol):
    name: str
    model: str

    def chat(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None = None,
             seed: int | None = None) -> ChatReply: ...


@dataclass(frozen=True)
class RoleCall(Generic[T]):
    """The outcome of one role call: its value (None on failure) and the ledger id of the call."""

    role: str
    value: T | None
    call_id: int | None = None
    ok: bool = True
    error: str | None = None


@dataclass(frozen=True)
class CallRecord:
    """What the ledger keeps of a call. Never holds an API key."""

    role: str
    backend: str
    model: str
    temperature: float
    request_hash: str
    prompt: str
    response: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = None
    id: int | None = None
    run_id: int | None = None
    extra: dict[str, Any] | None = None
