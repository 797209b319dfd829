"""Collaborators a strategy run needs besides the search engine: LLM operators (with their
ledger), a tool memory and Re-Invoke's synthetic-query store. Built from explicit choices."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.search.engine import SearchEngine

LLM_KINDS = ("offline", "openai")


@dataclass(frozen=True)
class LLMConfig:
    """Which operator backend to use. The API key is never part of the run config or the ledger."""

    kind: str = "offline"
    base_url: str | None = None
    model: str | None = None
    replay: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """What identifies results made with this backend (for run configs and caches)."""
        return {"kind": self.kind, "base_url": self.base_url, "model": self.model}

    @property
    def generator_id(self) -> str:
        """Keys Re-Invoke's stored synthetic queries: a new rule set or model gets a fresh index."""
        if self.kind == "offline":
            from core.llm.offline import MODEL

            return f"offline:{MODEL}"
        return f"{self.kind}:{self.base_url}:{self.model}"


def build_context(
    db: Any,
    engine: SearchEngine,
    version_id: int,
    llm: LLMConfig,
    *,
    seed: int = 0,
    run_id: int | None = None,
    api_key: str | None = None,
    strategy_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Operators recorded in the store's ledger (tagged with ``run_id``) and the stores strategies use.

    ``api_key`` is sent to ``llm.base_url`` as it is; None sends no key (never the environment's). The app
    gets it from ``core.settings.api_key_for``, so the server's key only ever goes to the server's endpoint.
    """
    from core.llm.framework import make_roles
    from core.llm.ledger import SqlLedger
    from core.llm.vocabulary import CatalogVocabulary
    from core.strategies.memory import ToolMemory
    from storage.synthetic import SqlQueryStore

    if llm.kind not in LLM_KINDS:
        raise ValueError(f"unknown LLM backend {llm.kind!r}; valid backends: {', '.join(LLM_KINDS)}")
    ledger = SqlLedger(db, run_id=run_id)
    if llm.kind == "offline":
        operators = make_roles("strategy", "offline", vocabulary=CatalogVocabulary.from_texts(engine.texts),
                               ledger=ledger, seed=seed)
    else:
        operators = make_roles("strategy", "openai", ledger=ledger, seed=seed, base_url=llm.base_url,
                               model=llm.model, api_key=api_key, replay=llm.replay, **llm.options)
    params = strategy_params or {}
    store = SqlQueryStore(db, version_id=version_id, generator=llm.generator_id, m=int(params.get("m", 10)),
                          temperature=float(params.get("temperature", 0.7)))
    return {"operators": operators, "memory": ToolMemory(), "query_store": store}
