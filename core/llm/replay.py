"""Replay: answer a request the ledger has seen before, so a demo replays exactly and costs nothing.

A request is identified by :func:`core.llm.base.request_hash` over backend, model, role, temperature,
seed and messages, the same hash :class:`core.llm.prompted.PromptedOperators` records, so a replayed
strategy run sends the very requests it sent the first time and gets the very answers back.
"""

from __future__ import annotations

import threading

from core.llm.base import ChatBackend, ChatReply, LLMError, request_hash
from core.llm.ledger import Ledger

MODES = ("replay-or-call", "replay-only")


class ReplayMiss(LLMError):
    """Replay-only mode and the ledger holds no successful answer to this request."""


class ReplayingBackend:
    """Wraps a backend: a repeated request is answered from the ledger (``ChatReply.cached``).

    ``mode='replay-or-call'`` calls ``inner`` on a miss; ``mode='replay-only'`` never calls anything
    and raises :class:`ReplayMiss`. ``name`` and ``model`` default to the inner backend's so the hashes
    match the recorded ones; give them when replaying with no inner backend.
    """

    def __init__(self, inner: ChatBackend | None, ledger: Ledger, mode: str = "replay-or-call", *,
                 name: str | None = None, model: str | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if inner is None and mode != "replay-only":
            raise ValueError("inner must be a backend in replay-or-call mode (it answers the misses)")
        if ledger is None:
            raise ValueError("ledger must be given: replay answers from it")
        self.inner = inner
        self.ledger = ledger
        self.mode = mode
        self.name = name or (inner.name if inner is not None else "replay")
        self.model = model or (inner.model if inner is not None else "")
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()  # population calls replay from several threads

    def __repr__(self) -> str:
        return f"ReplayingBackend({self.inner!r}, mode={self.mode!r})"

    def chat(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None = None,
             seed: int | None = None, role: str = "") -> ChatReply:
        """Like :meth:`ChatBackend.chat`; ``role`` is part of the request's identity."""
        h = request_hash(self.name, self.model, role, temperature, seed, messages)
        hit = self.ledger.find(h)
        with self._lock:
            if hit is not None:
                self.hits += 1
            else:
                self.misses += 1
        if hit is not None:
            return ChatReply(hit.response, hit.model, hit.tokens_in, hit.tokens_out, cached=True)
        if self.inner is None:
            raise ReplayMiss(f"replay-only: the ledger has no recorded answer to this {role or 'chat'} request")
        return self.inner.chat(messages, temperature=temperature, max_tokens=max_tokens, seed=seed)

    def chat_for(self, role: str, messages: list[dict[str, str]], *, temperature: float,
                 max_tokens: int | None = None, seed: int | None = None) -> ChatReply:
        """:meth:`chat` for a role (how :class:`PromptedOperators` calls a backend that knows roles)."""
        return self.chat(messages, temperature=temperature, max_tokens=max_tokens, seed=seed, role=role)
