"""Operators by name: ``offline`` (the default: heuristics, no network) or ``openai`` (any
OpenAI-compatible endpoint: OpenAI, vLLM, llama.cpp server, Ollama, the local GGUF server)."""

from __future__ import annotations

from typing import Any

from core.llm.roles import Operators

KINDS = ("offline", "openai")
_BACKEND_OPTIONS = ("timeout", "max_retries", "backoff", "concurrency")


def make_operators(kind: str, *, vocabulary: Any = None, ledger: Any = None, seed: int = 0,
                   base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                   replay: bool | str = False, **opts: Any) -> Operators:
    """Build the operators strategies call.

    ``offline`` uses ``vocabulary`` (a :class:`CatalogVocabulary`; an empty one when None). ``openai``
    takes ``base_url``, ``model``, ``api_key`` (None: no key, never ``OPENAI_API_KEY``), backend options (timeout,
    max_retries, backoff, concurrency) and ``PromptedOperators`` options (temperatures, max_tokens).
    ``replay`` True (or ``"replay-or-call"``) answers repeated requests from ``ledger``;
    ``"replay-only"`` never calls the endpoint.
    """
    if kind == "offline":
        from core.llm.offline import OfflineOperators
        from core.llm.vocabulary import CatalogVocabulary

        if opts:
            raise ValueError(f"the offline operators take no options {sorted(opts)}")
        return OfflineOperators(vocabulary if vocabulary is not None else CatalogVocabulary.from_texts([]),
                                seed=seed, ledger=ledger)
    if kind == "openai":
        from core.llm.openai_backend import OpenAIChatBackend
        from core.llm.prompted import PromptedOperators
        from core.llm.replay import MODES, ReplayingBackend

        if not model:
            raise ValueError("model must be given for the openai backend")
        backend_opts = {k: opts.pop(k) for k in _BACKEND_OPTIONS if k in opts}
        backend: Any = OpenAIChatBackend(base_url, model, api_key, **backend_opts)
        if replay:
            mode = "replay-or-call" if replay is True else replay
            if mode not in MODES:
                raise ValueError(f"replay must be True, False or one of {', '.join(MODES)}, not {replay!r}")
            if ledger is None:
                raise ValueError("replay needs a ledger to answer from")
            backend = ReplayingBackend(None if mode == "replay-only" else backend, ledger, mode,
                                       name=backend.name, model=backend.model)
        return PromptedOperators(backend, ledger, seed=seed, **opts)
    raise ValueError(f"unknown LLM backend {kind!r}; valid backends: {', '.join(KINDS)}")
