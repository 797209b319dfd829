"""A catalog map's coordinates, computed the first time as a background job (then cached), with its progress."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from components.jobs import await_job
from core.projection import default_params

LABELS = {"umap": "UMAP", "tsne": "t-SNE", "pca": "PCA"}


def map_coords(ws, version_id: int, method: str, params: dict[str, Any] | None = None) -> np.ndarray:
    """The map's coordinates: read from the store when cached, else computed as a job the page awaits. During a
    version's first look (``core.first_look``) the map is PCA of the static vectors, and a caption says so."""
    if ws.first_look_engine(version_id) is not None:
        coords = ws.first_look_projection(version_id)
        if ws.first_look_engine(version_id) is not None:  # else the full engine came in meanwhile: the page reruns
            st.caption(f"First look: a PCA map of static embeddings; the {LABELS[method]} map of the full model "
                       "follows when its index is built.")
            return coords
    if ws.has_projection(version_id, method, params):
        return ws.projection(version_id, method, params)
    return await_job(ws.start_projection(version_id, method, params,
                                         label=f"Computing the {LABELS[method]} map (cached after the first time)…"))


def map_params(method: str, key: str) -> dict[str, Any]:
    """Sidebar controls for the chosen method's parameters (defaults: ``core.projection.default_params``).
    Each setting is its own cached map, so going back to an earlier setting is instant."""
    defaults = default_params(method)
    if method == "pca":
        st.caption("PCA has no parameters: the two directions of largest variance.")
        return {}
    params: dict[str, Any] = {}
    if method == "umap":
        params["n_neighbors"] = st.slider(
            "Neighbours (n_neighbors)", 2, 100, int(defaults["n_neighbors"]), key=f"{key}_umap_nn",
            help="Small values keep local detail (tight groups of look-alikes); large values keep the global layout.")
        params["min_dist"] = st.slider(
            "Minimum distance (min_dist)", 0.0, 0.99, float(defaults["min_dist"]), 0.01, key=f"{key}_umap_md",
            help="How tightly UMAP may pack points: small values make duplicates pile up on one spot.")
    else:
        params["perplexity"] = float(st.slider(
            "Perplexity", 2, 100, int(defaults["perplexity"]), key=f"{key}_tsne_perp",
            help="About how many neighbours each point pays attention to (clamped below a third of the tools)."))
    params["seed"] = int(st.number_input("Seed", 0, 10_000, int(defaults["seed"]), key=f"{key}_{method}_seed",
                                         help="Another seed gives another layout of the same neighbourhoods: "
                                              "a group that holds across seeds is real."))
    return params
