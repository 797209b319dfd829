"""SQLModel tables.

JSON payloads (the ``*_json`` columns) use SQLAlchemy's ``JSON`` type: SQLite stores it as text, PostgreSQL
as ``json`` (the exact text, so key order and every string survive; see :mod:`storage.schema` for why not
``jsonb``). Values go in and come out as Python objects; :func:`storage.db.json_text` is how they are written.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class Catalog(SQLModel, table=True):
    __tablename__ = "catalog"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=200)
    source: str = Field(default="", max_length=500)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utcnow)


class CatalogVersion(SQLModel, table=True):
    __tablename__ = "catalog_version"
    __table_args__ = (UniqueConstraint("catalog_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    catalog_id: int = Field(foreign_key="catalog.id", index=True)
    number: int
    label: str = Field(default="", max_length=200)
    # sha256 over the sorted tool contents; importing identical content reuses the version.
    content_hash: str = Field(index=True, max_length=64)
    n_tools: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class ToolRow(SQLModel, table=True):
    __tablename__ = "tool"
    __table_args__ = (UniqueConstraint("version_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    version_id: int = Field(foreign_key="catalog_version.id", index=True)
    position: int
    key: str = Field(max_length=500)
    name: str = Field(max_length=500)
    description: str = Field(sa_column=Column(Text, nullable=False))
    parameters_json: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    category: str = Field(default="", max_length=500)
    source: str = Field(default="", max_length=500)
    extra_json: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    content_hash: str = Field(max_length=64)


class McpServerRow(SQLModel, table=True):
    """An MCP server registered for a catalog by the operator's ``toolatlas import-mcp`` command line.

    The only place a launch command is stored: importers of files never write here, and executors read
    servers from here, never from a tool's free ``extra`` fields."""

    __tablename__ = "mcp_server"
    __table_args__ = (UniqueConstraint("catalog_id", "launch_hash"),)
    id: int | None = Field(default=None, primary_key=True)
    catalog_id: int = Field(foreign_key="catalog.id", index=True)
    command_json: list[str] = Field(sa_column=Column(JSON, nullable=False))
    cwd: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    launch_hash: str = Field(max_length=64)  # sha256 of (command, cwd): one row per distinct launch
    created_at: datetime = Field(default_factory=utcnow)


class QuerySet(SQLModel, table=True):
    __tablename__ = "query_set"
    __table_args__ = (UniqueConstraint("catalog_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    catalog_id: int = Field(foreign_key="catalog.id", index=True)
    name: str = Field(max_length=200)
    content_hash: str = Field(index=True, max_length=64)
    n_queries: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class QueryRow(SQLModel, table=True):
    __tablename__ = "query"
    __table_args__ = (UniqueConstraint("query_set_id", "qid"),)
    id: int | None = Field(default=None, primary_key=True)
    query_set_id: int = Field(foreign_key="query_set.id", index=True)
    position: int
    qid: str = Field(max_length=500)
    text: str = Field(sa_column=Column(Text, nullable=False))
    gold_json: list[str] = Field(sa_column=Column(JSON, nullable=False))
    split: str = Field(default="", max_length=200)
    # gold calls with arguments (core.models.GoldCall.to_json each; [] when the source has none; schema 4)
    gold_calls_json: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=True,
                                                                                          default=list))


class EmbeddingCacheRow(SQLModel, table=True):
    """One vector per (model id, sha256 of the embedded text)."""

    __tablename__ = "embedding_cache"
    model_id: str = Field(primary_key=True, max_length=500)
    text_hash: str = Field(primary_key=True, max_length=64)
    dim: int
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ProjectionRow(SQLModel, table=True):
    __tablename__ = "projection"
    __table_args__ = (UniqueConstraint("version_id", "model_id", "params_key"),)
    id: int | None = Field(default=None, primary_key=True)
    version_id: int = Field(foreign_key="catalog_version.id", index=True)
    model_id: str = Field(max_length=500)
    method: str = Field(max_length=20)
    # JSON text of method and resolved parameters (core.projection.params_key); kept as text, not a JSON column:
    # it is a lookup key compared with ``=``, which PostgreSQL's json type does not support.
    params_key: str = Field(max_length=1000)
    n_points: int
    coords: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    seconds: float = 0.0
    created_at: datetime = Field(default_factory=utcnow)


class Run(SQLModel, table=True):
    """An experiment: an eval, a merge, a trials batch, a timeline simulation."""

    __tablename__ = "run"
    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True, max_length=40)
    version_id: int | None = Field(default=None, foreign_key="catalog_version.id", index=True)
    query_set_id: int | None = Field(default=None, foreign_key="query_set.id")
    strategy: str = Field(default="", max_length=100)
    # sha256 of the canonical config: the same config resumes the same run.
    config_hash: str = Field(index=True, max_length=64)
    config_json: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    status: str = Field(default="running", max_length=20)
    n_items: int = 0
    metrics_json: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class GridRun(SQLModel, table=True):
    """A run belongs to a grid (``toolatlas grid``): one row per grid and run. A cell two grids share is run
    once and belongs to both (schema 5)."""

    __tablename__ = "grid_run"
    __table_args__ = (UniqueConstraint("grid", "run_id"),)
    id: int | None = Field(default=None, primary_key=True)
    grid: str = Field(index=True, max_length=200)
    run_id: int = Field(foreign_key="run.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)


class RunItem(SQLModel, table=True):
    """One finished item of a run (a query, a pair, a trial); written as soon as it is done."""

    __tablename__ = "run_item"
    __table_args__ = (UniqueConstraint("run_id", "item_key"),)
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    item_key: str = Field(max_length=500)
    result_json: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    seconds: float = 0.0
    created_at: datetime = Field(default_factory=utcnow)
