"""Optional second-stage reranking with a cross-encoder.

No cross-encoder ships inside a PyPI package, so the default is no reranker; a user
with a local model folder (or network access) configures one by id or path.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from core.embedding import prepare_local_load

TOP_M = 50  # ToolScope §4.1 reranks the top-50 first-stage candidates


class Reranker(Protocol):
    model_id: str

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray: ...


class CrossEncoderReranker:
    def __init__(self, model_id: str, *, device: str = "cpu") -> None:
        self.model_id = model_id
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                local = prepare_local_load(self.model_id)
                from sentence_transformers import CrossEncoder

                try:
                    self._model = CrossEncoder(self.model_id, device=self.device, local_files_only=local)
                except Exception as exc:
                    raise ValueError(f"cannot load reranker {self.model_id!r}: {exc}") from exc
        return self._model

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros(0, dtype=np.float32)
        model = self._load()
        return np.asarray(model.predict([(query, t) for t in texts], show_progress_bar=False), dtype=np.float32)
