"""``toolatlas grid GRID.yaml``: expand a grid of strategies x parameters x query sets x k x LLM backends into
evaluation runs in the store, skipping finished ones; ``--shard I/N`` runs one slice (a Slurm array task, a
Kubernetes indexed Job pod) against a shared store (``core.grid``)."""

from __future__ import annotations

import os
import sys
from typing import Any

from core.cli.common import (
    add_common,
    emit,
    open_workspace,
    pick_query_set,
    progress_printer,
    resolve_version,
)

PLAN_METRICS = ("recall@{k}", "ndcg@{k}", "mrr")


def cmd_grid(args) -> int:
    from core.evaluation import select_queries
    from core.grid import QueryInput, cell_status, expand, load_grid, parse_shard, run_cells, shard
    from storage.catalogs import load_queries

    # Everything the file and the options say is checked before the store is opened: bad input stores nothing.
    spec = load_grid(args.file)
    index, count = parse_shard(args.shard) if args.shard is not None else (0, 1)
    cells = expand(spec)
    mine = shard(cells, index, count)

    ws = open_workspace(args)
    version = resolve_version(ws, spec.catalog, spec.version)
    inputs = {}
    for name in spec.query_sets:
        query_set = pick_query_set(ws, version.catalog_name, name)
        queries = select_queries(load_queries(ws.db, query_set.id), split=spec.split, limit=spec.limit)
        if not queries:
            raise ValueError(f"query set {query_set.name!r} has no queries")
        inputs[name] = QueryInput(query_set.id, tuple(queries))
    head: dict[str, Any] = {"grid": spec.name, "catalog": version.catalog_name, "version": version.number,
                            "cells": len(cells), "shard": f"{index}/{count}", "shard_cells": len(mine)}

    if args.plan:
        rows = []
        for cell in cells:
            status, run_id = cell_status(ws, version.id, inputs, cell, spec.seed)
            rows.append({"cell": cell.index, "shard": cell.index % count, "label": cell.label, "status": status,
                         "run_id": run_id})
        if args.json:
            return emit({**head, "plan": rows}, True)
        emit(head, False)
        for row in rows:
            run = f" run #{row['run_id']}" if row["run_id"] is not None else ""
            print(f"  cell {row['cell']:>3} shard {row['shard']}: {row['status']:<7}{run}  {row['label']}")
        return 0

    def told(result, i: int, n: int) -> None:
        k = result.cell.k
        shown = ", ".join(f"{m.format(k=k)} {result.metrics[m.format(k=k)]:.3f}" for m in PLAN_METRICS
                          if isinstance(result.metrics.get(m.format(k=k)), int | float))
        print(f"grid {spec.name} [{i + 1}/{n}] cell {result.cell.index} {result.cell.label}: {result.status} "
              f"run #{result.run_id} ({result.seconds:.1f} s) {shown}", file=sys.stderr, flush=True)

    results = run_cells(ws, spec.name, mine, version.id, inputs, seed=spec.seed,
                        api_key=os.environ.get("OPENAI_API_KEY"), on_cell=told,
                        progress=None if args.json else lambda cell: progress_printer(f"cell {cell.index}"))
    counts = {status: sum(r.status == status for r in results) for status in ("ran", "resumed", "skipped")}
    out = {**head, **counts, "seconds": round(sum(r.seconds for r in results), 3),
           "runs": [{"cell": r.cell.index, "label": r.cell.label, "run_id": r.run_id, "status": r.status,
                     "seconds": round(r.seconds, 3)} for r in results]}
    if not args.json:
        out["runs"] = ", ".join(f"#{r.run_id}" for r in results) or "none"
    return emit(out, args.json)


def register(sub) -> None:
    """Add ``grid`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser(
        "grid", help="run a grid of evaluations (strategies x parameters x query sets x LLM backends), sharded",
        description="Expand GRID.yaml into evaluation runs, one per cell (query set x k x strategy x parameter "
        "combination x LLM backend), and run them with `eval`'s machinery: each is stored query by query, an "
        "interrupted one resumes, a finished one is skipped. --shard I/N runs cells I, I+N, I+2N, ... of the "
        "expanded list (0-based), so N machines (a Slurm array, a Kubernetes indexed Job) share one store "
        "without running a cell twice. The Runs page compares a grid's runs. See README.md for the file.")
    p.add_argument("file", metavar="GRID.yaml", help="the grid file (YAML; see README.md, 'Grids of runs')")
    p.add_argument("--shard", metavar="I/N",
                   help="run shard I of N only, 0-based: 0/4 ... 3/4 (default: the whole grid, 0/1)")
    p.add_argument("--plan", action="store_true",
                   help="list every cell, its shard and whether it is done, partial or to do; run nothing "
                        "(also loads the demo catalog into the store: run it once before starting shards)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_grid)
