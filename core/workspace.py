"""The engine's front door: a store, an embedder and the catalogs in them.

Pages, the CLI and notebooks build one ``Workspace`` from their own configuration
(database engine, embedder, optional reranker) and call it; nothing here is global.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from core.embedding import Embedder
from core.first_look import FIRST_LOOK_MAP, FirstLookConfig, FirstLookStatus
from core.importers.launch import DroppedField, describe_dropped, drop_launch_fields
from core.jobs import Job, Jobs
from core.models import McpServer, Query, Tool
from core.search.engine import SearchEngine
from core.search.rerank import Reranker
from storage import catalogs as store
from storage.cache import SqlVectorCache, get_projection, put_projection
from storage.catalogs import CatalogInfo, QuerySetInfo, VersionInfo  # noqa: F401 - named from here by pages
from storage.db import store_lock
from storage.readcache import read_cache

DEMO_DIR = Path(__file__).resolve().parents[1] / "assets" / "demo"
DEMO_CATALOG = "demo"
DEMO_QUERY_SET = "demo"
DEMO_TIMELINE_SET = "timeline"
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class ImportReport:
    version: store.VersionInfo
    query_set: store.QuerySetInfo | None
    reused: bool
    dropped: tuple[DroppedField, ...] = ()  # launch fields left out of the file's tools (core.importers.launch)

    @property
    def dropped_summary(self) -> str:
        """One line on the launch fields left out (empty when none were)."""
        return describe_dropped(self.dropped)


def check_store(url: str | None = None) -> tuple[bool, str]:
    """Whether the store at ``url`` (default: the one the environment names) answers: (ok, what to say)."""
    from sqlalchemy import create_engine

    from storage.db import resolve_db_url

    engine = None
    try:
        engine = create_engine(resolve_db_url(url))
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        return True, "Reachable."
    except Exception as exc:  # noqa: BLE001 - the verdict is shown to the user
        return False, f"Not reachable: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        if engine is not None:
            engine.dispose()


ENGINE_BUDGET = 150_000  # tools held in built engines (~0.6 GB with MiniLM vectors, FAISS and BM25)


@dataclass(frozen=True)
class _StoredDemo:
    catalog: CatalogInfo
    complete: bool  # every version and both query sets are there


class Workspace:
    def __init__(self, db: Engine, embedder: Embedder, *, reranker: Reranker | None = None,
                 engine_budget: int = ENGINE_BUDGET, text_with_parameters: bool = True,
                 jobs: Jobs | None = None, first_look: FirstLookConfig | None = None) -> None:
        if engine_budget < 1:
            raise ValueError(f"engine_budget must be at least 1 tool, got {engine_budget}")
        self.db = db
        self.embedder = embedder
        # What a tool's embedded and indexed text holds: `name: description` and, by default, its parameter
        # names (core.models.tool_text). Part of every engine, map and run identity through vector_space.
        self.text_with_parameters = bool(text_with_parameters)
        self.reranker = reranker
        self.cache = SqlVectorCache(db)
        self.engine_budget = int(engine_budget)
        # Least recently used first. A long-running app meets many versions (timelines walk five of them,
        # every import adds one); engines past the budget are dropped and rebuilt from cached vectors.
        self._engines: OrderedDict[tuple[int, str], SearchEngine] = OrderedDict()
        self._lock = threading.Lock()  # guards _locks and _engines; the slow work runs under a per-key lock
        self._locks: dict[tuple, threading.Lock] = {}
        # Long work the app runs off its pages' script runs (engine builds, maps, merges), shared by sessions.
        self.jobs = jobs if jobs is not None else Jobs()
        self._warming: threading.Thread | None = None
        # A large version's first look (core.first_look): its static engine until the full one replaces it.
        self.first_look = first_look
        self._static: Embedder | None = first_look.embedder if first_look is not None else None
        self._first_looks: dict[tuple[int, str], SearchEngine] = {}
        self._first_look_wanted: dict[tuple[int, str], bool] = {}

    def warm_up(self) -> threading.Thread | None:
        """Load a local embedding model on a background thread, once (our addition for the app): the model
        loads lazily, and otherwise the first search or trial after a start pays its load in a visitor's script
        run, holding up every session behind it. Returns the thread (None when there is nothing to load or it
        was started before). Errors are left to the first real use, which reports them. Torch itself is imported
        here, on the caller's thread (``core.embedding.import_model_stack``), before the thread starts."""
        from core.embedding import LazyModel, import_model_stack

        if not isinstance(self.embedder, LazyModel):
            return None
        import_model_stack()  # outside the lock: the first import takes seconds, and is a no-op after
        with self._lock:
            if self._warming is not None:
                return None

            def load() -> None:
                try:
                    self.embedder.encode(["warm-up"])
                except Exception:  # noqa: BLE001, S110 - the first search raises it again where it can be shown
                    pass

            self._warming = threading.Thread(target=load, name="toolatlas-warm-up", daemon=True)
        self._warming.start()
        return self._warming

    def _key_lock(self, key: tuple) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())

    # -- catalogs -------------------------------------------------------------------------

    def import_tools(
        self,
        name: str,
        tools: Sequence[Tool],
        *,
        queries: Sequence[Query] | None = None,
        query_set: str | None = None,
        label: str = "",
        source: str = "",
    ) -> ImportReport:
        """Store a catalog version (and its query set). Gold keys are checked before anything is written.

        Every catalog is data: launch fields in the tools (``mcp_command``, ``cwd``, a Python ``path`` …) are
        dropped and listed in the report; MCP servers are registered only by :meth:`register_mcp_server`."""
        tools, dropped = drop_launch_fields(tools)
        if queries:
            known = {t.key for t in tools}
            for q in queries:
                unknown = [g for g in q.gold if g not in known]
                if unknown:
                    raise ValueError(f"query {q.id!r}: gold key {unknown[0]!r} is not a tool of catalog {name!r}")
        stored = store.store_catalog(self.db, name, tools, queries=queries or None, query_set=query_set,
                                     label=label, source=source)  # one transaction: tools and queries, or nothing
        return ImportReport(stored.version, stored.query_set, reused=stored.reused, dropped=dropped)

    def register_mcp_server(self, catalog: str, server: McpServer) -> None:
        """Record the MCP server that serves ``catalog``'s tools: for the operator's ``import-mcp`` only."""
        store.register_mcp_server(self.db, catalog, server)

    def mcp_servers(self, catalog: str) -> tuple[McpServer, ...]:
        """The MCP servers registered for ``catalog`` by the operator (none for a catalog from a file)."""
        return store.list_mcp_servers(self.db, catalog)

    def import_files(
        self, tools_path: str | Path, *, name: str | None = None, queries_path: str | Path | None = None, label: str = ""
    ) -> ImportReport:
        """Import a catalog file (OpenAI tools, OpenAPI or saved MCP list) and optional queries JSONL: each file
        read (size checked first), then :meth:`import_bytes`."""
        from core.importers.detect import read_catalog_file

        tools_path = Path(tools_path)
        queries = None
        if queries_path is not None:
            queries = (read_catalog_file(queries_path), str(queries_path))
        return self.import_bytes(read_catalog_file(tools_path), str(tools_path), name=name, queries=queries,
                                 label=label)

    def import_bytes(self, data: bytes | str, filename: str, *, name: str | None = None,
                     queries: tuple[bytes | str, str] | None = None, label: str = "",
                     source: str = "") -> ImportReport:
        """The one way from a catalog file's content to a stored version, for the CLI and the Catalog page:
        size checked, format detected, parsed and validated (``core.importers.detect``), queries JSONL
        (``queries``: its content and file name) checked against the tools, then stored all or nothing
        (:meth:`import_tools`). The query set is named after its file.

        Without a name, the catalog is named after the file and its content hash, so the
        same file imported twice is the same catalog (``eval --tools`` names its own).
        """
        from core.importers.detect import load_catalog_bytes

        stem = Path(filename).stem
        tools = load_catalog_bytes(data, filename, source=Path(filename).name)
        parsed = None
        if queries is not None:
            parsed = self._parse_queries(*queries, known_keys={t.key for t in tools})
        if name is None:
            raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
            name = f"{stem}-{hashlib.sha256(raw).hexdigest()[:10]}"
        return self.import_tools(name, tools, queries=parsed, query_set=Path(queries[1]).stem if queries else None,
                                 label=label, source=source or filename)

    @staticmethod
    def _parse_queries(data: bytes | str, filename: str, *, known_keys) -> tuple[Query, ...]:
        """A queries JSONL's queries, size checked and every gold key one of ``known_keys``."""
        from core.importers._common import check_catalog_size
        from core.importers.queries import parse_queries_jsonl

        check_catalog_size(len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data),
                           filename)
        return parse_queries_jsonl(data, filename, known_keys=known_keys)

    def import_benchmark(self, parsed: Any, *, name: str | None = None, label: str = "",
                         source: str = "") -> ImportReport:
        """Store a parsed public benchmark (``core.importers.benchmark.BenchmarkImport``): its tools as a
        catalog version, its queries as a query set named after the catalog (default name: the format)."""
        name = name or parsed.benchmark
        return self.import_tools(name, parsed.tools, queries=parsed.queries or None, query_set=name,
                                 label=label or parsed.benchmark, source=source or parsed.benchmark)

    def import_query_file(self, catalog: str, path: str | Path, *, version_id: int, name: str | None = None,
                          known_keys=None) -> store.QuerySetInfo:
        """Attach a queries JSONL to a stored catalog as query set ``name`` (default: the file's name), checking
        gold keys against ``version_id``'s tools (or ``known_keys``)."""
        from core.importers.detect import read_catalog_file

        path = Path(path)
        known = {t.key for t in self.tools(version_id)} if known_keys is None else known_keys
        queries = self._parse_queries(read_catalog_file(path), str(path), known_keys=known)
        return store.import_queries(self.db, catalog, name or path.stem, queries)

    def ensure_demo(self) -> store.CatalogInfo:
        """Load the built-in demo catalog (5 versions, gold queries, timeline queries) unless already stored."""
        versions = sorted((DEMO_DIR / "versions").glob("v*.json"), key=lambda p: int(p.stem[1:]))
        if not versions:
            raise FileNotFoundError(f"demo catalog missing under {DEMO_DIR}")
        info = self._stored_demo(len(versions))
        if info is not None and info.complete:
            return info.catalog
        # Two processes opening a fresh store at once (grid shards, the app beside the CLI) load it once.
        with store_lock(self.db, "demo"):
            return self._load_demo(versions)

    def _stored_demo(self, n_versions: int) -> _StoredDemo | None:
        try:
            info = store.get_catalog(self.db, DEMO_CATALOG)
        except ValueError:
            return None
        stored_sets = {s.name for s in store.list_query_sets(self.db, DEMO_CATALOG)}
        complete = len(info.versions) >= n_versions and {DEMO_QUERY_SET, DEMO_TIMELINE_SET} <= stored_sets
        return _StoredDemo(info, complete)

    def _load_demo(self, versions: list[Path]) -> store.CatalogInfo:
        from core.importers.openai_tools import load_openai_tools

        # Under the lock, read afresh: on PostgreSQL this process's cache could still hold the store before
        # another process loaded the demo.
        read_cache(self.db).written(("catalog", "catalog_version", "query_set"))
        found = self._stored_demo(len(versions))
        if found is not None and found.complete:
            return found.catalog
        info = found.catalog if found else None
        stored = len(info.versions) if info else 0
        for path in versions[stored:]:
            self.import_tools(DEMO_CATALOG, load_openai_tools(path, source="demo"), label=path.stem, source="demo")
        latest = store.get_version(self.db, DEMO_CATALOG).id
        self.import_query_file(DEMO_CATALOG, DEMO_DIR / "queries.jsonl", version_id=latest, name=DEMO_QUERY_SET)
        # The timeline set asks for tools that come, go or get rewritten across the versions, so its gold
        # keys are checked against every version, not only the latest.
        self.import_query_file(DEMO_CATALOG, DEMO_DIR / "timeline_queries.jsonl", version_id=latest,
                               name=DEMO_TIMELINE_SET, known_keys=set(self.every_tool(DEMO_CATALOG)))
        return store.get_catalog(self.db, DEMO_CATALOG)

    def delete_catalog(self, name: str) -> store.DeletedCatalog:
        """Delete a catalog and everything made from it (see :func:`storage.catalogs.delete_catalog`), and
        forget this process's search engines for its versions. The built-in demo comes back at the next
        start (:meth:`ensure_demo`)."""
        version_ids = {v.id for v in store.get_catalog(self.db, name).versions}
        deleted = store.delete_catalog(self.db, name)
        with self._lock:
            for key in [k for k in self._engines if k[0] in version_ids]:
                del self._engines[key]
            for key in [k for k in self._first_looks if k[0] in version_ids]:
                del self._first_looks[key]
        return deleted

    def every_tool(self, catalog: str) -> dict[str, Tool]:
        """Each key any stored version of ``catalog`` holds, with its newest text (for timelines, whose
        queries and executors may concern tools the latest version no longer has)."""
        return {t.key: t for v in store.get_catalog(self.db, catalog).versions for t in self.tools(v.id)}

    def tools(self, version_id: int) -> tuple[Tool, ...]:
        with self._lock:
            engine = self._engines.get((version_id, self.vector_space))
        return engine.tools if engine is not None else store.load_tools(self.db, version_id)

    # -- store reads (pages and components reach the store only through these and core services) ---------

    def catalogs(self) -> tuple[store.CatalogInfo, ...]:
        """Every stored catalog with its versions."""
        return store.list_catalogs(self.db)

    def version(self, version_id: int) -> store.VersionInfo:
        """A stored version by id; ValueError when there is none (say, deleted since)."""
        return store.version_by_id(self.db, version_id)

    def query_sets(self, catalog: str) -> tuple[store.QuerySetInfo, ...]:
        """The query sets stored for ``catalog`` (none for an unknown name)."""
        return store.list_query_sets(self.db, catalog)

    def queries(self, query_set_id: int, *, split: str | None = None) -> tuple[Query, ...]:
        """The queries of a stored query set (of one split when given)."""
        return store.load_queries(self.db, query_set_id, split=split)

    @property
    def store_url(self) -> str:
        """The URL of this workspace's store with any password hidden: safe to show, and part of cache keys
        made outside the workspace."""
        return self.db.url.render_as_string(hide_password=True)

    # -- search ---------------------------------------------------------------------------

    def has_search_engine(self, version_id: int) -> bool:
        with self._lock:
            return (version_id, self.vector_space) in self._engines

    def search_engine(self, version_id: int, *, progress: Callable[[int, int], None] | None = None) -> SearchEngine:
        """The engine for a catalog version, built once per process (vectors from the cache).

        Sessions asking for a built engine never wait; a build holds a lock of its own version only,
        so embedding a large catalog does not stall every other session's search.
        """
        key = (version_id, self.vector_space)
        engine = self._touch(key)
        if engine is not None:
            return engine
        with self._key_lock(("engine", *key)):
            engine = self._touch(key)
            if engine is None:
                tools = store.load_tools(self.db, version_id)
                engine = SearchEngine.build(
                    tools, self.embedder, cache=self.cache, reranker=self.reranker,
                    with_parameters=self.text_with_parameters, progress=progress,
                )
                self._keep(key, engine)
            return engine

    def start_search_engine(self, version_id: int) -> Job:
        """Build the version's engine as a background job (joined when one is under way). Pages use this so a
        first embedding runs off their script run, then take the engine from :meth:`search_engine`."""
        def build(job: Job) -> None:
            # The engine is not the job's result: finished jobs are kept a while, and holding engines there
            # would defeat the engine budget. Callers ask search_engine() once the job is over.
            self.search_engine(
                version_id, progress=lambda done, total: job.report(
                    done / max(total, 1), f"Embedding {done:,}/{total:,} tools (cached after the first time)"))

        return self.jobs.start(("engine", version_id, self.vector_space), build,
                               label="Embedding the catalog (cached after the first time)…")

    def _touch(self, key: tuple[int, str]) -> SearchEngine | None:
        with self._lock:
            engine = self._engines.get(key)
            if engine is not None:
                self._engines.move_to_end(key)
            return engine

    def _keep(self, key: tuple[int, str], engine: SearchEngine) -> None:
        with self._lock:
            self._engines[key] = engine
            self._first_looks.pop(key, None)  # the full engine replaces a first look
            held = sum(len(e.tools) for e in self._engines.values())
            while held > self.engine_budget and len(self._engines) > 1:
                _, dropped = self._engines.popitem(last=False)  # sessions using it keep their reference
                held -= len(dropped.tools)

    @property
    def vector_space(self) -> str:
        """The embedder and tool text behind this workspace's vectors: engines, cached maps and run configs
        are keyed by it, so maps and runs made with one tool text are never served for the other. The
        default text keeps the bare model id, the key used before the text was configurable."""
        return self.vector_space_for(self.embedder.model_id)

    def vector_space_for(self, model_id: str) -> str:
        """The vector space of ``model_id``'s vectors of this workspace's tool text (say, a first look's engine:
        ``ws.vector_space_for(engine.embedder.model_id)``)."""
        return model_id if self.text_with_parameters else f"{model_id} [text: name and description]"

    # -- first look (core.first_look) ---------------------------------------------------------

    @property
    def static_embedder(self) -> Embedder | None:
        """The first look's static embedder: None when this workspace gives no first look (turned off, or its
        embedder is no local model)."""
        from core.embedding import SentenceTransformerEmbedder

        if self.first_look is None or not isinstance(self.embedder, SentenceTransformerEmbedder):
            return None
        with self._lock:
            if self._static is None:
                from core.embedding import make_embedder

                self._static = make_embedder("static", self.embedder.model_id)
            return self._static

    def wants_first_look(self, version_id: int) -> bool:
        """Whether the version shows a first look: its full engine is not built, and more tools than the
        threshold have no cached vectors of the full model (decided once per process and version)."""
        key = (version_id, self.vector_space)
        if self.static_embedder is None or self.has_search_engine(version_id):
            return False
        with self._lock:
            if key in self._first_looks:
                return True
            known = self._first_look_wanted.get(key)
        if known is None:
            known = self._count_uncached(version_id) > self.first_look.threshold
            with self._lock:
                self._first_look_wanted[key] = known
        return known

    def _count_uncached(self, version_id: int) -> int:
        from core.models import text_hash, tool_text

        tools = self.tools(version_id)
        if len(tools) <= self.first_look.threshold:
            return len(tools)  # cannot be over the threshold: no need to read the cache
        hashes = {text_hash(tool_text(t, with_parameters=self.text_with_parameters)) for t in tools}
        return len(hashes) - len(self.cache.get_many(self.embedder.model_id, list(hashes)))

    def start_first_look(self, version_id: int) -> Job:
        """Build the version's first-look engine from the static embedder as a job (joined when under way), then
        start the full model's index (:meth:`start_search_engine`), which replaces it when done. Take the engine
        from :meth:`first_look_engine` once the job is over."""
        static = self.static_embedder
        if static is None:
            raise ValueError("this workspace gives no first look (turned off, or its embedder is no local model)")
        key = (version_id, self.vector_space)

        def build(job: Job) -> None:
            with self._lock:
                ready = key in self._first_looks or key in self._engines
            if not ready:
                job.report(0.0, "First look: loading the static embedder (distilled once, the first time)…")
                tools = store.load_tools(self.db, version_id)
                engine = SearchEngine.build(
                    tools, static, cache=self.cache, with_parameters=self.text_with_parameters,
                    progress=lambda done, total: job.report(
                        done / max(total, 1), f"First look: static embeddings {done:,}/{total:,} tools"))
                with self._lock:
                    if key not in self._engines:
                        self._first_looks[key] = engine
            self.start_search_engine(version_id)  # after the first look, so the two do not share the cores

        return self.jobs.start(("first-look", *key), build,
                               label="First look: embedding the catalog with the static model…")

    def first_look_engine(self, version_id: int) -> SearchEngine | None:
        """The version's first-look engine while its full engine is being built; None once that is built (or
        when there was no first look)."""
        with self._lock:
            return self._first_looks.get((version_id, self.vector_space))

    def first_look_status(self, version_id: int) -> FirstLookStatus | None:
        """What to say while the version shows its first look (None when it does not)."""
        engine = self.first_look_engine(version_id)
        if engine is None:
            return None
        job = self.jobs.get(("engine", version_id, self.vector_space))
        state = job.state() if job is not None else None
        return FirstLookStatus(
            static_model=engine.embedder.model_id, full_model=self.embedder.model_id,
            share=state.share if state is not None else 0.0, tools=len(engine.tools),
            over=bool(state is not None and state.over), error=state.error if state is not None else None)

    def first_look_projection(self, version_id: int) -> np.ndarray:
        """The first look's map: PCA of the static vectors (under a second for 40,000 tools), cached in the store
        under the static model's vector space."""
        engine = self.first_look_engine(version_id)
        if engine is None:
            raise ValueError(f"version {version_id} shows no first look")
        method, params = FIRST_LOOK_MAP
        return self._projection(version_id, self.vector_space_for(engine.embedder.model_id), lambda: engine.vectors,
                                method, params)

    def held_engines(self) -> list[tuple[int, int]]:
        """(version id, tools) of the engines this process holds, least recently used first."""
        with self._lock:
            return [(key[0], len(e.tools)) for key, e in self._engines.items() if key[1] == self.vector_space]

    def index(self, version_id: int, *, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Embed a catalog version into the cache; reports how many tools needed encoding."""
        from core.embedding import encode_cached
        from core.models import tool_text

        tools = store.load_tools(self.db, version_id)
        start = time.perf_counter()
        _, encoded = encode_cached(self.embedder, [tool_text(t, with_parameters=self.text_with_parameters) for t in tools],
                                    self.cache, progress=progress)
        seconds = time.perf_counter() - start
        return {
            "tools": len(tools),
            "encoded": encoded,
            "cached": len(tools) - encoded,
            "seconds": round(seconds, 3),
            "tools_per_second": round(len(tools) / seconds, 1) if seconds > 0 else None,
        }

    # -- projections ----------------------------------------------------------------------

    def start_projection(self, version_id: int, method: str = "umap",
                         params: Mapping[str, Any] | None = None, *, label: str = "") -> Job:
        """:meth:`projection` as a background job (joined when the same map is under way); its result is
        the coordinates."""
        from core.projection import params_key

        return self.jobs.start(("projection", version_id, self.vector_space, params_key(method, params)),
                               lambda job: self.projection(version_id, method, params, progress=job.report),
                               label=label or f"Computing the {method} map (cached after the first time)…")

    def has_projection(self, version_id: int, method: str = "umap", params: Mapping[str, Any] | None = None) -> bool:
        """Whether this map is in the store already (then :meth:`projection` only reads it)."""
        from core.projection import params_key

        return get_projection(self.db, version_id, self.vector_space, params_key(method, params)) is not None

    def projection(
        self,
        version_id: int,
        method: str = "umap",
        params: Mapping[str, Any] | None = None,
        *,
        progress: Progress | None = None,
    ) -> np.ndarray:
        """2-D coordinates of a version's tools, computed once and cached in the store.

        Concurrent sessions asking for the same projection compute it once: the others wait for it
        and read it back from the store (two computations raced on the store's unique key before).
        """
        return self._projection(version_id, self.vector_space, lambda: self.search_engine(version_id).vectors,
                                method, params, progress=progress)

    def _projection(self, version_id: int, space: str, vectors: Callable[[], np.ndarray], method: str,
                    params: Mapping[str, Any] | None, *, progress: Progress | None = None) -> np.ndarray:
        from core.projection import params_key, project

        key = params_key(method, params)
        cached = get_projection(self.db, version_id, space, key)
        if cached is not None:
            return cached
        with self._key_lock(("projection", version_id, space, key)):
            cached = get_projection(self.db, version_id, space, key)
            if cached is not None:
                return cached
            matrix = vectors()
            start = time.perf_counter()
            proj, _model = project(matrix, method, params, progress=progress)
            put_projection(self.db, version_id, space, method, key, proj.coords, time.perf_counter() - start)
            return proj.coords
