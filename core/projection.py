"""2-D maps of tool embeddings (UMAP, t-SNE, PCA) and placement of new texts onto a map.

Coordinates are centred but not rescaled, so maps computed with the same method and
parameters keep comparable axes (before/after merge views rely on that).
"""

from __future__ import annotations

import json
import re
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

METHODS = ("umap", "tsne", "pca")
Progress = Callable[[float, str], None]


def default_params(method: str) -> dict[str, Any]:
    if method == "umap":
        # n_epochs None: UMAP's own choice (500 layout epochs up to 10,000 tools, 200 above); a number trades layout
        # quality for time and is a different map (its own cache key).
        return {"n_neighbors": 15, "min_dist": 0.1, "metric": "cosine", "seed": 0, "n_epochs": None}
    if method == "tsne":
        return {"perplexity": 30.0, "metric": "cosine", "init": "pca", "seed": 0}
    if method == "pca":
        return {"seed": 0}
    raise ValueError(f"unknown projection method {method!r}; valid methods: {', '.join(METHODS)}")


def resolve_params(method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    resolved = default_params(method)
    unknown = sorted(set(params or {}) - set(resolved))
    if unknown:
        raise ValueError(f"{method} has no parameter {unknown[0]!r}; valid parameters: {', '.join(sorted(resolved))}")
    resolved.update(params or {})
    epochs = resolved.get("n_epochs")
    if epochs is not None and (isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1):
        raise ValueError(f"n_epochs must be a whole number of at least 1 (or unset for UMAP's own), got {epochs!r}")
    return resolved


def params_key(method: str, params: Mapping[str, Any] | None = None) -> str:
    """A stable text key of the method and its resolved parameters (the projection cache key). Parameters left at
    a None default are not in it, so adding such a parameter keeps the keys of maps already stored."""
    resolved = {k: v for k, v in resolve_params(method, params).items() if v is not None}
    return json.dumps({"method": method, **resolved}, sort_keys=True)


@dataclass(frozen=True, eq=False)
class Projection:
    method: str
    params: tuple[tuple[str, Any], ...]
    coords: np.ndarray


def project(vectors: np.ndarray, method: str, params: Mapping[str, Any] | None = None, *,
            progress: Progress | None = None) -> tuple[Projection, Any | None]:
    """Project ``vectors`` to 2-D. Returns the projection and the fitted model where it can place new
    points (PCA's ``transform``); None for one point, t-SNE and UMAP (fitted on our own neighbours, UMAP
    cannot transform new points, which is why maps place new texts with ``place_texts``).

    Tiny inputs are handled: one point maps to the origin; three or fewer use PCA; UMAP's
    neighbour count and t-SNE's perplexity are clamped to what the point count allows.
    """
    p = resolve_params(method, params)
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError("projection needs a non-empty 2-D matrix of vectors")
    n = len(x)
    key = tuple(sorted(p.items()))
    if progress:
        progress(0.0, f"{method.upper()} of {n:,} tools")
    model: Any | None = None
    if n == 1:
        coords = np.zeros((1, 2), dtype=np.float32)
    elif n <= 3 or method == "pca":
        from sklearn.decomposition import PCA

        model = PCA(n_components=min(2, n, x.shape[1]), random_state=p["seed"])
        coords = model.fit_transform(x)
        if coords.shape[1] < 2:
            coords = np.hstack([coords, np.zeros((n, 2 - coords.shape[1]))])
    elif method == "umap":
        coords = _umap(x, p, progress)
    else:
        from sklearn.manifold import TSNE

        perplexity = max(1.0, min(float(p["perplexity"]), (n - 1) / 3))
        coords = TSNE(n_components=2, perplexity=perplexity, metric=p["metric"], init=p["init"],
                      random_state=int(p["seed"])).fit_transform(x)
    coords = np.asarray(coords, dtype=np.float32)
    coords = coords - coords.mean(axis=0, keepdims=True)
    if progress:
        progress(1.0, "done")
    return Projection(method, key, coords), model


# Below this many points UMAP finds neighbours itself; 0: FAISS exact neighbours at every size. UMAP's own small-data
# path (under 4,096 points) fills a full distance matrix through a Python-called metric, ~16 s for 4,076 tools; its
# large-data path is NN-descent. Benches set this to compare UMAP's own neighbours with ours.
UMAP_OWN_KNN_BELOW = 0
KNN_SHARE = 0.3  # progress shares measured on 40k tools: neighbours ~30 %, graph and spectral ~20 %, epochs ~50 %


def _umap(x: np.ndarray, p: Mapping[str, Any], progress: Progress | None) -> np.ndarray:
    """UMAP (McInnes, Healy & Melville 2018, arXiv:1802.03426) of ``x`` with umap-learn, on exact cosine
    neighbours from :func:`cosine_knn` (the same neighbours UMAP's exact small-data path finds, ties aside)."""
    n = len(x)
    n_neighbors = max(2, min(int(p["n_neighbors"]), n - 1))
    knn = None
    if n >= UMAP_OWN_KNN_BELOW and p["metric"] == "cosine":
        knn = cosine_knn(x, n_neighbors, progress=progress)
    _cache_umap_kernels()
    import umap

    epochs = _EpochStream(progress) if progress else None
    if progress:
        progress(_EpochStream.GRAPH_SHARE, f"UMAP of {n:,} tools: neighbour graph and spectral layout")
    model = umap.UMAP(n_components=2, n_neighbors=n_neighbors, min_dist=float(p["min_dist"]), metric=p["metric"],
                      # n_jobs=1: a seed makes UMAP run single-threaded anyway (it warns so when told otherwise)
                      random_state=int(p["seed"]), n_jobs=1, n_epochs=p["n_epochs"],
                      init="spectral" if n > 10 else "random",
                      precomputed_knn=knn if knn is not None else (None, None, None),
                      tqdm_kwds=epochs.tqdm_kwds() if epochs else None)
    # Precomputed neighbours make model.transform unavailable (UMAP warns); place_texts never uses it. A process-wide
    # filter (added once: Python drops a duplicate), since warnings.catch_warnings is not thread-safe.
    warnings.filterwarnings("ignore", message=r"precomputed_knn\[2\]", category=UserWarning)
    coords = model.fit_transform(x)
    if epochs:
        epochs.reraise()
    return coords


# umap-learn functions that numba compiles on every first call in a process (umap does not ask numba to cache them):
# together ~12 s of a cold map on 2 cores, more than the layout itself for a few thousand tools.
_UNCACHED_UMAP_KERNELS = (("umap.umap_", "smooth_knn_dist"), ("umap.umap_", "compute_membership_strengths"),
                          ("umap.layouts", "_nb_optimize_layout_euclidean_single_epoch"))
_kernels_lock = threading.Lock()
_kernels_cached = False


def _cache_umap_kernels() -> None:
    """Recompile umap-learn's uncached numba kernels with numba's on-disk cache, once per process.

    The same Python functions with the same compile options, only ``cache=True`` added: numba then stores the
    machine code beside umap's sources (or in its user-wide cache folder when that is read-only) and a later
    process loads it in well under a second instead of compiling for ~12 s. The map is bit-for-bit the same
    (tests/core/test_projection.py). A umap-learn without these names, or a machine where numba has no writable
    cache folder, is left as it is.
    """
    global _kernels_cached
    with _kernels_lock:
        if _kernels_cached:
            return
        import importlib

        import numba

        for module_name, name in _UNCACHED_UMAP_KERNELS:
            module = importlib.import_module(module_name)
            kernel = getattr(module, name, None)
            options = dict(getattr(kernel, "targetoptions", None) or {})
            if not hasattr(kernel, "py_func") or options.get("cache"):
                continue
            options.pop("nopython", None)
            try:
                cached = numba.njit(cache=True, locals=dict(kernel.locals), **options)(kernel.py_func)
            except RuntimeError:  # numba finds no writable cache folder: keep compiling in each process
                continue
            setattr(module, name, cached)
        _kernels_cached = True


def cosine_knn(vectors: np.ndarray, k: int, *, block: int = 4096,
               progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest neighbours by cosine distance, each point first in its own row, as UMAP's
    ``precomputed_knn`` expects.

    Above a few thousand points UMAP finds neighbours with NN-descent, whose numba compilation alone
    takes ~40 s in a fresh process and which reports no progress; a FAISS inner-product search over
    unit vectors is exact, reports per block and halves a cold 40k-tool map (bench/bench_projection.py).
    """
    import faiss

    x = _normalise(vectors)
    n = len(x)
    k = max(1, min(int(k), n))
    index = faiss.IndexFlatIP(x.shape[1])
    index.add(x)
    idx = np.empty((n, k), dtype=np.int64)
    dist = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, block):
        sims, found = index.search(x[start : start + block], k)
        rows = np.arange(start, start + len(found))
        # Duplicate texts tie with the point itself; move self to the front, keep the rest in order.
        order = np.argsort(found == rows[:, None], axis=1, kind="stable")
        others = np.take_along_axis(found, order, axis=1)[:, : k - 1]
        others_sim = np.take_along_axis(sims, order, axis=1)[:, : k - 1]
        idx[start : start + len(found)] = np.hstack([rows[:, None], others])
        dist[start : start + len(found)] = np.hstack([np.zeros((len(found), 1), np.float32),
                                                      np.clip(1.0 - others_sim, 0.0, 2.0)])
        if progress:
            done = start + len(found)
            progress(0.02 + (KNN_SHARE - 0.02) * done / n, f"UMAP: nearest neighbours {done:,}/{n:,}")
    return idx, dist


class _EpochStream:
    """Turns UMAP's layout progress bar into ``progress`` calls.

    UMAP reports nothing until its layout epochs, which it counts with tqdm; pointing that bar (with a
    bare ``n/total`` format) at this stream is the only hook it offers that involves no global stdout
    redirection, which would capture other sessions' output in a shared server. The neighbour graph
    before the epochs is reported as one stage, so the share jumps to ``EPOCH_SHARE`` when epochs start.
    """

    GRAPH_SHARE = KNN_SHARE
    EPOCH_SHARE = 0.5
    _COUNT = re.compile(r"(\d+)/(\d+)")

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.last = -1
        self.interrupted: BaseException | None = None

    def tqdm_kwds(self) -> dict[str, Any]:
        return {"disable": False, "file": self, "bar_format": "{n}/{total}", "mininterval": 0.25,
                "desc": "", "leave": False}

    def write(self, text: str) -> int:
        found = self._COUNT.findall(text)
        if found and self.interrupted is None:
            done, total = (int(v) for v in found[-1])
            if total and done != self.last:
                self.last = done
                share = self.EPOCH_SHARE + (1 - self.EPOCH_SHARE) * done / total
                try:
                    self.progress(min(share, 0.99), f"UMAP layout: epoch {done}/{total}")
                except BaseException as err:  # noqa: BLE001 - kept and raised by reraise()
                    # tqdm writes while holding its process-wide lock and does not release it when the write
                    # raises (tqdm.std.tqdm.refresh has no try/finally). Streamlit stops or reruns a script by
                    # raising from its next element update, so letting that escape here left the lock held and
                    # every later map (any tqdm bar, in any session) hung. The layout finishes unreported instead.
                    self.interrupted = err
        return len(text)

    def reraise(self) -> None:
        """Raise what the progress callback raised during the layout, now that tqdm has let go of its lock."""
        if self.interrupted is not None:
            raise self.interrupted

    def flush(self) -> None:
        pass


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.atleast_2d(np.asarray(x, dtype=np.float32))
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


def place_texts(new_vectors: np.ndarray, base_vectors: np.ndarray, base_coords: np.ndarray, *,
                model: Any | None = None, k: int = 5, temperature: float = 0.05,
                center: np.ndarray | None = None) -> np.ndarray:
    """Put new points (e.g. pseudo-tool descriptions) on an existing map.

    With a fitted model that has ``transform`` (UMAP, PCA) it is used; otherwise each new
    point lands at the softmax-weighted mean of its k most similar tools' coordinates. The
    low temperature makes a near-copy of a tool sit on that tool rather than between neighbours.
    """
    new = _normalise(new_vectors)
    if model is not None and hasattr(model, "transform"):
        out = np.asarray(model.transform(new), dtype=np.float32)
        if center is not None:
            out = out - center
        return out
    base = _normalise(base_vectors)
    sims = new @ base.T
    k = max(1, min(k, base.shape[0]))
    idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    top = np.take_along_axis(sims, idx, axis=1)
    w = np.exp((top - top.max(axis=1, keepdims=True)) / temperature)
    w /= w.sum(axis=1, keepdims=True)
    return np.einsum("nk,nkd->nd", w, np.asarray(base_coords, dtype=np.float32)[idx]).astype(np.float32)


def knn_edges(vectors: np.ndarray, threshold: float, k: int = 10, block: int = 2048) -> list[tuple[int, int, float]]:
    """Undirected pairs (i < j) among each point's k nearest neighbours with cosine ≥ threshold,
    computed in row blocks so 40k points never need an n×n matrix."""
    x = _normalise(vectors)
    n = len(x)
    k = min(k, n - 1)
    if k < 1:
        return []
    edges: dict[tuple[int, int], float] = {}
    for start in range(0, n, block):
        sims = x[start : start + block] @ x.T
        rows = np.arange(sims.shape[0])
        sims[rows, rows + start] = -np.inf
        idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for r, cols in enumerate(idx):
            i = start + r
            for j in cols:
                s = float(sims[r, j])
                if s >= threshold:
                    a, b = (i, int(j)) if i < j else (int(j), i)
                    edges[(a, b)] = s
    return sorted((a, b, s) for (a, b), s in edges.items())
