"""``toolatlas eval``: run a retrieval strategy over a query set and score it (stored, resumable); ``toolatlas
score``: score a stored run again on other metrics, without running it."""

from __future__ import annotations

import os
import sys
from typing import Any

from core.cli.common import (
    add_common,
    add_llm,
    emit,
    llm_config,
    open_workspace,
    parse_params,
    pick_query_set,
    progress_printer,
    resolve_version,
)


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


def cmd_eval(args) -> int:
    from core.evaluation import evaluate, select_queries
    from storage.catalogs import load_queries

    ws = open_workspace(args)
    if args.tools:
        report = _eval_file_catalog(ws, args)
        version = report.version
        # no --queries: a query set stored with the catalog before, if it has one
        query_set = report.query_set or pick_query_set(ws, version.catalog_name, args.query_set, required=False)
    elif args.name:
        version = resolve_version(ws, args.name, args.version)
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
    params = parse_params(args.param)
    _search_options(args, params)
    llm = llm_config(args)
    result = evaluate(
        ws, version.id, query_set.id, queries, strategy=args.strategy, params=params, k=args.k,
        progress=None if args.json else progress_printer("queries"), resume=not args.fresh,
        llm=llm, seed=args.seed, api_key=os.environ.get("OPENAI_API_KEY"),
    )
    out = {**result.to_json(), "catalog": version.catalog_name, "version": version.number,
           "query_set": query_set.name}
    return emit(out, args.json)


def cmd_score(args) -> int:
    """Score stored eval run RUN_ID on ``--metric`` (default: every metric at the run's own k), without running
    anything; with ``--baseline``, a paired test of each metric against that run over the queries they share."""
    from core.compare import paired_test
    from core.evaluation import load_run
    from core.scoring import DEFAULT_METRICS, params_label, score

    ws = open_workspace(args)
    run = load_run(ws, args.run_id)
    report = score(run, metrics=args.metric or DEFAULT_METRICS)
    out: dict[str, Any] = {"run_id": run.run_id, "strategy": run.strategy, "params": params_label(run.params),
                           "k": run.k, **report.as_dict()}
    if args.baseline is not None:
        base = score(load_run(ws, args.baseline), metrics=[m.label for m in report.metrics])
        tests = {m.label: paired_test(base, report, m.label) for m in report.metrics}
        out["baseline"] = base.label
        for label, t in tests.items():
            out[f"vs baseline {label}"] = _test_result(t, args.json)
    return emit(out, args.json)


def _test_result(t, as_json: bool):
    """One paired test as ``score`` prints it: a dict for --json, else a line (None: too few shared queries)."""
    if t is None:
        return None if as_json else "fewer than 10 shared queries: not tested"
    if as_json:
        return {"shared": t.n, "mean_difference": round(t.mean_difference, 6),
                "ci95": [round(t.ci_low, 6), round(t.ci_high, 6)], "p": round(t.p_value, 6),
                "wins": t.wins, "ties": t.ties, "losses": t.losses}
    return (f"{t.mean_difference:+.4f} (95% CI {t.ci_low:+.4f} to {t.ci_high:+.4f}), p = {t.p_value:.4f}, "
            f"{t.wins} wins / {t.ties} ties / {t.losses} losses over {t.n} shared queries")


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


def register(sub) -> None:
    """Add ``eval`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser("eval", help="run a retrieval strategy over a query set and score it",
                       description="Run a retrieval strategy over a query set and score it. The run is stored "
                       "(resumable) and listed on the app's Runs page. For a strategy with a fitness (memetic, "
                       "memetic_v2) the output also gives fitness_truth_spearman: the mean over queries of "
                       "Spearman's rho between each scored member's fitness and its nDCG@k against gold.")
    p.add_argument("name", nargs="?", help="a stored catalog; with --tools, the name FILE is stored under")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: the only one, or the one "
                   "named after the catalog)")
    p.add_argument("--tools", metavar="FILE", help="evaluate a catalog file: it is stored as catalog NAME (default: "
                   "the file name without extension, e.g. tools.json -> 'tools'), printed on stderr; the same "
                   "content again reuses it; a different catalog already under the default name is an error")
    p.add_argument("--queries", help="queries JSONL")
    p.add_argument("--strategy", default="query")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="strategy parameter (repeatable); memory=session keeps a strategy's tool memory across the "
                        "run's queries (FitText App. C.2; default memory=query: each query starts empty)")
    p.add_argument("--mode", choices=["dense", "bm25", "hybrid", "rrf"],
                   help="retrieval mode, for strategies that take one (query: dense by default)")
    p.add_argument("--alpha", type=float, help="hybrid dense weight, for strategies that take one (default 1.0)")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--limit", type=int)
    p.add_argument("--split")
    p.add_argument("--version", type=int)
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming an unfinished one")
    add_llm(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("score", help="score a stored eval run again on other metrics, without running it",
                       description="Score a stored evaluation run (its id is in `eval`'s output and on the Runs page) "
                       "on other metrics, from the rankings it stored: nothing is run again. A cut-off deeper than "
                       "the run's k is an error (it stored its top k only).")
    p.add_argument("run_id", type=int, metavar="RUN_ID")
    p.add_argument("--metric", action="append", default=[], metavar="NAME[@K]",
                   help="ndcg, recall, precision, comprehensiveness or csr at @K (without @K: the run's own k), "
                        "or mrr; repeatable (default: every metric at the run's k)")
    p.add_argument("--baseline", type=int, metavar="RUN_ID",
                   help="also test each metric against this run (paired permutation test and bootstrap interval "
                        "over the queries both answered)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_score)
