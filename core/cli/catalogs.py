"""``toolatlas import``, ``import-benchmark``, ``doc-quality``, ``index``, ``search``, ``catalogs``, ``export``
and ``delete``: bringing catalogs in, looking at them, and taking them out again."""

from __future__ import annotations

import json
import os
import sys

from core.cli.common import (
    add_common,
    add_llm,
    emit,
    llm_config,
    open_workspace,
    progress_printer,
    resolve_version,
)


def _report_import(report, args, skipped: tuple[str, ...] | None = None) -> int:
    out = {
        "catalog": report.version.catalog_name,
        "version": report.version.number,
        "tools": report.version.n_tools,
        "reused": report.reused,
        "query_set": report.query_set.name if report.query_set else None,
        "queries": report.query_set.n_queries if report.query_set else 0,
    }
    if skipped is not None:
        out["skipped"] = list(skipped)
    out["dropped_launch_fields"] = [{"tool": d.tool, "field": d.field} for d in report.dropped]
    if args.json:
        print(json.dumps(out))
        return 0
    print("imported {tools} tools into {catalog} v{version} ({queries} queries){}".format(
        " (unchanged)" if report.reused else "", **out))
    for line in skipped or ():
        print(f"  left out: {line}")
    if report.dropped:
        print(f"  {report.dropped_summary}")
    return 0


def cmd_import(args) -> int:
    ws = open_workspace(args)
    report = ws.import_files(args.tools, name=args.name, queries_path=args.queries, label=args.label or "")
    return _report_import(report, args)


def cmd_import_benchmark(args) -> int:
    from core.importers.benchmark import collect_files, parse_benchmark

    parsed = parse_benchmark(args.format, collect_files(args.paths))  # bad input fails before the store opens
    report = open_workspace(args).import_benchmark(parsed, name=args.name, label=args.label or "",
                                                   source=" ".join(str(p) for p in args.paths))
    return _report_import(report, args, parsed.skipped)


def cmd_doc_quality(args) -> int:
    from core.doc_quality import issue_kinds, rate_all

    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    tools = list(ws.tools(version.id))[: args.limit] if args.limit else list(ws.tools(version.id))
    operators = None
    if args.llm != "offline":
        from core.llm.framework import make_roles
        from core.llm.ledger import SqlLedger

        llm = llm_config(args)
        operators = make_roles("strategy", "openai", ledger=SqlLedger(ws.db), base_url=llm.base_url,
                               model=llm.model, api_key=os.environ.get("OPENAI_API_KEY"), replay=llm.replay, **llm.options)
    # the rules rate ~50,000 tools/s: a progress line only for a model's calls
    show = operators is not None and not args.json
    ratings = rate_all(tools, operators, progress=progress_printer("rated") if show else None)
    worst = sorted(ratings, key=lambda r: (r.score, -len(r.issues), r.key))[: args.worst]
    out = {
        "catalog": args.name, "version": version.number, "tools": len(ratings),
        "rater": "rules" if operators is None else operators.model,
        "mean_score": round(sum(r.score for r in ratings) / max(len(ratings), 1), 3),
        "scores": {str(s): sum(r.score == s for r in ratings) for s in range(1, 6)},
        "failed_calls": sum(r.error is not None for r in ratings),
        "issues": issue_kinds(ratings),
        "worst": [{"key": r.key, "score": r.score, "issues": list(r.issues)} for r in worst],
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['tools']} tools rated by {out['rater']}: mean {out['mean_score']} / 5; scores {out['scores']}")
    for kind, n in out["issues"].items():
        print(f"  {n:6d}  {kind}")
    return 0


def cmd_index(args) -> int:
    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    stats = ws.index(version.id, progress=None if args.json else progress_printer("embedding"))
    if args.json:
        print(json.dumps({"catalog": args.name, "version": version.number, **stats}))
    else:
        print(
            f"{stats['tools']} tools: {stats['encoded']} encoded, {stats['cached']} from cache, "
            f"{stats['seconds']} s ({stats['tools_per_second']} tools/s)"
        )
    return 0


def cmd_search(args) -> int:
    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    engine = ws.search_engine(version.id)
    result = engine.search(args.text, args.k, mode=args.mode, alpha=args.alpha, rerank=args.rerank)
    by_key = {t.key: t for t in engine.tools}
    if args.json:
        print(json.dumps({
            "query": args.text, "mode": args.mode, "alpha": args.alpha, "seconds": round(result.seconds, 4),
            "hits": [{"rank": h.rank, "key": h.key, "name": by_key[h.key].name, "score": round(h.score, 6),
                      "dense": h.dense, "sparse": h.sparse} for h in result.hits],
        }))
    else:
        for h in result.hits:
            desc = by_key[h.key].description.replace("\n", " ")
            print(f"{h.rank:>3}  {h.score:8.4f}  {h.key}  — {desc[:80]}")
    return 0


def cmd_catalogs(args) -> int:
    from storage.catalogs import list_catalogs, list_query_sets

    ws = open_workspace(args)
    if args.demo:
        ws.ensure_demo()
    rows = [
        {"name": c.name, "versions": len(c.versions), "tools": c.latest.n_tools,
         "query_sets": [q.name for q in list_query_sets(ws.db, c.name)]}
        for c in list_catalogs(ws.db)
    ]
    if args.json:
        print(json.dumps(rows))
    else:
        for r in rows:
            print(f"{r['name']}: {r['tools']} tools, {r['versions']} version(s), query sets: {', '.join(r['query_sets']) or '-'}")
    return 0


def cmd_delete(args) -> int:
    from storage.catalogs import get_catalog, list_query_sets

    ws = open_workspace(args)
    info = get_catalog(ws.db, args.name)
    if not args.yes:
        sets = list_query_sets(ws.db, args.name)
        print(f"would delete catalog {args.name!r}: {len(info.versions)} version(s), {len(sets)} query set(s) and "
              "every stored run made on them; run again with --yes to delete", file=sys.stderr)
        return 1
    deleted = ws.delete_catalog(args.name)
    out = {"deleted": deleted.name, "versions": deleted.versions, "tools": deleted.tools,
           "query_sets": deleted.query_sets, "runs": deleted.runs}
    return emit(out, args.json)


def cmd_export(args) -> int:
    from core.importers.export import export_openai_tools

    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    text = export_openai_tools(ws.tools(version.id), args.format)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def register(sub) -> None:
    """Add the catalog commands to ``sub`` (the ``toolatlas`` subparsers)."""
    from core.importers.benchmark import FORMATS
    from core.importers.export import FORMATS as EXPORT_FORMATS

    p = sub.add_parser("import", help="import a catalog file (OpenAI tools JSON, OpenAPI 3, saved MCP tools/list)")
    p.add_argument("tools")
    p.add_argument("--queries", help="queries JSONL {id, query, gold, split}")
    p.add_argument("--name", help="catalog name (default: file name + content hash)")
    p.add_argument("--label", help="version label")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("import-benchmark", help="import a public benchmark in its published layout (tools, "
                       "queries and gold labels): " + ", ".join(FORMATS))
    p.add_argument("format", choices=list(FORMATS), help="; ".join(f"{k}: {v}" for k, v in FORMATS.items()))
    p.add_argument("paths", nargs="+", help="the benchmark's files, folders or a zip of its folder")
    p.add_argument("--name", help="catalog name (default: the format's name)")
    p.add_argument("--label", help="version label (default: the format's name)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_import_benchmark)

    p = sub.add_parser("doc-quality", help="rate each tool's documentation 1-5 and list what to fix "
                       "(rules, or a model with --llm openai)")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--limit", type=int, help="rate the first N tools only")
    p.add_argument("--worst", type=int, default=10, help="how many of the lowest-rated tools to list (JSON)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    add_llm(p)
    p.set_defaults(func=cmd_doc_quality)

    p = sub.add_parser("index", help="embed a catalog into the cache (reports tools/s)")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search a catalog")
    p.add_argument("name")
    p.add_argument("text")
    p.add_argument("--mode", default="dense", choices=["dense", "bm25", "hybrid", "rrf"])
    p.add_argument("--alpha", type=float, default=1.0,
                   help="dense weight for --mode hybrid (ToolScope Eq. 4; default 1.0, dense-only was best in §4.4)")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--version", type=int)
    p.add_argument("--rerank", action="store_true", help="rerank the top 50 with the configured cross-encoder")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("catalogs", help="list stored catalogs")
    p.add_argument("--demo", action="store_true", help="load the built-in demo catalog first")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_catalogs)

    p = sub.add_parser("export", help="export a catalog as OpenAI tools JSON")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--out")
    p.add_argument("--format", choices=list(EXPORT_FORMATS), default="openai",
                   help="openai: exactly an OpenAI tools list (the default); atlas: plus our key, category and "
                        "extras, read back by `toolatlas import` to the same tools")
    add_common(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("delete", help="delete a catalog with its versions, query sets and the runs made on them")
    p.add_argument("name")
    p.add_argument("--yes", action="store_true", help="really delete (without it, say what would go and stop)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_delete)
