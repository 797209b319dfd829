"""``toolatlas trials``: GRETEL trials over a query set, printed as JSON or a table."""

from __future__ import annotations

import os
import sys


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


def cmd_trials(args) -> int:
    from core.cli import _emit, _llm, _parse_params, _version, _workspace
    from core.evaluation import select_queries
    from core.execution.setup import build_router, plan_executors
    from core.trials.pipeline import TrialConfig
    from core.trials.service import run_trial_set
    from storage.catalogs import load_queries

    ws = _workspace(args)
    version = _version(ws, args.name, args.version)
    if args.queries:
        query_set = ws.import_query_file(args.name, args.queries, version_id=version.id)
    else:
        from core.cli import pick_query_set

        query_set = pick_query_set(ws, args.name, args.query_set)
    queries = select_queries(load_queries(ws.db, query_set.id), split=args.split, limit=args.limit)
    config = TrialConfig(k=args.k, simulate=not args.no_simulate, timeout=args.timeout,
                         concurrency=args.concurrency, today=args.today)
    plan = plan_executors(ws.mcp_servers(args.name), demo=args.name == "demo" and not args.no_demo_server,
                          mcp=[args.mcp] if args.mcp else [], http_hosts=args.allow_host or (), sandbox=args.sandbox)
    announce_plan(plan)
    router = build_router(plan, timeout=args.timeout)

    def progress(done: int, total: int, qid: str) -> None:
        sys.stderr.write(f"\rtrials: {done}/{total} {qid:<24}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    try:
        run = run_trial_set(ws, version.id, queries, router, strategy=args.strategy, params=_parse_params(args.param),
                            config=config, llm=_llm(args), seed=args.seed, api_key=os.environ.get("OPENAI_API_KEY"),
                            query_set_id=query_set.id, resume=not args.fresh,
                            progress=None if args.json else progress)
    finally:
        router.close()
    out = {"catalog": args.name, "version": version.number, "strategy": args.strategy, "candidates": args.k,
           "simulate": config.simulate, "executors": plan.to_json(), **run.to_json()}
    return _emit(out, args.json)


def add_trials_parser(sub) -> None:
    from core.cli import _add_common, _add_llm

    p = sub.add_parser("trials", help="GRETEL trials: plan, execute and re-rank each query's top candidates")
    p.add_argument("name", help="a stored catalog ('demo' is loaded on demand and uses the demo MCP server)")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: the only one, or the one "
                   "named after the catalog)")
    p.add_argument("--queries", help="queries JSONL {id, query, gold, split} (default: the catalog's query set)")
    p.add_argument("--strategy", default="query", help="initial ranking strategy")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="strategy parameter (repeatable)")
    p.add_argument("-K", "-k", dest="k", type=int, default=10, help="candidates tried per query")
    p.add_argument("--no-simulate", action="store_true", help="no simulated answers after transient failures")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per tool call")
    p.add_argument("--concurrency", type=int, default=4, help="candidates tried at once")
    p.add_argument("--today", help="ISO date relative dates in queries are resolved against (default: today)")
    p.add_argument("--mcp", nargs="+", metavar="ARG", help="an extra MCP server command line (stdio)")
    p.add_argument("--allow-host", action="append", help="switch the HTTP executor on for this host (repeatable)")
    p.add_argument("--sandbox", action="store_true",
                   help="run tools that carry inline Python code (extra.python.source) in the sandbox executor")
    p.add_argument("--no-demo-server", action="store_true", help="demo catalog without its MCP server")
    p.add_argument("--limit", type=int)
    p.add_argument("--split")
    p.add_argument("--version", type=int)
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming an unfinished one")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    _add_common(p)
    _add_llm(p)
    p.set_defaults(func=cmd_trials)
