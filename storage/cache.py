"""Embedding and projection caches.

Vectors are keyed by (model id, sha256 of the embedded text), so an unchanged tool is
never encoded twice, whichever catalog or version it belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sqlalchemy import delete, insert, or_
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.db import insert_ignoring_duplicates
from storage.tables import EmbeddingCacheRow, ProjectionRow, utcnow

_CHUNK = 500  # keeps IN (...) lists well under SQLite's bound-parameter limit


class SqlVectorCache:
    """The store-backed implementation of :class:`core.embedding.VectorCache`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with Session(self.engine) as session:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start : start + _CHUNK]
                rows = session.exec(
                    select(EmbeddingCacheRow.text_hash, EmbeddingCacheRow.vector).where(
                        EmbeddingCacheRow.model_id == model_id, col(EmbeddingCacheRow.text_hash).in_(chunk)
                    )
                ).all()
                for text_hash, blob in rows:
                    found[text_hash] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        if not vectors:
            return
        rows = [
            {
                "model_id": model_id,
                "text_hash": h,
                "dim": int(v.shape[0]),
                "vector": np.ascontiguousarray(v, dtype=np.float32).tobytes(),
                "created_at": utcnow(),
            }
            for h, v in vectors.items()
        ]
        with self.engine.begin() as conn:
            for start in range(0, len(rows), _CHUNK):
                # Two processes may encode the same text at once; the first write wins.
                insert_ignoring_duplicates(conn, EmbeddingCacheRow.__table__, rows[start : start + _CHUNK])

    def replace_many(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store ``vectors`` for ``model_id``, replacing any stored for the same texts, in one transaction
        (imported vectors: a corrected file must win over the first one; all or nothing). Maps made from the
        replaced vectors are dropped with them."""
        if not vectors:
            return
        hashes = list(vectors)
        rows = [{"model_id": model_id, "text_hash": h, "dim": int(v.shape[0]),
                 "vector": np.ascontiguousarray(v, dtype=np.float32).tobytes(), "created_at": utcnow()}
                for h, v in vectors.items()]
        table = EmbeddingCacheRow.__table__
        with self.engine.begin() as conn:
            replaced = 0
            for start in range(0, len(hashes), _CHUNK):
                replaced += conn.execute(delete(table).where(
                    table.c.model_id == model_id, table.c.text_hash.in_(hashes[start : start + _CHUNK]))).rowcount
            for start in range(0, len(rows), _CHUNK):
                conn.execute(insert(table), rows[start : start + _CHUNK])
            if replaced:  # a map's model id is the vector space: the model id, or it with a tool-text suffix
                maps = ProjectionRow.__table__
                conn.execute(delete(maps).where(or_(maps.c.model_id == model_id,
                                                    maps.c.model_id.startswith(f"{model_id} [", autoescape=True))))

    def dim(self, model_id: str) -> int | None:
        """The dimension of the vectors stored for ``model_id`` (None when there are none)."""
        with Session(self.engine) as session:
            return session.exec(select(EmbeddingCacheRow.dim).where(EmbeddingCacheRow.model_id == model_id)
                                .limit(1)).first()

    def count(self, model_id: str | None = None) -> int:
        from sqlmodel import func

        with Session(self.engine) as session:
            stmt = select(func.count()).select_from(EmbeddingCacheRow)
            if model_id:
                stmt = stmt.where(EmbeddingCacheRow.model_id == model_id)
            return int(session.exec(stmt).one())


def _projection_row(session: Session, version_id: int, model_id: str, params_key: str) -> ProjectionRow | None:
    return session.exec(
        select(ProjectionRow).where(
            ProjectionRow.version_id == version_id,
            ProjectionRow.model_id == model_id,
            ProjectionRow.params_key == params_key,
        )
    ).first()


def get_projection(engine: Engine, version_id: int, model_id: str, params_key: str) -> np.ndarray | None:
    with Session(engine) as session:
        row = _projection_row(session, version_id, model_id, params_key)
        if row is None:
            return None
        return np.frombuffer(row.coords, dtype=np.float32).reshape(row.n_points, 2).copy()


def put_projection(
    engine: Engine, version_id: int, model_id: str, method: str, params_key: str, coords: np.ndarray, seconds: float = 0.0
) -> None:
    """Store a projection once. Two processes (the app and a CLI run) computing the same one both succeed:
    the insert skips a row whose key already exists instead of failing on the unique constraint."""
    from storage.db import insert_ignoring_duplicates

    coords = np.ascontiguousarray(coords, dtype=np.float32)
    row = {"version_id": version_id, "model_id": model_id, "method": method, "params_key": params_key,
           "n_points": int(coords.shape[0]), "coords": coords.tobytes(), "seconds": seconds, "created_at": utcnow()}
    with engine.begin() as conn:
        insert_ignoring_duplicates(conn, ProjectionRow.__table__, [row])


