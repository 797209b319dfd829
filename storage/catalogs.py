"""Catalogs, their versions, tools and query sets.

Imports are all-or-nothing: one transaction writes the catalog row, the version and
every tool, or nothing at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from core.models import GoldCall, McpServer, Query, Tool
from storage.readcache import cached
from storage.tables import Catalog, CatalogVersion, McpServerRow, QueryRow, QuerySet, ToolRow, utcnow


@dataclass(frozen=True)
class VersionInfo:
    id: int
    catalog_id: int
    catalog_name: str
    number: int
    label: str
    n_tools: int
    content_hash: str
    created_at: datetime


@dataclass(frozen=True)
class CatalogInfo:
    id: int
    name: str
    source: str
    description: str
    versions: tuple[VersionInfo, ...]

    @property
    def latest(self) -> VersionInfo:
        return self.versions[-1]


@dataclass(frozen=True)
class QuerySetInfo:
    id: int
    catalog_id: int
    name: str
    n_queries: int
    content_hash: str


def catalog_hash(tools: Sequence[Tool]) -> str:
    digest = hashlib.sha256()
    for tool in sorted(tools, key=lambda t: t.key):
        digest.update(tool.key.encode("utf-8"))
        digest.update(b"\0")
        digest.update(tool.content_hash().encode("ascii"))
    return digest.hexdigest()


def _query_record(q: Query) -> list:
    # gold calls join the record only where a query has some, so a set stored before they existed keeps its hash
    calls = [[c.to_json() for c in q.gold_calls]] if q.gold_calls else []
    return [q.id, q.text, list(q.gold), q.split, *calls]


def queries_hash(queries: Sequence[Query]) -> str:
    payload = json.dumps([_query_record(q) for q in queries], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _version_info(v: CatalogVersion, name: str) -> VersionInfo:
    return VersionInfo(v.id, v.catalog_id, name, v.number, v.label, v.n_tools, v.content_hash, v.created_at)


@dataclass(frozen=True)
class StoredCatalog:
    """What :func:`store_catalog` wrote: the version (``reused``: the latest version already held exactly
    these tools, so none was added) and the query set stored with it, if any."""

    version: VersionInfo
    query_set: QuerySetInfo | None
    reused: bool


def import_catalog(
    engine: Engine,
    name: str,
    tools: Sequence[Tool],
    *,
    label: str = "",
    source: str = "",
    description: str = "",
) -> VersionInfo:
    """Store ``tools`` as a new version of catalog ``name`` (see :func:`store_catalog`)."""
    return store_catalog(engine, name, tools, label=label, source=source, description=description).version


def store_catalog(
    engine: Engine,
    name: str,
    tools: Sequence[Tool],
    *,
    queries: Sequence[Query] | None = None,
    query_set: str | None = None,
    label: str = "",
    source: str = "",
    description: str = "",
) -> StoredCatalog:
    """Store ``tools`` as a new version of catalog ``name`` (created if missing) and, given ``queries``, the
    query set ``query_set`` (default: the catalog's name), in one transaction: all or nothing.

    When the latest version already holds exactly this content, it is returned
    unchanged, so re-importing a file is free and never duplicates rows.
    """
    name = name.strip()
    if not name:
        raise ValueError("catalog name is empty")
    if not tools:
        raise ValueError(f"catalog {name!r}: no tools to import")
    keys = [t.key for t in tools]
    if len(set(keys)) != len(keys):
        seen: set[str] = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        raise ValueError(f"catalog {name!r}: duplicate tool key {dup!r}")
    digest = catalog_hash(tools)
    with Session(engine) as session:
        cat = session.exec(select(Catalog).where(Catalog.name == name)).first()
        latest = None
        if cat is None:
            cat = Catalog(name=name, source=source, description=description)
            session.add(cat)
            session.flush()
        else:
            latest = session.exec(
                select(CatalogVersion)
                .where(CatalogVersion.catalog_id == cat.id)
                .order_by(col(CatalogVersion.number).desc())
            ).first()
        reused = latest is not None and latest.content_hash == digest
        if reused:
            version = latest
        else:
            number = (latest.number if latest is not None else 0) + 1
            version = CatalogVersion(
                catalog_id=cat.id, number=number, label=label or f"v{number}", content_hash=digest,
                n_tools=len(tools),
            )
            session.add(version)
            session.flush()
            session.add_all(
                ToolRow(
                    version_id=version.id,
                    position=i,
                    key=t.key,
                    name=t.name,
                    description=t.description,
                    parameters_json=t.parameters,
                    category=t.category,
                    source=t.source,
                    extra_json=t.extra,
                    content_hash=t.content_hash(),
                )
                for i, t in enumerate(tools)
            )
        stored_set = _put_queries(session, cat.id, query_set or name, queries) if queries else None
        session.commit()
        session.refresh(version)
        return StoredCatalog(_version_info(version, cat.name), stored_set, reused)


def list_catalogs(engine: Engine) -> tuple[CatalogInfo, ...]:
    """Every catalog that has a version, by name (through the engine's read cache, :mod:`storage.readcache`)."""
    return cached(engine, "list_catalogs", ("catalog", "catalog_version"), lambda: _list_catalogs(engine))


def _list_catalogs(engine: Engine) -> tuple[CatalogInfo, ...]:
    with Session(engine) as session:
        cats = session.exec(select(Catalog).order_by(Catalog.name)).all()
        versions = session.exec(select(CatalogVersion).order_by(CatalogVersion.catalog_id, CatalogVersion.number)).all()
        by_cat: dict[int, list[CatalogVersion]] = {}
        for v in versions:
            by_cat.setdefault(v.catalog_id, []).append(v)
        return tuple(
            CatalogInfo(c.id, c.name, c.source, c.description, tuple(_version_info(v, c.name) for v in by_cat.get(c.id, [])))
            for c in cats
            if by_cat.get(c.id)
        )


def get_catalog(engine: Engine, name: str) -> CatalogInfo:
    for info in list_catalogs(engine):
        if info.name == name:
            return info
    names = ", ".join(c.name for c in list_catalogs(engine)) or "none"
    raise ValueError(f"no catalog named {name!r} (known: {names})")


def get_version(engine: Engine, name: str, number: int | None = None) -> VersionInfo:
    info = get_catalog(engine, name)
    if number is None:
        return info.latest
    for v in info.versions:
        if v.number == number:
            return v
    raise ValueError(f"catalog {name!r} has no version {number} (versions: {[v.number for v in info.versions]})")


def version_by_id(engine: Engine, version_id: int) -> VersionInfo:
    return cached(engine, ("version_by_id", version_id), ("catalog", "catalog_version"),
                  lambda: _version_by_id(engine, version_id))


def _version_by_id(engine: Engine, version_id: int) -> VersionInfo:
    with Session(engine) as session:
        v = session.get(CatalogVersion, version_id)
        if v is None:
            raise ValueError(f"no catalog version with id {version_id}")
        cat = session.get(Catalog, v.catalog_id)
        return _version_info(v, cat.name)


def load_tools(engine: Engine, version_id: int) -> tuple[Tool, ...]:
    """A version's tools in order. A version's rows never change once written (only go with their catalog), so
    the answer is cached without an age limit; a delete still empties it."""
    return cached(engine, ("load_tools", version_id), ("tool",), lambda: _load_tools(engine, version_id),
                  immutable=True)


def _load_tools(engine: Engine, version_id: int) -> tuple[Tool, ...]:
    with Session(engine) as session:
        rows = session.exec(select(ToolRow).where(ToolRow.version_id == version_id).order_by(ToolRow.position)).all()
        return tuple(
            Tool(
                key=r.key,
                name=r.name,
                description=r.description,
                parameters=r.parameters_json,
                category=r.category,
                source=r.source,
                extra=r.extra_json,
            )
            for r in rows
        )


def import_queries(engine: Engine, catalog_name: str, name: str, queries: Sequence[Query]) -> QuerySetInfo:
    """Store a query set for a catalog; identical content under the same name is reused.

    Re-importing changed content under an existing name replaces the set in one
    transaction.
    """
    if not queries:
        raise ValueError(f"query set {name!r}: no queries")
    with Session(engine) as session:
        cat = session.exec(select(Catalog).where(Catalog.name == catalog_name)).first()
        if cat is None:
            raise ValueError(f"no catalog named {catalog_name!r}")
        info = _put_queries(session, cat.id, name, queries)
        session.commit()
        return info


def _put_queries(session: Session, catalog_id: int, name: str, queries: Sequence[Query]) -> QuerySetInfo:
    """Write (or reuse, when the content is the same) query set ``name`` of a catalog in ``session``; the
    caller commits. The one writer of query sets, for :func:`import_queries` and :func:`store_catalog`."""
    if not queries:
        raise ValueError(f"query set {name!r}: no queries")
    digest = queries_hash(queries)
    qs = session.exec(select(QuerySet).where(QuerySet.catalog_id == catalog_id, QuerySet.name == name)).first()
    if qs is not None and qs.content_hash == digest:
        return QuerySetInfo(qs.id, qs.catalog_id, qs.name, qs.n_queries, qs.content_hash)
    if qs is None:
        qs = QuerySet(catalog_id=catalog_id, name=name, content_hash=digest, n_queries=len(queries))
        session.add(qs)
        session.flush()
    else:
        for row in session.exec(select(QueryRow).where(QueryRow.query_set_id == qs.id)).all():
            session.delete(row)
        session.flush()
        qs.content_hash = digest
        qs.n_queries = len(queries)
        session.add(qs)
    session.add_all(
        QueryRow(
            query_set_id=qs.id,
            position=i,
            qid=q.id,
            text=q.text,
            gold_json=list(q.gold),
            split=q.split,
            gold_calls_json=[c.to_json() for c in q.gold_calls],
        )
        for i, q in enumerate(queries)
    )
    session.flush()
    return QuerySetInfo(qs.id, qs.catalog_id, qs.name, qs.n_queries, qs.content_hash)


def list_query_sets(engine: Engine, catalog_name: str) -> tuple[QuerySetInfo, ...]:
    return cached(engine, ("list_query_sets", catalog_name), ("catalog", "query_set"),
                  lambda: _list_query_sets(engine, catalog_name))


def _list_query_sets(engine: Engine, catalog_name: str) -> tuple[QuerySetInfo, ...]:
    with Session(engine) as session:
        cat = session.exec(select(Catalog).where(Catalog.name == catalog_name)).first()
        if cat is None:
            return ()
        rows = session.exec(select(QuerySet).where(QuerySet.catalog_id == cat.id).order_by(QuerySet.name)).all()
        return tuple(QuerySetInfo(r.id, r.catalog_id, r.name, r.n_queries, r.content_hash) for r in rows)


def load_queries(engine: Engine, query_set_id: int, *, split: str | None = None) -> tuple[Query, ...]:
    """A query set's queries in order (of one split when given); a re-import under the same name replaces them."""
    return cached(engine, ("load_queries", query_set_id, split or None), ("query",),
                  lambda: _load_queries(engine, query_set_id, split))


def _load_queries(engine: Engine, query_set_id: int, split: str | None) -> tuple[Query, ...]:
    with Session(engine) as session:
        stmt = select(QueryRow).where(QueryRow.query_set_id == query_set_id)
        if split:
            stmt = stmt.where(QueryRow.split == split)
        rows = session.exec(stmt.order_by(QueryRow.position)).all()
        return tuple(Query(r.qid, r.text, tuple(r.gold_json), r.split,
                           tuple(GoldCall.from_json(c) for c in r.gold_calls_json or ())) for r in rows)


def count_tools(engine: Engine, version_ids: Iterable[int]) -> dict[int, int]:
    ids = list(version_ids)
    with Session(engine) as session:
        rows = session.exec(
            select(ToolRow.version_id, func.count()).where(col(ToolRow.version_id).in_(ids)).group_by(ToolRow.version_id)
        ).all()
        return {vid: n for vid, n in rows}


def _launch_hash(server: McpServer) -> str:
    return hashlib.sha256(json.dumps([list(server.command), server.cwd], ensure_ascii=False).encode("utf-8")).hexdigest()


def register_mcp_server(engine: Engine, catalog_name: str, server: McpServer) -> None:
    """Record that ``catalog_name``'s tools are served by ``server`` (idempotent). Only the operator's own
    ``import-mcp`` command line calls this; catalog files never reach it."""
    from storage.db import insert_ignoring_duplicates

    cat = get_catalog(engine, catalog_name)
    with engine.begin() as conn:
        insert_ignoring_duplicates(conn, McpServerRow.__table__, [{
            "catalog_id": cat.id, "command_json": list(server.command),
            "cwd": server.cwd, "launch_hash": _launch_hash(server), "created_at": utcnow()}])


def list_mcp_servers(engine: Engine, catalog_name: str) -> tuple[McpServer, ...]:
    """The MCP servers registered for ``catalog_name``, oldest first (none for an unknown catalog)."""
    return cached(engine, ("list_mcp_servers", catalog_name), ("catalog", "mcp_server"),
                  lambda: _list_mcp_servers(engine, catalog_name))


def _list_mcp_servers(engine: Engine, catalog_name: str) -> tuple[McpServer, ...]:
    with Session(engine) as session:
        cat = session.exec(select(Catalog).where(Catalog.name == catalog_name)).first()
        if cat is None:
            return ()
        rows = session.exec(select(McpServerRow).where(McpServerRow.catalog_id == cat.id)
                            .order_by(col(McpServerRow.id))).all()
        return tuple(McpServer(tuple(r.command_json), r.cwd) for r in rows)


@dataclass(frozen=True)
class DeletedCatalog:
    """What :func:`delete_catalog` removed."""

    name: str
    versions: int
    tools: int
    query_sets: int
    runs: int

    def summary(self) -> str:
        return (f"Deleted catalog {self.name!r}: {self.versions} version(s), {self.tools:,} tool rows, "
                f"{self.query_sets} query set(s) and {self.runs} stored run(s) made on it.")


def delete_catalog(engine: Engine, name: str) -> DeletedCatalog:
    """Remove a catalog and everything made from it, in one transaction: its versions and tools, query sets
    and queries, registered MCP servers, cached maps, and the runs on its versions or query sets (with their
    items, merge decisions, LLM ledger entries and grid memberships). Embedding vectors stay: they are shared by text."""
    from sqlalchemy import delete, or_

    from storage.ledger import LLMCallRow
    from storage.merges import MergeDecisionRow
    from storage.tables import GridRun, ProjectionRow, Run, RunItem

    with Session(engine) as session:
        cat = session.exec(select(Catalog).where(Catalog.name == name)).first()
        if cat is None:
            known = ", ".join(c.name for c in list_catalogs(engine)) or "none"
            raise ValueError(f"no catalog named {name!r} (known: {known})")
        version_ids = list(session.exec(select(CatalogVersion.id).where(CatalogVersion.catalog_id == cat.id)).all())
        set_ids = list(session.exec(select(QuerySet.id).where(QuerySet.catalog_id == cat.id)).all())
        run_ids = list(session.exec(select(Run.id).where(or_(col(Run.version_id).in_(version_ids),
                                                             col(Run.query_set_id).in_(set_ids)))).all())
        n_tools = session.exec(select(func.count()).select_from(ToolRow)
                               .where(col(ToolRow.version_id).in_(version_ids))).one()
        for table, column, ids in (
            (RunItem, RunItem.run_id, run_ids), (MergeDecisionRow, MergeDecisionRow.run_id, run_ids),
            (LLMCallRow, LLMCallRow.run_id, run_ids), (GridRun, GridRun.run_id, run_ids), (Run, Run.id, run_ids),
            (ProjectionRow, ProjectionRow.version_id, version_ids), (ToolRow, ToolRow.version_id, version_ids),
            (QueryRow, QueryRow.query_set_id, set_ids), (QuerySet, QuerySet.id, set_ids),
            (McpServerRow, McpServerRow.catalog_id, [cat.id]), (CatalogVersion, CatalogVersion.id, version_ids),
            (Catalog, Catalog.id, [cat.id]),
        ):
            if ids:
                session.exec(delete(table).where(col(column).in_(ids)))
        session.commit()
    return DeletedCatalog(name, len(version_ids), int(n_tools), len(set_ids), len(run_ids))
