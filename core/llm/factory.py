"""Operators by name: ``offline`` (the default) or ``openai`` (any OpenAI-compatible endpoint)."""

from __future__ import annotations

from typing import Any

KINDS = ("offline", "openai")


def make_operators(kind: str, *, vocabulary: Any = None, ledger: Any = None, seed: int = 0, base_url: str | None = None,
                   model: str | None = None, api_key: str | None = None, replay: bool = False, **opts: Any):
    if kind == "offline":
        from core.llm.offline import OfflineOperators
        from core.llm.vocabulary import CatalogVocabulary

        return OfflineOperators(vocabulary or CatalogVocabulary.from_texts([]), seed=seed, ledger=ledger)
    if kind == "openai":
        from core.llm.openai_backend import OpenAIChatBackend
        from core.llm.prompted import PromptedOperators
        from core.llm.replay import ReplayingBackend

        backend_opts = {k: opts.pop(k) for k in ("timeout", "max_retries", "backoff", "concurrency") if k in opts}
        backend = OpenAIChatBackend(base_url, model or "", api_key, **backend_opts)
        if replay:
            if ledger is None:
                raise ValueError("replay needs a ledger")
            backend = ReplayingBackend(backend, ledger)
        return PromptedOperators(backend, ledger, seed=seed, **opts)
    raise ValueError(f"unknown LLM backend {kind!r}; valid backends: {', '.join(KINDS)}")
