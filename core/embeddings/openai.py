"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` server (OpenAI, vLLM, TEI, Ollama, llama.cpp).

The transport is the LLM layer's: one :class:`core.llm.openai_backend.OpenAIChatBackend` per embedder gives the
client, the key handling (the key given, never one read from the environment; kept out of reprs and errors)
and the retry policy (backoff on 429, 5xx, timeouts and refused connections, honouring ``Retry-After``).
Batches of texts run on the project's bounded pool (:func:`core.concurrency.run_stage`): the first batch that
fails for good stops the rest, and the call raises :class:`core.embedding.EmbeddingError`, so
:func:`core.embedding.encode_cached` stores nothing from a failed call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from core.concurrency import run_stage
from core.embedding import EmbeddingError, Progress, normalize
from core.llm.base import LLMError
from core.llm.openai_backend import OPENAI_BASE_URL, OpenAIChatBackend


def _positive_int(name: str, value: Any, *, none_ok: bool = False) -> int | None:
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, not {value!r}")
    return value


class OpenAIEmbedder:
    """``encode`` through an OpenAI-compatible embeddings endpoint.

    ``model_id`` is the model name at the endpoint and the cache key of its vectors. ``dim``: the dimension
    every vector must have (None: whatever the first answer has; later answers must agree). ``concurrency``
    bounds the requests in flight; ``batch_size`` (per call, default 64) the texts per request.
    """

    kind = "openai"

    def __init__(self, model_id: str, base_url: str | None = None, api_key: str | None = None, *,
                 dim: int | None = None, concurrency: int = 4, timeout: float = 60.0, max_retries: int = 4,
                 backoff: float = 0.5) -> None:
        if not model_id or not isinstance(model_id, str):
            raise ValueError("an OpenAI-compatible embedder needs the model name at the endpoint")
        self.model_id = model_id
        self.base_url = base_url or OPENAI_BASE_URL
        self.expected_dim = _positive_int("dim", dim, none_ok=True)
        self.concurrency = _positive_int("concurrency", concurrency)
        self._backend = OpenAIChatBackend(self.base_url, model_id, api_key, timeout=timeout,
                                          max_retries=max_retries, backoff=backoff, concurrency=self.concurrency)
        self._dim: int | None = self.expected_dim
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model_id={self.model_id!r}, base_url={self.base_url!r})"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.encode(["dimension probe"])
        return int(self._dim)  # type: ignore[arg-type]

    def _fail(self, what: str) -> EmbeddingError:
        return EmbeddingError(f"embedding endpoint {self.base_url} (model {self.model_id!r}): {what}")

    def _request(self, batch: Sequence[str]) -> np.ndarray:
        try:
            resp = self._backend.call(lambda client: client.embeddings.create(
                model=self.model_id, input=list(batch), encoding_format="float"))
        except LLMError as exc:
            raise self._fail(f"{type(exc).__name__}: {exc}") from None
        return self._read(resp, len(batch))

    def _read(self, resp: Any, n: int) -> np.ndarray:
        data = getattr(resp, "data", None)
        if not isinstance(data, list) or len(data) != n:
            got = len(data) if isinstance(data, list) else "no"
            raise self._fail(f"asked for {n} vectors, the answer has {got}")
        rows: list[Any] = [None] * n
        for position, item in enumerate(data):
            index = getattr(item, "index", None)
            index = position if index is None else index
            if not isinstance(index, int) or not 0 <= index < n or rows[index] is not None:
                raise self._fail(f"the answer's vector indices are not 0..{n - 1}")
            rows[index] = getattr(item, "embedding", None)
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise self._fail("the answer's vectors are not lists of numbers of one length") from None
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise self._fail("the answer's vectors are not lists of numbers of one length")
        with self._lock:
            if self._dim is None:
                self._dim = int(matrix.shape[1])
            if matrix.shape[1] != self._dim:
                said = "expected" if self.expected_dim else "earlier answers had"
                raise self._fail(f"vectors have {matrix.shape[1]} dimensions, {said} {self._dim}")
        if not np.isfinite(matrix).all():
            raise self._fail("the answer holds NaN or infinite values")
        return normalize(matrix)

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: Progress | None = None) -> np.ndarray:
        texts = list(texts)
        _positive_int("batch_size", batch_size)
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        batches = [(start, texts[start:start + batch_size]) for start in range(0, len(texts), batch_size)]
        done = 0

        def saved(batch: tuple[int, list[str]], _vectors: np.ndarray) -> None:
            nonlocal done  # run_stage calls save on the caller's thread, one at a time
            done += len(batch[1])
            if progress:
                progress(done, len(texts))

        results = run_stage(batches, lambda b: self._request(b[1]), key=lambda b: b[0], save=saved,
                            workers=self.concurrency, name="embeddings")
        return np.vstack([results[start] for start, _ in batches])

    def check(self) -> tuple[bool, str]:
        """Reachability for the Settings page: one text embedded."""
        try:
            vec = self.encode(["reachability check"])
        except EmbeddingError as exc:
            return False, str(exc)
        return True, f"reachable; {self.model_id} answers with {vec.shape[1]}-dimensional vectors"
