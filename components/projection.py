"""A catalog map's coordinates, with a progress bar the first time they are computed (then cached)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core.projection import params_key
from storage.cache import get_projection

LABELS = {"umap": "UMAP", "tsne": "t-SNE", "pca": "PCA"}


def map_coords(ws, version_id: int, method: str) -> np.ndarray:
    if get_projection(ws.db, version_id, ws.embedder.model_id, params_key(method)) is not None:
        return ws.projection(version_id, method)
    bar = st.progress(0.0, text=f"Computing the {LABELS[method]} map (cached after the first time)…")
    try:
        return ws.projection(version_id, method,
                             progress=lambda share, label: bar.progress(min(max(share, 0.0), 1.0), text=label))
    finally:
        bar.empty()
