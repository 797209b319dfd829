"""``toolatlas map``: a catalog version's 2-D map (UMAP, t-SNE or PCA) as a table of tool key, name, category, x, y.

The coordinates come from :meth:`core.workspace.Workspace.projection`, the cached path the Overlap map page uses:
a map computed here is the page's map (same method, parameters, model and store) and the other way round.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from core.cli.common import add_common, emit, open_workspace, parse_params, progress_printer, resolve_version
from core.projection import METHODS, resolve_params

FORMATS = (".csv", ".json", ".parquet")
COLUMNS = ("key", "name", "category", "x", "y")


def map_rows(tools, coords) -> list[dict]:
    """One row per tool, in the store's order, with its map coordinates."""
    if len(tools) != len(coords):
        raise ValueError(f"the map has {len(coords)} points for {len(tools)} tools")
    return [{"key": t.key, "name": t.name, "category": t.category, "x": float(x), "y": float(y)}
            for t, (x, y) in zip(tools, coords, strict=True)]


def write_rows(rows: list[dict], path: str) -> None:
    """Write ``rows`` to ``path`` as CSV, JSON (a list of objects) or Parquet, by its suffix; a file is
    written whole or not at all (a temporary file renamed into place)."""
    target = Path(path)
    suffix = _format(path)
    partial = target.with_name(target.name + ".partial")
    try:
        if suffix == ".parquet":
            import pandas as pd

            try:
                pd.DataFrame(rows, columns=list(COLUMNS)).to_parquet(partial, index=False)
            except ImportError as exc:
                raise ValueError(f"writing parquet needs pyarrow (pip install pyarrow): {exc}") from exc
        else:
            partial.write_text(_csv(rows) if suffix == ".csv" else json.dumps(rows, ensure_ascii=False),
                               encoding="utf-8")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def _format(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"cannot write a map to {path!r}: the file name must end in one of {', '.join(FORMATS)}")
    return suffix


def _csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def cmd_map(args) -> int:
    params = parse_params(args.param)
    resolve_params(args.method, params)  # a bad parameter or output name fails before a long map starts
    if args.out:
        _format(args.out)
    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    cached = ws.has_projection(version.id, args.method, params)
    progress = None
    if not cached and not args.json:
        bar = progress_printer(f"{args.method} map of {version.n_tools:,} tools")

        def progress(share: float, label: str) -> None:
            bar(round(share * 100), 100)
    coords = ws.projection(version.id, args.method, params, progress=progress)
    rows = map_rows(ws.tools(version.id), coords)
    if not args.out:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n" if args.json else _csv(rows))
        return 0
    write_rows(rows, args.out)
    return emit({"catalog": version.catalog_name, "version": version.number, "method": args.method,
                 "params": params, "tools": len(rows), "cached": cached, "out": args.out}, args.json)


def register(sub) -> None:
    p = sub.add_parser(
        "map", help="a catalog's 2-D map (UMAP, t-SNE, PCA) as a table of tool key, name, category, x, y",
        description="Compute (once; then read from the store) the 2-D map of a catalog version that the Overlap "
                    "map page draws, and write one row per tool: key, name, category, x, y. Without -o the rows "
                    "go to stdout as CSV (a JSON list with --json); with -o they go to the file and a summary to "
                    "stdout.")
    p.add_argument("name", help="catalog name ('demo' loads the demo catalog)")
    p.add_argument("--version", type=int, help="catalog version number (default: the latest)")
    p.add_argument("--method", default="umap", choices=METHODS, help="projection method (default: umap)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a method parameter, repeatable: umap n_neighbors, min_dist, metric, seed, n_epochs "
                        "(default: UMAP's own); tsne perplexity, metric, init, seed; pca seed")
    p.add_argument("-o", "--out", metavar="FILE", help="write the rows to FILE: " + ", ".join(FORMATS))
    p.add_argument("--json", action="store_true", help="JSON instead of text (and no progress bar)")
    add_common(p)
    p.set_defaults(func=cmd_map)
