"""Optional second-stage reranking with a cross-encoder.

No cross-encoder ships inside a PyPI package, so the default is no reranker; a user
with a local model folder (or network access) configures one by id or path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from core.embedding import LazyModel

TOP_M = 50  # ToolScope §4.1 reranks the top-50 first-stage candidates


class Reranker(Protocol):
    model_id: str

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray: ...


class CrossEncoderReranker(LazyModel):
    kind = "reranker"

    def _build(self, path: str, local: bool):
        from sentence_transformers import CrossEncoder

        return CrossEncoder(path, device=self.device, local_files_only=local)

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros(0, dtype=np.float32)
        model = self._load()
        return np.asarray(model.predict([(query, t) for t in texts], show_progress_bar=False), dtype=np.float32)
