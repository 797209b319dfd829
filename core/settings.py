"""User settings, read from the environment by the entry points (CLI, app) and passed in.

Nothing in ``core`` reads these on its own: the CLI and the app build the store,
embedder and reranker from a ``Settings`` value and hand them to the engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from core.embedding import DEFAULT_MODEL_ID

ENV_EMBEDDING = "TOOLATLAS_EMBEDDING_MODEL"
ENV_RERANKER = "TOOLATLAS_RERANKER"
ENV_DB_URL = "TOOLATLAS_DB_URL"
ENV_ENGINE_BUDGET = "TOOLATLAS_ENGINE_BUDGET"
ENV_TOOL_TEXT = "TOOLATLAS_TOOL_TEXT"
# The text embedded and indexed for a tool (spec: "name: description plus parameter names (configurable)").
TOOL_TEXTS = {"name-description-parameters": True, "name-description": False}


@dataclass(frozen=True)
class Settings:
    db_url: str | None = None
    embedding_model: str = DEFAULT_MODEL_ID
    reranker_model: str | None = None
    engine_budget: int | None = None  # tools kept in built search engines (None: the workspace default)
    text_with_parameters: bool = True  # tool text: `name: description` plus parameter names (False: without)

    @classmethod
    def from_env(cls) -> Settings:
        budget = os.environ.get(ENV_ENGINE_BUDGET, "").strip()
        if budget and not (budget.isdigit() and int(budget) > 0):
            raise ValueError(f"{ENV_ENGINE_BUDGET} must be a positive whole number of tools, not {budget!r}")
        text = os.environ.get(ENV_TOOL_TEXT, "").strip() or "name-description-parameters"
        if text not in TOOL_TEXTS:
            raise ValueError(f"{ENV_TOOL_TEXT} must be one of {', '.join(TOOL_TEXTS)}, not {text!r}")
        return cls(
            text_with_parameters=TOOL_TEXTS[text],
            db_url=os.environ.get(ENV_DB_URL) or None,
            embedding_model=os.environ.get(ENV_EMBEDDING) or DEFAULT_MODEL_ID,
            reranker_model=os.environ.get(ENV_RERANKER) or None,
            engine_budget=int(budget) if budget else None,
        )

    def with_overrides(self, **changes) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def build_workspace(settings: Settings):
    """Construct the store, embedder and reranker named by ``settings`` (lazily loaded models)."""
    from core.embedding import SentenceTransformerEmbedder
    from core.search.rerank import CrossEncoderReranker
    from core.workspace import Workspace
    from storage.db import make_engine

    reranker = CrossEncoderReranker(settings.reranker_model) if settings.reranker_model else None
    budget = {"engine_budget": settings.engine_budget} if settings.engine_budget else {}
    return Workspace(make_engine(settings.db_url), SentenceTransformerEmbedder(settings.embedding_model),
                     reranker=reranker, text_with_parameters=settings.text_with_parameters, **budget)
