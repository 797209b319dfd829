"""An OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama…) through the ``openai`` package.

Retries are ours, not the client's (it is built with ``max_retries=0``): exponential backoff with
jitter on 429, 5xx, timeouts and connection errors, honouring ``Retry-After``. The API key lives only
inside the client object; it is kept out of reprs, error messages and the ledger.

The backend reads nothing from the environment: the key is the one passed in (none: a placeholder that
local servers ignore), and the endpoint is the one passed in (none: OpenAI's own). A server's
``OPENAI_API_KEY`` is never sent anywhere on its own; callers that may use it pass it explicitly (the CLI,
or the app for the operator's own endpoint only: ``core.settings.api_key_for``).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from core.llm.base import (
    ChatReply,
    LLMBadResponse,
    LLMError,
    LLMRateLimited,
    LLMRejected,
    LLMServerError,
    LLMTimeout,
)

__all__ = ["LLMRejected", "OpenAIChatBackend", "retry_after_seconds"]

T = TypeVar("T")

MAX_DELAY_S = 30.0  # a Retry-After of minutes would freeze a strategy run; fail and let the caller decide
_NO_KEY = "not-needed"  # local servers ignore the key, but the client refuses an empty one
OPENAI_BASE_URL = "https://api.openai.com/v1"  # the endpoint when none is given (not OPENAI_BASE_URL's value)


def _positive(name: str, value: float, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, not {value!r}")
    return value


def retry_after_seconds(headers: Any) -> float | None:
    """The server's Retry-After (seconds or an HTTP date; ``retry-after-ms`` too), or None."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        raw = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(raw).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


class OpenAIChatBackend:
    """``chat`` with our own retry policy and a concurrency limit shared by every thread using it."""

    name = "openai"

    def __init__(self, base_url: str | None, model: str, api_key: str | None = None, *, timeout: float = 60.0,
                 max_retries: int = 4, backoff: float = 0.5, concurrency: int = 8) -> None:
        if not model or not isinstance(model, str):
            raise ValueError("model must name the model to call (e.g. 'gpt-4.1-mini')")
        self.base_url = base_url or None
        self.model = model
        self.timeout = float(_positive("timeout", timeout))
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, not {max_retries!r}")
        self.max_retries = max_retries
        self.backoff = float(_positive("backoff", backoff, allow_zero=True))
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an integer >= 1, not {concurrency!r}")
        self.concurrency = concurrency
        self._slots = threading.BoundedSemaphore(concurrency)
        # No fallback to OPENAI_API_KEY: an endpoint given by someone else must never receive the server's key.
        self.__key = api_key or _NO_KEY
        self._client: Any = None
        self._lock = threading.Lock()
        self._sleep = time.sleep  # tests replace it to observe the backoff without waiting
        self._random = random.Random()  # noqa: S311 - jitter, not cryptography

    def __repr__(self) -> str:
        return f"OpenAIChatBackend(base_url={self.base_url!r}, model={self.model!r})"

    def _scrub(self, text: str) -> str:
        # Some servers echo the key they rejected; it must not reach a log, the ledger or the UI.
        return text.replace(self.__key, "***") if self.__key != _NO_KEY else text

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                from openai import OpenAI

                # base_url always explicit: the client would otherwise read OPENAI_BASE_URL from the environment
                self._client = OpenAI(base_url=self.base_url or OPENAI_BASE_URL, api_key=self.__key,
                                      timeout=self.timeout, max_retries=0)
            return self._client

    def _classify(self, exc: Exception) -> tuple[LLMError, bool, float | None]:
        """Our error for a client exception, whether it is worth retrying, and the server's Retry-After."""
        import openai

        response = getattr(exc, "response", None)
        retry_after = retry_after_seconds(getattr(response, "headers", None))
        if isinstance(exc, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
            return LLMTimeout(f"no answer from {self.model} within {self.timeout:g} s"), True, None
        if isinstance(exc, openai.APIConnectionError):
            return LLMServerError(f"cannot reach the endpoint {self.base_url or 'api.openai.com'}"), True, None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = self._scrub(str(getattr(exc, "message", "") or ""))[:200]
            if status == 429:
                return LLMRateLimited(f"rate limited (429): {detail}"), True, retry_after
            if status >= 500:
                return LLMServerError(f"server error ({status}): {detail}"), True, retry_after
            return LLMRejected(f"request rejected ({status}): {detail}"), False, None
        return LLMBadResponse(f"unreadable answer ({type(exc).__name__})"), False, None

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        base = retry_after if retry_after is not None else self.backoff * (2 ** attempt)
        # Jitter spreads out the retries of concurrent population calls that failed together.
        return min(base, MAX_DELAY_S) * (1.0 + 0.25 * self._random.random())

    def chat(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None = None,
             seed: int | None = None) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": float(temperature)}
        if max_tokens:
            kwargs["max_tokens"] = int(max_tokens)
        if seed is not None:
            kwargs["seed"] = int(seed)
        return self._reply(self.call(lambda client: client.chat.completions.create(**kwargs)))

    def call(self, request: Callable[[Any], T]) -> T:
        """``request(client)`` under this backend's retry policy and concurrency limit (chat, and the
        embeddings client ``core.embeddings.openai`` built on the same endpoint, key and retries)."""
        error: LLMError = LLMError("no attempt made")
        for attempt in range(self.max_retries + 1):
            with self._slots:  # released before sleeping, so a backoff never blocks other calls
                try:
                    return request(self._get_client())
                except Exception as exc:  # noqa: BLE001 - every client failure is classified
                    error, retry, retry_after = self._classify(exc)
            if not retry or attempt == self.max_retries:
                break
            self._sleep(self._delay(attempt, retry_after))
        raise error

    def _reply(self, resp: Any) -> ChatReply:
        try:
            text = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError):
            raise LLMBadResponse("the answer has no choices[0].message.content") from None
        if not isinstance(text, str):
            raise LLMBadResponse("the answer has no choices[0].message.content")
        usage = getattr(resp, "usage", None)
        return ChatReply(text, getattr(resp, "model", None) or self.model,
                         int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0))

    def list_models(self) -> list[str]:
        """The model ids the endpoint offers (one attempt, no retries)."""
        try:
            return sorted(m.id for m in self._get_client().models.list())
        except Exception as exc:  # noqa: BLE001 - classified like a chat failure
            raise self._classify(exc)[0] from None

    def check(self) -> tuple[bool, str]:
        """Reachability for the Settings page: the model listed by the endpoint, else a one-token chat."""
        listed: list[str] | None = None
        try:
            listed = self.list_models()
        except LLMError:
            pass  # many compatible servers have no /models; the chat below decides
        if listed and self.model in listed:
            return True, f"reachable; {self.model} is offered ({len(listed)} models)"
        try:
            self.chat([{"role": "user", "content": "Reply with OK."}], temperature=0.0, max_tokens=1)
        except LLMError as exc:
            hint = f" Offered models: {', '.join(listed[:10])}." if listed else ""
            return False, f"{type(exc).__name__}: {exc}.{hint}"
        return True, f"reachable; {self.model} answered"
