"""Vectors computed elsewhere, imported into the embedding cache and served from it.

``toolatlas import-vectors NAME FILE --model-id ID`` stores one vector per tool of a catalog version (or, with
``--queries SET``, per query of a query set) under (model id, sha256 of the text Tool Atlas embeds for it): the
tool text of the workspace's tool-text setting, or the query's text. Search, maps and runs then use them like
any cached vectors: a workspace whose embedder is ``precomputed`` with that model id never encodes a text.

Query vectors at search time (our definition): a text without an imported vector (a typed-in search, a
pseudo-tool a strategy writes) is embedded by the fallback endpoint when one is configured (an
OpenAI-compatible server serving the same model id: ``TOOLATLAS_EMBEDDING_BASE_URL`` or ``--embedding-base-url``);
without one it is a clear error telling to import the query vectors with ``--queries`` or to name an endpoint.

An import is validated whole before anything is written (count against the keys, known and unique keys, one
dimension that matches the vectors already stored for the model id, no NaN, infinite or all-zero row) and
written in one transaction: on any error nothing is stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.embedding import Embedder, EmbeddingError, Progress, VectorCache, normalize
from core.models import text_hash, tool_text

VECTOR_FORMATS = (".npy", ".parquet")
KEY_COLUMNS = ("key", "id")  # the parquet column naming each row's tool key or query id
VECTOR_COLUMNS = ("vector", "embedding")  # a parquet column of lists; else every other column is one dimension


class PrecomputedEmbedder:
    """Serves the vectors imported for ``model_id`` from ``cache`` (the store). Texts without one go to
    ``fallback`` (an embedder for the same model id) when given, else raise :class:`EmbeddingError`."""

    kind = "precomputed"

    def __init__(self, model_id: str, cache: VectorCache, *, fallback: Embedder | None = None) -> None:
        if not model_id or not isinstance(model_id, str):
            raise ValueError("precomputed vectors need the model id they were imported under")
        if fallback is not None and fallback.model_id != model_id:
            raise ValueError(f"the fallback embedder serves {fallback.model_id!r}, not {model_id!r}")
        self.model_id = model_id
        self.cache = cache
        self.fallback = fallback

    def __repr__(self) -> str:
        return f"PrecomputedEmbedder(model_id={self.model_id!r}, fallback={self.fallback!r})"

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, progress: Progress | None = None) -> np.ndarray:
        texts = list(texts)
        hashes = [text_hash(t) for t in texts]
        found = self.cache.get_many(self.model_id, hashes)
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if missing and self.fallback is None:
            raise EmbeddingError(
                f"{len(missing)} of {len(texts)} texts have no imported vector for model id {self.model_id!r}. "
                "Import tool vectors with `toolatlas import-vectors NAME FILE --model-id ID`, query vectors with "
                "`--queries SET`, or name an OpenAI-compatible endpoint serving this model for other texts "
                "(TOOLATLAS_EMBEDDING_BASE_URL or --embedding-base-url).")
        if missing:
            fresh = self.fallback.encode(list(missing.values()), batch_size=batch_size)  # type: ignore[union-attr]
            found = {**found, **dict(zip(missing, fresh, strict=True))}
        if progress:
            progress(len(texts), len(texts))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        dims = {len(found[h]) for h in hashes}
        if len(dims) > 1:
            raise EmbeddingError(f"model id {self.model_id!r} has vectors of {sorted(dims)} dimensions; "
                                 "the fallback endpoint serves another model than the imported vectors")
        return normalize(np.vstack([found[h] for h in hashes]))

    def check(self) -> tuple[bool, str]:
        count = getattr(self.cache, "count", None)
        stored = count(self.model_id) if count else None
        if not stored:
            return False, (f"no vectors imported for model id {self.model_id!r}: "
                           "use `toolatlas import-vectors NAME FILE --model-id ID`")
        extra = "; other texts go to the fallback endpoint" if self.fallback else "; no fallback endpoint"
        return True, f"{stored:,} vectors imported for {self.model_id}{extra}"


@dataclass(frozen=True)
class VectorImport:
    """What :func:`import_vectors` stored: ``count`` vectors of ``dim`` dimensions for ``target`` ("tools" of
    a catalog version or "queries" of a query set, named by ``name``)."""

    model_id: str
    catalog: str
    target: str
    name: str
    count: int
    dim: int


def read_keys(path: str | Path) -> list[str]:
    """Row keys from a file: a JSON list of strings, or one key per line (blank lines skipped)."""
    path = Path(path)
    text = path.read_text("utf-8")
    if text.lstrip().startswith("["):
        try:
            keys = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not a JSON list of keys ({exc.msg}, line {exc.lineno})") from None
        if not all(isinstance(k, str) for k in keys):
            raise ValueError(f"{path}: every key must be a string")
        return keys
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_vector_file(path: str | Path) -> tuple[np.ndarray, list[str] | None]:
    """The matrix in a ``.npy`` (2-D numbers; never pickled objects) or ``.parquet`` file, and the row keys
    when the parquet file has a ``key`` or ``id`` column."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in VECTOR_FORMATS:
        raise ValueError(f"{path.name}: vectors must be a {' or '.join(VECTOR_FORMATS)} file")
    if not path.is_file():
        raise FileNotFoundError(f"vector file not found: {path}")
    if suffix == ".npy":
        try:
            raw = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"{path.name}: not a plain numeric .npy array ({exc})") from None
        return _matrix(raw, path.name), None
    return _read_parquet(path)


def _read_parquet(path: Path) -> tuple[np.ndarray, list[str] | None]:
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - any reader failure is the file's fault
        raise ValueError(f"{path.name}: not a readable parquet file ({type(exc).__name__})") from None
    key_col = next((c for c in KEY_COLUMNS if c in frame.columns), None)
    keys = None
    if key_col is not None:
        keys = [str(k) for k in frame[key_col].tolist()]
        frame = frame.drop(columns=[key_col])
    vec_col = next((c for c in VECTOR_COLUMNS if c in frame.columns), None)
    if vec_col is not None:
        cells = frame[vec_col].tolist()
        lengths = {len(c) if hasattr(c, "__len__") else -1 for c in cells}
        if len(lengths) > 1 or -1 in lengths:
            raise ValueError(f"{path.name}: the {vec_col!r} column's rows are not lists of one length "
                             f"(lengths: {sorted(lengths)[:5]})")
        raw: Any = np.array([np.asarray(c) for c in cells]) if cells else np.zeros((0, 0))
    elif len(frame.columns):
        raw = frame.to_numpy()
    else:
        raise ValueError(f"{path.name}: no vectors: give a {' or '.join(VECTOR_COLUMNS)} column of lists, "
                         "or one numeric column per dimension")
    return _matrix(raw, path.name), keys


def _matrix(raw: Any, name: str) -> np.ndarray:
    raw = np.asarray(raw)
    if raw.ndim != 2:
        raise ValueError(f"{name}: vectors must be a 2-D matrix (one row per key), not {raw.ndim}-D")
    if raw.dtype.kind not in "fiu":
        raise ValueError(f"{name}: vectors must be numbers, not {raw.dtype}")
    if raw.shape[0] == 0 or raw.shape[1] == 0:
        raise ValueError(f"{name}: no vectors (shape {raw.shape})")
    return raw.astype(np.float32)


def validate_rows(matrix: np.ndarray, keys: Sequence[str], *, name: str, stored_dim: int | None) -> np.ndarray:
    """The rows, L2-normalised, after the checks every import passes: one row per key, one dimension (that of
    the model id's stored vectors, when there are some), every value finite, no all-zero row."""
    if matrix.shape[0] != len(keys):
        raise ValueError(f"{name}: {matrix.shape[0]} vectors for {len(keys)} keys; the counts must match")
    if stored_dim is not None and matrix.shape[1] != stored_dim:
        raise ValueError(f"{name}: vectors have {matrix.shape[1]} dimensions, but the vectors already stored "
                         f"for this model id have {stored_dim}")
    bad = ~np.isfinite(matrix).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(f"{name}: {len(rows)} vectors hold NaN or infinite values (first: row {rows[0]}, key "
                         f"{keys[rows[0]]!r})")
    zero = np.flatnonzero(~matrix.any(axis=1))
    if len(zero):
        raise ValueError(f"{name}: {len(zero)} vectors are all zeros (first: row {zero[0]}, key {keys[zero[0]]!r})")
    return normalize(matrix)


def import_vectors(ws, catalog: str, path: str | Path, *, model_id: str, keys_path: str | Path | None = None,
                   query_set: str | None = None, version: int | None = None) -> VectorImport:
    """Validate the vectors in ``path`` and store them for ``model_id``: one per tool of ``catalog``'s version
    (the latest unless ``version``), or with ``query_set`` one per query of that set. Rows are named by
    ``keys_path`` (see :func:`read_keys`), by the parquet file's key column, else they follow the stored order
    of the tools or queries. Every tool of the version must end up with a vector (from this file or stored
    before); a query set may get vectors for some of its queries. All or nothing: an error stores no vector."""
    from storage.catalogs import get_version

    if not model_id or not model_id.strip():
        raise ValueError("--model-id must name the model the vectors were computed with")
    model_id = model_id.strip()
    path = Path(path)
    matrix, file_keys = read_vector_file(path)
    if keys_path is not None and file_keys is not None:
        raise ValueError(f"{path.name} has its own key column; leave out --keys")
    keys = read_keys(keys_path) if keys_path is not None else file_keys
    if query_set is not None:
        sets = {s.name: s for s in ws.query_sets(catalog)}
        if query_set not in sets:
            raise ValueError(f"catalog {catalog!r} has no query set {query_set!r}; it has: {', '.join(sets) or 'none'}")
        texts = {q.id: q.text for q in ws.queries(sets[query_set].id)}
        target, name, what = "queries", query_set, "query id"
    else:
        info = get_version(ws.db, catalog, version)
        texts = {t.key: tool_text(t, with_parameters=ws.text_with_parameters) for t in ws.tools(info.id)}
        target, name, what = "tools", f"{catalog} v{info.number}", "tool key"
    if keys is None:
        if matrix.shape[0] != len(texts):
            raise ValueError(f"{path.name}: {matrix.shape[0]} vectors for the {len(texts)} {target} of {name}; "
                             "the counts must match (or name the rows with --keys)")
        keys = list(texts)
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            raise ValueError(f"{what} {key!r} is listed twice")
        seen.add(key)
    unknown = [k for k in keys if k not in texts]
    if unknown:
        raise ValueError(f"{len(unknown)} keys are not a {what} of {name} (first: {unknown[0]!r})")
    hashes = {k: text_hash(texts[k]) for k in keys}
    stored = ws.cache.get_many(model_id, list(dict.fromkeys(text_hash(t) for t in texts.values())))
    rows = validate_rows(matrix, keys, name=path.name, stored_dim=ws.cache.dim(model_id))
    uncovered = [k for k, t in texts.items() if k not in seen and text_hash(t) not in stored]
    if uncovered and target == "tools":  # the index needs every tool; a query set may get some of its queries
        raise ValueError(f"{len(uncovered)} {target} of {name} would have no vector for {model_id!r} "
                         f"(first: {uncovered[0]!r}); give one row for each")
    vectors: dict[str, np.ndarray] = {}
    for key, row in zip(keys, rows, strict=True):
        h = hashes[key]
        if h in vectors and not np.allclose(vectors[h], row, atol=1e-5):
            raise ValueError(f"two {target} with the same text got different vectors ({key!r} is one)")
        vectors[h] = row
    ws.cache.replace_many(model_id, vectors)
    return VectorImport(model_id, catalog, target, name, len(keys), int(rows.shape[1]))
