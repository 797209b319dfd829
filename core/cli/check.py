"""``toolatlas check BASE NEW``: the regression gate of a tool catalog (see :mod:`core.check.service`).

Exit status: 0 when no ``--fail-on`` rule fires, 1 when one does, 2 on bad input (then nothing is written:
no report file, nothing in the store). BASE and NEW are checked and parsed before the store is opened.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from core.cli.common import add_common, add_llm, llm_config, open_workspace


def _report_path(path: str | None) -> Path | None:
    if not path:
        return None
    out = Path(path)
    if out.exists() and out.is_dir():
        raise ValueError(f"--report {path}: is a directory; give a file name such as report.html")
    if not out.parent.is_dir():
        raise ValueError(f"--report {path}: folder {str(out.parent)!r} does not exist")
    return out


def _queries(path: str | None, base, new) -> tuple:
    """The queries of ``path`` (none without one); their gold keys may name tools of either version."""
    if not path:
        return ()
    from core.importers.queries import parse_queries_jsonl

    known = {t.key for t in base.tools} | {t.key for t in new.tools}
    return parse_queries_jsonl(Path(path).read_bytes(), path, known_keys=known)


def _progress(enabled: bool):
    if not enabled:
        return None

    def say(share: float, label: str) -> None:
        sys.stderr.write(f"[{share:4.0%}] {label}\n")
        sys.stderr.flush()
    return say


def cmd_check(args) -> int:
    from core.check.inputs import is_stored, resolve, workspace_loader
    from core.check.service import CheckConfig, parse_rules, run_check

    config = CheckConfig(k=args.k, threshold=args.threshold, neighbours=args.neighbours, mode=args.mode,
                         solved=args.solved, fail_on=parse_rules(args.fail_on))
    report = _report_path(args.report)
    if args.queries and not Path(args.queries).is_file():
        raise ValueError(f"--queries {args.queries}: no such file")
    llm = llm_config(args)
    # Files and MCP servers first, before the store is opened: bad input leaves nothing behind.
    sides = {which: None if is_stored(spec) else resolve(spec) for which, spec in (("BASE", args.base), ("NEW", args.new))}
    queries = _queries(args.queries, sides["BASE"], sides["NEW"]) if all(sides.values()) else None
    ws = open_workspace(args)
    loader = workspace_loader(ws)
    base = sides["BASE"] or resolve(args.base, stored=loader)
    new = sides["NEW"] or resolve(args.new, stored=loader)
    if queries is None:
        queries = _queries(args.queries, base, new)
    judge = operators = None
    if llm.kind != "offline":
        from core.merging.service import judge_for

        judge = judge_for(ws.db, llm, api_key=os.environ.get("OPENAI_API_KEY"))
        operators = judge.ops
    result = run_check(base, new, embedder=ws.embedder, vector_space=ws.vector_space, cache=ws.cache,
                       queries=queries, config=config, judge=judge, doc_operators=operators,
                       with_parameters=ws.text_with_parameters, map_method=args.map_method if report else None,
                       progress=_progress(not (args.json or args.markdown or args.quiet)))
    if report is not None:
        from core.check.report import render_html

        report.write_text(render_html(result), encoding="utf-8")
        sys.stderr.write(f"report: {report}\n")
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    elif args.markdown:
        from core.check.summary import markdown

        sys.stdout.write(markdown(result))
    else:
        from core.check.summary import text

        sys.stdout.write(text(result))
    return result.exit_code


def register(sub) -> None:
    from core.check.service import DEFAULT_FAIL_ON, RULES

    p = sub.add_parser(
        "check", help="compare two versions of a catalog: breaking changes, new overlaps, retrieval regressions",
        description="Compare catalog NEW with BASE and fail (exit 1) when a --fail-on rule fires; exit 2 on bad input. "
                    "BASE / NEW: a catalog file (OpenAI tools JSON, OpenAPI, saved MCP tools/list), a stored version "
                    "NAME@vN, or mcp:COMMAND (starts that MCP server and lists its tools; only what you type here "
                    "is ever run). Rules: " + "; ".join(f"{r}: {d}" for r, d in RULES.items()) + ".")
    p.add_argument("base", metavar="BASE", help="the version to compare against")
    p.add_argument("new", metavar="NEW", help="the version under review")
    p.add_argument("--queries", metavar="Q.jsonl", help="queries with gold tool keys: check retrieval regressions")
    p.add_argument("-k", type=int, default=5, help="a query is solved when its gold tools are in the top k (default 5)")
    p.add_argument("--solved", choices=["all", "any"], default="all",
                   help="solved when all (default) or any of a query's gold tools are in the top k")
    p.add_argument("--mode", default="dense", choices=["dense", "bm25", "hybrid", "rrf"], help="search mode (default dense)")
    p.add_argument("--threshold", type=float, metavar="θ",
                   help="cosine threshold of overlap candidates (default: the one recommended for the embedding model)")
    p.add_argument("--neighbours", type=int, default=30, help="nearest neighbours per tool in the candidate stage")
    p.add_argument("--fail-on", metavar="RULES",
                   help=f"comma-separated rules that fail the check, or none / all (default: {','.join(DEFAULT_FAIL_ON)})")
    p.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report (opens offline)")
    p.add_argument("--map-method", default="umap", choices=["umap", "tsne", "pca"],
                   help="projection of the report's overlap maps (default umap)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the full result as one JSON document")
    out.add_argument("--markdown", action="store_true", help="print a short Markdown summary for a pull request")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_common(p)
    add_llm(p)
    p.set_defaults(func=cmd_check)
