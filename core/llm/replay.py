"""Replay: answer a request the ledger has seen before, so a demo replays exactly and costs nothing."""

from __future__ import annotations

from core.llm.base import ChatBackend, ChatReply, LLMError
from core.llm.ledger import Ledger, request_hash


class ReplayingBackend:
    """Wraps a backend; ``mode='replay-only'`` never calls it (a miss is an error)."""

    def __init__(self, inner: ChatBackend | None, ledger: Ledger, *, role: str = "", mode: str = "replay-or-call",
                 name: str | None = None, model: str | None = None) -> None:
        if mode not in ("replay-or-call", "replay-only"):
            raise ValueError(f"unknown replay mode {mode!r}; valid modes: replay-or-call, replay-only")
        if inner is None and mode != "replay-only":
            raise ValueError("replay-or-call needs a backend to call on a miss")
        self.inner = inner
        self.ledger = ledger
        self.mode = mode
        self.name = name or (inner.name if inner else "replay")
        self.model = model or (inner.model if inner else "")
        self.role = role

    def chat(self, messages, *, temperature, max_tokens=None, seed=None) -> ChatReply:
        raise LLMError("ReplayingBackend is used through PromptedOperators, which knows the role")

    def chat_for(self, role: str, messages, *, temperature, max_tokens=None, seed=None) -> ChatReply:
        h = request_hash(self.name, self.model, role, temperature, seed, messages)
        hit = self.ledger.find(h)
        if hit is not None:
            return ChatReply(hit.response, hit.model, hit.tokens_in, hit.tokens_out, cached=True)
        if self.mode == "replay-only":
            raise LLMError(f"replay-only: no recorded answer for this {role} request")
        return self.inner.chat(messages, temperature=temperature, max_tokens=max_tokens, seed=seed)
