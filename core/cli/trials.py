"""``toolatlas trials``: GRETEL trials over a query set, printed as JSON or a table."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from core.cli.common import (
    add_common,
    add_llm,
    announce_plan,
    emit,
    llm_config,
    open_workspace,
    parse_params,
    pick_query_set,
    resolve_version,
)


def cmd_trials(args) -> int:
    from core.evaluation import select_queries
    from core.execution.setup import build_router, plan_executors
    from core.trials.pipeline import TrialConfig
    from core.trials.service import run_trial_set
    from storage.catalogs import load_queries

    ws = open_workspace(args)
    version = resolve_version(ws, args.name, args.version)
    if args.queries:
        query_set = ws.import_query_file(args.name, args.queries, version_id=version.id)
    else:
        query_set = pick_query_set(ws, args.name, args.query_set)
    queries = select_queries(load_queries(ws.db, query_set.id), split=args.split, limit=args.limit)
    config = TrialConfig(k=args.k, simulate=not args.no_simulate, timeout=args.timeout,
                         concurrency=args.concurrency, today=args.today, cutoffs=tuple(args.at),
                         simulated_evidence=args.simulated_evidence, judge=not args.no_judge)
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
        run = run_trial_set(ws, version.id, queries, router, strategy=args.strategy, params=parse_params(args.param),
                            config=config, llm=llm_config(args), seed=args.seed,
                            api_key=os.environ.get("OPENAI_API_KEY"), query_set_id=query_set.id, resume=not args.fresh,
                            progress=None if args.json else progress)
    finally:
        router.close()
    out = {"catalog": args.name, "version": version.number, "strategy": args.strategy, "candidates": args.k,
           "report_at": list(config.report_at), "simulate": config.simulate,
           "simulated_evidence": config.simulated_evidence, "judge": config.judge, "executors": plan.to_json(),
           **run.to_json()}
    if args.json:
        return emit(out, True)
    details = args.details if args.details is not None else (5 if len(run.reports) <= 5 else 0)
    print(format_run(out, run.reports[:details] if details else ()))
    return 0


def _value(value: Any) -> str:
    """One argument value as plain text: strings bare, lists comma-joined, numbers without a trailing .0."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _arguments(arguments: Any) -> str:
    if not isinstance(arguments, dict) or not arguments:
        return "(none)"
    return " ".join(f"{k}={_value(v)!s}" if " " not in _value(v) else f'{k}="{_value(v)}"'
                    for k, v in arguments.items())


def _answer(step: Any, width: int = 110) -> str:
    if step is None or step.output is None:
        return ""
    out = step.output
    if isinstance(out, dict) and set(out) <= {"error", "kind"}:
        return f"{out.get('kind') or 'error'}: {out.get('error')}"
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_trial(trial: Any, rank_after: int | None, gold: bool) -> list[str]:
    """One candidate's trial as a few plain lines: plan (arguments as name=value, with where each came
    from), call, answer or error, the simulator's stand-in and the judge's verdict where there are, why."""
    plan = trial.step("plan")
    head = (f"  {trial.rank:>2} → {rank_after if rank_after else '-':>2}  {trial.name}{'  ★ gold' if gold else ''}"
            f"  [{trial.outcome}{', simulated answer' if trial.simulation_used else ''}]")
    lines = [head]
    if plan is not None and isinstance(plan.output, dict):
        lines.append(f"        plan: {_arguments(plan.output.get('arguments'))}")
        sources = plan.output.get("sources") or {}
        if sources:
            lines.append("        from: " + "; ".join(f"{k}: {v}" for k, v in sources.items()))
    call = trial.step("execute")
    if call is not None and call.status != "skipped":
        lines.append(f"        call: {trial.executor or call.input.get('executor', '')} {call.status}"
                     f" in {call.seconds:.2f} s → {_answer(call)}")
    sim = trial.step("simulate")
    if sim is not None:
        lines.append(f"        simulated (stand-in, not from the tool): {_answer(sim)}")
    judge = trial.step("judge")
    if judge is not None and isinstance(judge.output, dict):
        verdict = "serves the request" if judge.output.get("relevant") else "off-topic"
        lines.append(f"        judge: {verdict}" + (f" ({judge.note})" if judge.note else ""))
    lines.append(f"        why: {trial.reason}")
    return lines


def format_run(out: dict[str, Any], reports: Any = ()) -> str:
    """``toolatlas trials`` as text a person reads: what ran, the scores before and after, the outcome of
    the top-k trials with counts and shares that agree, and (optionally) some queries' trials in full."""
    from core.trials.evidence import TrialOutcome
    from core.trials.measures import measure_rows

    at = " and ".join(f"@{k}" for k in out.get("report_at", ())) or "?"
    lines = [f"trials on {out['catalog']} v{out['version']}: strategy {out['strategy']}, {out['candidates']} "
             f"candidates tried and re-ranked per query, measured at {at}; simulation after transient failures "
             f"{'on' if out['simulate'] else 'off'} (simulated answers count as "
             f"{str(out.get('simulated_evidence', 'success')).replace('_', ' ')}); relevance judge "
             f"{'on' if out.get('judge', True) else 'off'}"]
    servers = out["executors"].get("servers", [])
    for server in servers:
        lines.append("executor: MCP server " + " ".join(server["command"])
                     + (f" (in {server['cwd']})" if server.get("cwd") else ""))
    for host in out["executors"].get("http_hosts", []):
        lines.append(f"executor: HTTP host {host}")
    if out["executors"].get("sandbox"):
        lines.append("executor: Python sandbox")
    if not servers and not out["executors"].get("http_hosts") and not out["executors"].get("sandbox"):
        lines.append("executor: none (no call was made)")
    if out.get("reused"):
        lines.append(f"run {out['run_id']} already holds these trials (same queries, settings and day): shown from "
                     "the store; --fresh tries them again")
    lines.append(f"run {out['run_id']}: {out['queries']} queries in {out['seconds']:.1f} s ({out['resumed']} resumed), "
                 f"{out.get('trials', 0)} trials, {out.get('simulated', 0)} simulated answers, "
                 f"{out.get('llm_calls', 0)} planner/judge calls ({out.get('llm_errors', 0)} failed)")
    rows = measure_rows(out)
    if rows:
        lines += ["", f"{'measure':<12} {'before':>8} {'after':>8} {'change':>8}"]
        lines += [f"{m:<12} {b:>8.4f} {a:>8.4f} {a - b:>+8.4f}" for m, b, a in rows]
    failures = out.get("failures") or {}
    counts, judged = failures.get("counts", {}), failures.get("judged", 0)
    if counts:
        lines += ["", f"outcome of the top-{failures.get('k')} candidates' trials ({judged} planned or run, "
                      f"{counts.get(TrialOutcome.NOT_EXECUTED, 0)} not executable):"]
        for outcome, n in counts.items():
            if outcome == TrialOutcome.NOT_EXECUTED:
                continue
            lines.append(f"  {outcome:<20} {n:>6} {(n / judged if judged else 0.0):>7.1%}")
        table4 = failures.get("table4", {}).get("counts", {})
        if table4:
            n = table4.get(TrialOutcome.PARAMETER_MISMATCH, 0)
            lines.append(f"  GRETEL Table 4 counts planning failures as parameter mismatches: {n} "
                         f"({(n / judged if judged else 0.0):.1%})")
    for report in reports:
        lines += ["", f"query {report.query_id}: {report.query}"]
        after = {key: i + 1 for i, key in enumerate(report.after)}
        for trial in sorted(report.trials, key=lambda t: after.get(t.key, 10**6)):
            lines += format_trial(trial, after.get(trial.key), trial.key in report.gold)
    return "\n".join(lines)


def register(sub) -> None:
    """Add ``trials`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser("trials", help="GRETEL trials: plan, execute and re-rank each query's top candidates")
    p.add_argument("name", help="a stored catalog ('demo' is loaded on demand and uses the demo MCP server)")
    p.add_argument("--query-set", help="a stored query set of the catalog (default: the only one, or the one "
                   "named after the catalog)")
    p.add_argument("--queries", help="queries JSONL {id, query, gold, split} (default: the catalog's query set)")
    p.add_argument("--strategy", default="query", help="initial ranking strategy")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="strategy parameter (repeatable)")
    p.add_argument("-K", "-k", dest="k", type=int, default=20,
                   help="candidates tried and re-ranked per query (the pool; larger than the cut-offs so a tool "
                        "from below one can move into it)")
    p.add_argument("--at", type=int, nargs="+", default=[5, 10], metavar="K",
                   help="cut-offs Recall@K, nDCG@K and Pass@K are reported at (default: 5 10, as GRETEL)")
    p.add_argument("--simulated-evidence", choices=["success", "below_success"], default="success",
                   help="where a simulated answer ranks: with real successes (GRETEL §3.2.2) or just below them")
    p.add_argument("--no-judge", action="store_true",
                   help="no relevance judge: any non-empty answer that reports no failure is a success")
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
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming an unfinished one or showing a finished one with "
                        "the same settings (same queries, strategy, K and day)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--details", type=int, metavar="N",
                   help="print the first N queries' trials in full (default: all of them when there are at most 5)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    add_llm(p)
    p.set_defaults(func=cmd_trials)
