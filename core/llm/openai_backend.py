"""An OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama…) through the ``openai`` package.

Retries are ours, not the client's: exponential backoff with jitter on 429, 5xx, timeouts and
connection errors, honouring ``Retry-After``. The API key lives only in the client object.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any

from core.llm.base import ChatReply, LLMBadResponse, LLMError, LLMRateLimited, LLMServerError, LLMTimeout


class OpenAIChatBackend:
    name = "openai"

    def __init__(self, base_url: str | None, model: str, api_key: str | None = None, *, timeout: float = 60.0,
                 max_retries: int = 4, backoff: float = 0.5, concurrency: int = 8) -> None:
        if not model:
            raise ValueError("an OpenAI-compatible backend needs a model name")
        self.base_url = base_url
        self.model = model
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self._slots = threading.BoundedSemaphore(max(1, int(concurrency)))
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._client = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIChatBackend(base_url={self.base_url!r}, model={self.model!r})"

    def _get_client(self):
        with self._lock:
            if self._client is None:
                from openai import OpenAI

                self._client = OpenAI(base_url=self.base_url, api_key=self._api_key, timeout=self.timeout,
                                      max_retries=0)
            return self._client

    def _classify(self, exc: Exception) -> tuple[LLMError, bool, float | None]:
        """Map a client exception to our error, whether to retry, and the server's Retry-After."""
        import openai

        retry_after = None
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after"))
            except (TypeError, ValueError):
                retry_after = None
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(f"no answer within {self.timeout:g} s"), True, None
        if isinstance(exc, openai.APIConnectionError):
            return LLMServerError("cannot reach the endpoint"), True, None
        if isinstance(exc, openai.RateLimitError):
            return LLMRateLimited("rate limited (429)"), True, retry_after
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if status >= 500:
                return LLMServerError(f"server error ({status})"), True, retry_after
            return LLMError(f"request rejected ({status})"), False, None
        return LLMBadResponse(f"unreadable answer ({type(exc).__name__})"), False, None

    def chat(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None = None,
             seed: int | None = None) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": float(temperature)}
        if max_tokens:
            kwargs["max_tokens"] = int(max_tokens)
        if seed is not None:
            kwargs["seed"] = int(seed)
        last: LLMError | None = None
        for attempt in range(self.max_retries + 1):
            with self._slots:
                try:
                    resp = self._get_client().chat.completions.create(**kwargs)
                except Exception as exc:  # noqa: BLE001 - classified below
                    last, retry, retry_after = self._classify(exc)
                else:
                    return self._reply(resp)
            if not retry or attempt == self.max_retries:
                break
            delay = retry_after if retry_after is not None else self.backoff * (2 ** attempt)
            time.sleep(min(delay, 30.0) * (1.0 + 0.25 * random.random()))  # noqa: S311 - jitter, not crypto
        raise last or LLMError("no answer")

    def _reply(self, resp: Any) -> ChatReply:
        try:
            text = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            raise LLMBadResponse("the answer has no message content") from None
        if not isinstance(text, str):
            raise LLMBadResponse("the answer has no message content")
        usage = getattr(resp, "usage", None)
        return ChatReply(text, getattr(resp, "model", None) or self.model,
                         int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0))

    def check(self) -> tuple[bool, str]:
        """Reachability for the Settings page: a one-token chat."""
        try:
            self.chat([{"role": "user", "content": "Reply with OK."}], temperature=0.0, max_tokens=1)
        except LLMError as exc:
            return False, str(exc)
        return True, f"{self.model} answered"
