"""User settings, read from the environment by the entry points (CLI, app) and passed in.

Nothing in ``core`` reads these on its own: the CLI and the app build the store,
embedder and reranker from a ``Settings`` value and hand them to the engine.

Two kinds of settings: the server's (store, embedding model, reranker, local model file, the default
LLM endpoint and its key), set by the operator in the environment, and a visitor's (the LLM backend,
an endpoint with their own key, the tool text), which last for one browser session. A visitor may
change the server's settings only when the server runs in operator mode (``TOOLATLAS_OPERATOR=1``).
The server's API key goes only to the server's own endpoint: :func:`api_key_for` (LLM requests) and
:func:`embedding_key_for` (embedding requests) decide which key a request carries, by the one rule of
:func:`server_key_for`.

The embedding backend (``TOOLATLAS_EMBEDDER``: local, openai, precomputed or static, see
:data:`core.embedding.EMBEDDER_KINDS`) is a server setting: it decides which vectors the store holds.
Its endpoint is ``TOOLATLAS_EMBEDDING_BASE_URL`` (default: the server's LLM endpoint) and its key
``TOOLATLAS_EMBEDDING_API_KEY`` (default: the server's LLM key, only when the embedding endpoint is the LLM
endpoint). The key is read from the environment when the workspace is built and never kept in ``Settings``.
With the local backend, a version with more than ``TOOLATLAS_FIRST_LOOK`` tools (default 5,000; 0 turns it
off) without cached vectors gets a first look from the static embedder while its index builds
(:mod:`core.first_look`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.embedding import DEFAULT_MODEL_ID, EMBEDDER_KINDS
from core.first_look import DEFAULT_THRESHOLD, ENV_FIRST_LOOK, parse_threshold

ENV_EMBEDDING = "TOOLATLAS_EMBEDDING_MODEL"
ENV_EMBEDDER = "TOOLATLAS_EMBEDDER"  # the embedding backend: local | openai | precomputed | static
ENV_EMBEDDING_BASE_URL = "TOOLATLAS_EMBEDDING_BASE_URL"  # the server's OpenAI-compatible embeddings endpoint
ENV_EMBEDDING_API_KEY = "TOOLATLAS_EMBEDDING_API_KEY"  # its key (default: OPENAI_API_KEY for the LLM endpoint)
ENV_RERANKER = "TOOLATLAS_RERANKER"
ENV_DB_URL = "TOOLATLAS_DB_URL"
ENV_ENGINE_BUDGET = "TOOLATLAS_ENGINE_BUDGET"
ENV_TOOL_TEXT = "TOOLATLAS_TOOL_TEXT"
ENV_OPERATOR = "TOOLATLAS_OPERATOR"  # "1": this server's visitors may change the server's settings (one trusted user)
ENV_LLM_BASE_URL = "TOOLATLAS_LLM_BASE_URL"  # the server's own OpenAI-compatible endpoint
ENV_LLM_MODEL = "TOOLATLAS_LLM_MODEL"
ENV_LLM_GGUF = "TOOLATLAS_LLM_GGUF"  # the GGUF file the Settings page may serve locally
ENV_API_KEY = "OPENAI_API_KEY"  # the server's key (or OPENAI_API_KEY in .streamlit/secrets.toml)
ENV_OPENAI_BASE_URL = "OPENAI_BASE_URL"  # the openai package's own variable: the server endpoint's fallback
OPENAI_ENDPOINT = "https://api.openai.com/v1"
DEFAULT_LLM_MODEL = "gpt-4.1-mini"
# The Settings fields a visitor may change for their session; the others only in operator mode.
VISITOR_SETTINGS = frozenset({"text_with_parameters"})
# The text embedded and indexed for a tool (spec: "name: description plus parameter names (configurable)").
TOOL_TEXTS = {"name-description-parameters": True, "name-description": False}


@dataclass(frozen=True)
class Settings:
    db_url: str | None = None
    embedding_model: str = DEFAULT_MODEL_ID
    embedder: str = "local"  # the embedding backend (core.embedding.EMBEDDER_KINDS)
    # openai: the endpoint (None: the server's); precomputed: the endpoint for texts without an imported vector
    # (None: none, such texts are an error)
    embedding_base_url: str | None = None
    reranker_model: str | None = None
    engine_budget: int | None = None  # tools kept in built search engines (None: the workspace default)
    text_with_parameters: bool = True  # tool text: `name: description` plus parameter names (False: without)
    local_model: str | None = None  # a GGUF file the Settings page may serve on 127.0.0.1 (TOOLATLAS_LLM_GGUF)
    # local backend: tools without cached vectors above which a version gets a first look (0: never)
    first_look: int = DEFAULT_THRESHOLD

    @classmethod
    def from_env(cls) -> Settings:
        budget = os.environ.get(ENV_ENGINE_BUDGET, "").strip()
        if budget and not (budget.isdigit() and int(budget) > 0):
            raise ValueError(f"{ENV_ENGINE_BUDGET} must be a positive whole number of tools, not {budget!r}")
        text = os.environ.get(ENV_TOOL_TEXT, "").strip() or "name-description-parameters"
        if text not in TOOL_TEXTS:
            raise ValueError(f"{ENV_TOOL_TEXT} must be one of {', '.join(TOOL_TEXTS)}, not {text!r}")
        embedder = os.environ.get(ENV_EMBEDDER, "").strip() or "local"
        if embedder not in EMBEDDER_KINDS:
            raise ValueError(f"{ENV_EMBEDDER} must be one of {', '.join(EMBEDDER_KINDS)}, not {embedder!r}")
        return cls(
            embedder=embedder,
            first_look=parse_threshold(os.environ.get(ENV_FIRST_LOOK)),
            embedding_base_url=os.environ.get(ENV_EMBEDDING_BASE_URL, "").strip() or None,
            text_with_parameters=TOOL_TEXTS[text],
            db_url=os.environ.get(ENV_DB_URL) or None,
            embedding_model=os.environ.get(ENV_EMBEDDING) or DEFAULT_MODEL_ID,
            reranker_model=os.environ.get(ENV_RERANKER) or None,
            engine_budget=int(budget) if budget else None,
            local_model=os.environ.get(ENV_LLM_GGUF) or None,
        )

    def with_overrides(self, **changes) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def build_workspace(settings: Settings, *, jobs=None, secret_key: str | None = None):
    """Construct the store, embedder and reranker named by ``settings`` (lazily loaded models); ``jobs``: a
    job registry to share (``core.jobs.Jobs``; default: one of its own); ``secret_key``: the app's
    secrets.toml key (see :meth:`ServerEndpoint.from_env`)."""
    from core.first_look import FirstLookConfig
    from core.search.rerank import CrossEncoderReranker
    from core.workspace import Workspace
    from storage.cache import SqlVectorCache
    from storage.db import make_engine

    reranker = CrossEncoderReranker(settings.reranker_model) if settings.reranker_model else None
    budget = {"engine_budget": settings.engine_budget} if settings.engine_budget else {}
    engine = make_engine(settings.db_url)
    embedder = embedder_for(settings, SqlVectorCache(engine), secret_key=secret_key)
    first_look = FirstLookConfig(settings.first_look) if settings.embedder == "local" and settings.first_look else None
    return Workspace(engine, embedder, reranker=reranker, text_with_parameters=settings.text_with_parameters,
                     jobs=jobs, first_look=first_look, **budget)


def embedder_for(settings: Settings, cache=None, *, environ: Mapping[str, str] | None = None,
                 secret_key: str | None = None):
    """The embedder ``settings`` name (:func:`core.embedding.make_embedder`), with the key the endpoint may
    get (:func:`embedding_key_for`) read from the environment here, never taken from ``settings``. ``cache``:
    the store's vector cache (needed by precomputed vectors)."""
    from core.embedding import make_embedder

    if settings.embedder in ("local", "static"):  # on this machine: no endpoint, no key
        return make_embedder(settings.embedder, settings.embedding_model)
    server = ServerEndpoint.embedding_from_env(environ, secret_key=secret_key)
    base_url = settings.embedding_base_url or None
    if base_url is None and settings.embedder == "openai":
        base_url = server.base_url
    return make_embedder(settings.embedder, settings.embedding_model, base_url=base_url,
                         api_key=embedding_key_for(base_url, server), cache=cache)


def operator_mode(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this server lets its visitors change the server's settings (``TOOLATLAS_OPERATOR=1``)."""
    env = os.environ if environ is None else environ
    return env.get(ENV_OPERATOR, "").strip().lower() in ("1", "true", "yes", "on")


def allowed_overrides(overrides: Mapping[str, Any], *, operator: bool) -> dict[str, Any]:
    """The session overrides that may apply: all of them in operator mode, else the visitor's own."""
    return {k: v for k, v in overrides.items() if operator or k in VISITOR_SETTINGS}


@dataclass(frozen=True)
class ServerEndpoint:
    """The operator's default LLM endpoint. Its key is the server's: kept out of repr and comparisons,
    never shown, and sent only to ``base_url`` (see :func:`api_key_for`)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False, compare=False)

    @property
    def has_key(self) -> bool:
        return bool(self.api_key)

    def llm_config(self, *, replay: bool = False):
        """The run config that selects this endpoint (no key in it)."""
        from core.context import LLMConfig

        return LLMConfig(kind="openai", base_url=self.base_url, model=self.model, replay=replay)

    @classmethod
    def embedding_from_env(cls, environ: Mapping[str, str] | None = None, *,
                           secret_key: str | None = None) -> ServerEndpoint:
        """The operator's embeddings endpoint: ``TOOLATLAS_EMBEDDING_BASE_URL``, else the LLM endpoint of
        :meth:`from_env`, else OpenAI's; its key ``TOOLATLAS_EMBEDDING_API_KEY``, else the LLM endpoint's key
        when the two endpoints are the same (the LLM key never goes to another endpoint)."""
        env = os.environ if environ is None else environ
        llm = cls.from_env(env, secret_key=secret_key)
        base = (env.get(ENV_EMBEDDING_BASE_URL) or "").strip() or (llm.base_url if llm else OPENAI_ENDPOINT)
        key = (env.get(ENV_EMBEDDING_API_KEY) or "").strip() or None
        if key is None and llm is not None:
            key = server_key_for(base, llm)
        return cls(base_url=base, model=(env.get(ENV_EMBEDDING) or "").strip() or DEFAULT_MODEL_ID, api_key=key)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *,
                 secret_key: str | None = None) -> ServerEndpoint | None:
        """``TOOLATLAS_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``, else OpenAI's), ``TOOLATLAS_LLM_MODEL`` and the
        key from ``OPENAI_API_KEY`` (else ``secret_key``, the app's secrets.toml). None when neither a key
        nor an endpoint is configured."""
        env = os.environ if environ is None else environ
        key = (env.get(ENV_API_KEY) or "").strip() or (secret_key or "").strip() or None
        base = (env.get(ENV_LLM_BASE_URL) or "").strip() or (env.get(ENV_OPENAI_BASE_URL) or "").strip() or None
        if key is None and base is None:
            return None
        return cls(base_url=base or OPENAI_ENDPOINT, model=(env.get(ENV_LLM_MODEL) or "").strip() or DEFAULT_LLM_MODEL,
                   api_key=key)


@dataclass(frozen=True)
class LLMChoice:
    """A visitor's LLM choice for their session: the run config, whether they chose the server's endpoint,
    and the key they typed themselves (never the server's)."""

    config: Any  # core.context.LLMConfig
    server_endpoint: bool = False
    api_key: str | None = field(default=None, repr=False, compare=False)


def api_key_for(choice: LLMChoice, server: ServerEndpoint | None) -> str | None:
    """The key a request made for ``choice`` carries.

    The server's key only when the visitor chose the server's endpoint and the config's base URL is that
    endpoint's, character for character (no normalisation: a trailing slash or another scheme is another
    endpoint). Otherwise the key the visitor typed for their own endpoint, or None (no key is sent).
    """
    config = choice.config
    if getattr(config, "kind", "offline") == "offline":
        return None
    if choice.server_endpoint:
        return server_key_for(config.base_url, server)
    return choice.api_key or None


def server_key_for(base_url: str | None, server: ServerEndpoint | None) -> str | None:
    """The one rule for the server's key: it goes to ``base_url`` only when that is the server endpoint's
    base URL, character for character (no normalisation: a trailing slash or another scheme is another
    endpoint); otherwise no key."""
    if server is not None and server.api_key and base_url is not None and base_url == server.base_url:
        return server.api_key
    return None


def embedding_key_for(base_url: str | None, server: ServerEndpoint | None) -> str | None:
    """The key an embeddings request to ``base_url`` carries: the operator's embedding key
    (:meth:`ServerEndpoint.embedding_from_env`) for the operator's embedding endpoint only, else none. An
    endpoint typed on the Settings page (operator mode) that is not that endpoint gets no key."""
    return server_key_for(base_url, server)
