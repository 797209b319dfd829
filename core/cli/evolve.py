"""``toolatlas evolve``: a CONTDA timeline run (evolving toolset, four documentation methods) over a query set."""

from __future__ import annotations

import os
import random
import sys

from core.cli.common import (
    add_common,
    add_llm,
    announce_plan,
    emit,
    llm_config,
    open_workspace,
    resolve_version,
)


def _queries(ws, args, catalog: str):
    from pathlib import Path

    from core.evaluation import select_queries
    from core.importers.queries import parse_queries_jsonl
    from storage.catalogs import import_queries, list_query_sets, load_queries

    if args.queries:
        path = Path(args.queries)
        known = set(ws.every_tool(catalog))
        queries = parse_queries_jsonl(path.read_bytes(), str(path), known_keys=known)
        import_queries(ws.db, catalog, path.stem, queries)
    else:
        sets = {s.name: s for s in list_query_sets(ws.db, catalog)}
        if not sets:
            raise ValueError(f"catalog {catalog!r} has no query set; pass --queries Q.jsonl")
        # The demo's timeline set is written for its versions; a simulation draws from the latest version,
        # where the main set fits.
        wanted = args.query_set or ("timeline" if catalog == "demo" and args.versions else next(iter(sets)))
        if wanted not in sets:
            raise ValueError(f"catalog {catalog!r} has no query set {wanted!r} (it has: {', '.join(sets)})")
        queries = load_queries(ws.db, sets[wanted].id)
    queries = select_queries(queries, split=args.split, limit=args.limit)
    if args.sample and args.sample < len(queries):
        # A seeded sample, kept in catalog order, so the same command evaluates the same queries.
        keep = set(random.Random(0).sample(range(len(queries)), args.sample))
        queries = [q for i, q in enumerate(queries) if i in keep]
    return queries


def cmd_evolve(args) -> int:
    from core.evolution.adjust import AdjustConfig
    from core.evolution.explore import ExploreConfig
    from core.evolution.markov import MarkovConfig
    from core.evolution.methods import DEFAULT_METHODS
    from core.evolution.pipeline import EvolutionConfig
    from core.evolution.service import EvolutionSpec, run_evolution

    ws = open_workspace(args)
    resolve_version(ws, args.name, None)
    queries = _queries(ws, args, args.name)
    source = "versions" if args.versions else "markov"
    markov = MarkovConfig(pattern=args.pattern, steps=args.steps, initial=args.initial, rate=args.rate)
    config = EvolutionConfig(k=args.k, explore=ExploreConfig(tau=args.tau, k=args.related, max_iterations=args.budget),
                             adjust=AdjustConfig(max_cluster=args.max_cluster, gamma=args.gamma),
                             concurrency=args.concurrency, judge=args.judge, index_notes=args.index_notes,
                             fallback=not args.no_fallback)
    spec = EvolutionSpec(args.name, source, markov, seeds=tuple(range(args.seeds)),
                         methods=tuple(args.method or DEFAULT_METHODS),
                         config=config)
    router = None
    if args.execute:
        from core.execution.setup import build_router, plan_executors

        plan = plan_executors(ws.mcp_servers(args.name), demo=args.name == "demo", mcp=[args.mcp] if args.mcp else [])
        announce_plan(plan)
        router = build_router(plan)

    def progress(share: float, label: str) -> None:
        sys.stderr.write(f"\revolve: {100 * share:5.1f}% {label:<60}")
        if share >= 1.0:
            sys.stderr.write("\n")
        sys.stderr.flush()

    from core.evolution.report import paired_rows, rescued
    from core.evolution.service import finished_run, load_evolution

    stored = None if args.fresh else finished_run(ws, spec, queries, llm=llm_config(args), router=router)
    try:
        if stored is not None:  # the same timeline with the same settings: shown, not stored twice
            print(f"evolve: timeline #{stored.id} already holds this run (same settings, queries and catalog "
                  "version); shown from the store, --fresh runs it again", file=sys.stderr)
            run = load_evolution(ws, stored.id)
        else:
            run = run_evolution(ws, spec, queries, llm=llm_config(args), api_key=os.environ.get("OPENAI_API_KEY"),
                                router=router, resume=not args.fresh, progress=None if args.json else progress)
    finally:
        if router is not None:
            router.close()
    data = run.to_json()
    out = {"catalog": args.name, "source": source, "pattern": args.pattern if source == "markov" else None,
           "steps": data["summary"].get("steps"), **{k: v for k, v in data.items() if k != "summary"}}
    methods = data["summary"].get("methods", {})
    saved = rescued(run.results)
    out["methods"] = {m: {"avg_perf": v["avg_perf"], "forget": v["forget"], "discover": v["discover"],
                          "success_by_step": [round(x["mean"], 4) for x in v["success_by_step"]],
                          "rescued_by_fallback": round(saved.get(m, 0.0), 3)}
                      for m, v in methods.items()}
    if not args.json:
        out.pop("table")
        out["methods"] = "\n" + "\n".join(
            f"  {v['label']:<24} AvgPerf {100 * v['avg_perf']['mean']:6.2f} ± {100 * v['avg_perf']['se']:.2f}"
            f"  Forget {100 * v['forget']['mean']:5.2f} ± {100 * v['forget']['se']:.2f}"
            f"  Discover {100 * v['discover']['mean']:5.2f} ± {100 * v['discover']['se']:.2f}"
            f"  rescued by fallback {saved.get(m, 0.0):.1f}"
            for m, v in methods.items())
        out.pop("paired_tests")  # printed last, after the methods it compares
        rows = paired_rows(run.paired_tests())
        out["paired_tests"] = "\n" + "\n".join("  " + "  ".join(f"{k} {v}" for k, v in row.items() if v != "") for row in rows) \
            + "\n  (success rate per (seed, step) cell from t1, a seed that replays another's cell counted once; " \
              "paired permutation test, bootstrap 95% CI)" \
            if rows else "none (one method)"
    return emit(out, args.json)


def register(sub) -> None:
    """Add ``evolve`` to ``sub`` (the ``toolatlas`` subparsers)."""
    from core.evolution.markov import PATTERNS
    from core.evolution.methods import METHODS

    p = sub.add_parser("evolve", help="CONTDA timeline: evolve a catalog's toolset and compare documentation methods")
    p.add_argument("name", help="a stored catalog ('demo' is loaded on demand)")
    p.add_argument("--queries", help="queries JSONL {id, query, gold, split} (default: the catalog's query set)")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: 'timeline' for the demo's "
                   "versions, else the first set)")
    p.add_argument("--versions", action="store_true",
                   help="walk the catalog's stored versions instead of simulating (the demo has 5)")
    p.add_argument("--pattern", default="mixture", choices=PATTERNS, help="Markov evolution pattern")
    p.add_argument("--steps", type=int, default=5, help="Markov steps T (T+1 toolsets)")
    p.add_argument("--initial", type=float, help="share of the pool at step 0 (default per pattern)")
    p.add_argument("--rate", type=float, default=0.1, help="share of the pool changed per step")
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (0..N-1; the paper runs five, App. B.3)")
    p.add_argument("--method", action="append", choices=list(METHODS), help="methods to compare (repeatable)")
    p.add_argument("-k", dest="k", type=int, default=5, help="top-k retrieved before selection")
    p.add_argument("--tau", type=float, default=0.45, help="Stage I related-tool threshold τ")
    p.add_argument("--related", type=int, default=3, help="Stage I related tools sampled per iteration")
    p.add_argument("--budget", type=int, default=3, help="Stage I iterations per new tool at most")
    p.add_argument("--max-cluster", type=int, default=6, help="Stage II cluster size cap λ")
    p.add_argument("--gamma", type=float, default=0.75, help="Stage II fallback similarity γ")
    p.add_argument("--concurrency", type=int, default=1, help="new tools explored at once")
    p.add_argument("--execute", action="store_true",
                   help="run probes through executors (the demo MCP server for 'demo', or --mcp)")
    p.add_argument("--judge", default="selection", choices=["selection", "execution"],
                   help="success = gold tool picked (selection) or picked and answering a real call (execution; "
                        "needs --execute)")
    p.add_argument("--no-fallback", action="store_true",
                   help="the agent stops at a failed call instead of following the relational notes to a fallback "
                        "(the fallback needs the execution judge)")
    p.add_argument("--index-notes", action="store_true",
                   help="index each tool's relational notes with its description for retrieval (the paper appends "
                        "them to the documentation; default: the notes are shown to the selecting agent only)")
    p.add_argument("--mcp", nargs="+", metavar="ARG", help="an MCP server command line serving the catalog's tools")
    p.add_argument("--limit", type=int, help="first N queries")
    p.add_argument("--sample", type=int, help="a seeded random sample of N queries")
    p.add_argument("--split")
    p.add_argument("--fresh", action="store_true",
                   help="start a new run instead of resuming an unfinished one or showing a finished one with the "
                        "same settings")
    p.add_argument("--json", action="store_true")
    add_common(p)
    add_llm(p)
    p.set_defaults(func=cmd_evolve)
