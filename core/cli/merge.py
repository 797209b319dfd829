"""``toolatlas merge``: merge overlapping tools of a catalog (ToolScopeMerger) and measure it."""

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
    pick_query_set,
    resolve_version,
    stage_printer,
)


def cmd_merge(args) -> int:
    from core.merging.pipeline import MergeConfig
    from core.merging.service import measure, merge_version
    from storage.catalogs import load_queries
    from storage.ledger import count_calls

    ws = open_workspace(args)
    if args.name == "demo":
        ws.ensure_demo()
    version = resolve_version(ws, args.name, args.version)
    llm = llm_config(args)
    from core.merging.calibration import recommended_threshold

    advice = recommended_threshold(ws.vector_space, paper=args.paper_threshold)
    threshold = args.threshold if args.threshold is not None else advice.threshold
    config = MergeConfig(threshold=threshold, k=args.k, autocorrect=not args.no_autocorrect)
    if not args.json and args.threshold is None:
        print(f"θ {threshold:.2f}: {advice.note}", file=sys.stderr)
    run = merge_version(ws, version.id, config, llm, seed=args.seed, api_key=os.environ.get("OPENAI_API_KEY"),
                        fresh=args.fresh, progress=None if args.json else stage_printer())
    engine = ws.search_engine(version.id)
    query_set = pick_query_set(ws, args.name, args.query_set, required=False)
    queries = load_queries(ws.db, query_set.id) if query_set else []
    if args.limit:
        queries = queries[: args.limit]
    merged = run.result.reduced_catalog(engine.tools)
    conflicts = sum(len(t.extra.get("merge_conflicts", ())) for t in run.result.merged_tools.values())
    out = {"catalog": args.name, "version": version.number, "run_id": run.run_id, "threshold": config.threshold,
           "threshold_source": "given" if args.threshold is not None else
           "recommended" if advice.calibrated else "paper", "autocorrect": config.autocorrect, "judge": llm.kind, **run.result.summary(),
           "llm_calls": count_calls(ws.db, run_id=run.run_id),
           "llm_errors": count_calls(ws.db, run_id=run.run_id, errors_only=True),
           "parameter_conflicts": conflicts,
           **measure(engine, merged, run.result, queries, k=5, coverage_check=args.coverage_check).as_dict()}
    if not args.json:  # TCCR/UCC are null in JSON when the query set has no gold calls with arguments
        out.update({k: "not measured" for k in ("tccr", "ucc") if out[k] is None})
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
    return emit(out, args.json)


def register(sub) -> None:
    """Add ``merge`` to ``sub`` (the ``toolatlas`` subparsers)."""
    from core.merging.measures import COVERAGE_CHECKS

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
    p.add_argument("--coverage-check", choices=COVERAGE_CHECKS, default="values",
                   help="TCCR/UCC: validate each gold call's argument values against the merged tool's JSON Schema "
                        "('values', ours, the default) or only its argument names ('names', ToolScope App. K.1)")
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming or reusing one")
    p.add_argument("--out", metavar="MERGED.json", help="write the merged catalog as OpenAI tools JSON (with the "
                   "Merge review page's decisions applied, if any: the file its export button gives)")
    p.add_argument("--phi", metavar="PHI.json", help="write the merge mapping φ (tool key -> kept key) as JSON")
    add_llm(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_merge)
