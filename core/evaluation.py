"""Evaluation runs: a strategy over a query set, stored item by item and resumable; and the rows of the
Runs page's table (eval and playground runs alike)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.compare import params_label
from core.context import LLMConfig, build_context
from core.merging.measures import QuerySelector, offline_selector, rule_selector
from core.metrics import score_rankings, top_k
from core.models import Query
from core.strategies.memory import ToolMemory
from core.strategies.registry import accepted_params, make_strategy, strategy_class
from core.workspace import Workspace
from storage import runs
from storage.ledger import count_calls

BATCH = 32


@dataclass(frozen=True)
class EvalReport:
    run_id: int
    strategy: str
    k: int
    n_queries: int
    metrics: Mapping[str, Any]
    seconds: float
    resumed_items: int

    def to_json(self) -> dict[str, Any]:
        return {
            **self.metrics,
            "n_queries": self.n_queries,
            "seconds": round(self.seconds, 3),
            "strategy": self.strategy,
            "run_id": self.run_id,
            "resumed_items": self.resumed_items,
        }


def select_queries(queries: Sequence[Query], *, split: str | None = None, limit: int | None = None) -> list[Query]:
    chosen = [q for q in queries if not split or q.split == split]
    if split and not chosen:
        splits = sorted({q.split for q in queries})
        raise ValueError(f"no query in split {split!r} (splits: {', '.join(splits) or 'none'})")
    return chosen[:limit] if limit else chosen


def evaluate(
    workspace: Workspace,
    version_id: int,
    query_set_id: int,
    queries: Sequence[Query],
    *,
    strategy: str = "query",
    params: Mapping[str, Any] | None = None,
    k: int = 5,
    progress: Callable[[int, int], None] | None = None,
    resume: bool = True,
    llm: LLMConfig | None = None,
    seed: int = 0,
    api_key: str | None = None,
) -> EvalReport:
    """Run ``strategy`` over ``queries`` and score it at ``k``.

    After each query's ranking, the ``select_tools`` role is shown the top k and picks the tools an
    agent would use; the pick is stored with the ranking as ``"selected"`` and scored by CSR@k
    (ToolScope Eq. 6). Strategies that call an LLM use the run's own operators for this; the others
    use the offline operators. Every call lands in the ledger under the run id, and a failed one
    selects nothing (a CSR miss, counted in ``llm_errors``).

    Each query's ranking is written as soon as it is known, so a run interrupted at
    any point resumes where it stopped and never stores a query (or asks its selector) twice.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    params = dict(params or {})
    config = {
        "version_id": version_id,
        "query_set_id": query_set_id,
        "query_ids": [q.id for q in queries],
        "strategy": strategy,
        "params": params,
        "k": k,
        "embedder": workspace.vector_space,
        # Runs stored before selections were kept have no "selector": they are never resumed into this one.
        "selector": "select_tools",
    }
    needs_llm = "operators" in accepted_params(strategy_class(strategy))  # also rejects unknown names
    if needs_llm:
        llm = llm or LLMConfig()
        config.update({"llm": llm.identity(), "seed": seed})
    run = runs.open_run(
        workspace.db, "eval", config, version_id=version_id, query_set_id=query_set_id, strategy=strategy, resume=resume
    )
    start = time.perf_counter()
    engine = workspace.search_engine(version_id)
    context = (
        build_context(workspace.db, engine, version_id, llm, seed=seed, run_id=run.id, api_key=api_key,
                      strategy_params=params)
        if needs_llm
        else {}
    )
    impl = make_strategy(strategy, engine, context=context, **params)
    select = _selector(workspace.db, engine, context, run.id, seed)
    done = runs.done_item_keys(workspace.db, run.id)
    todo = [q for q in queries if q.id not in done]
    finished = len(queries) - len(todo)
    if progress:
        progress(finished, len(queries))
    batch_fn = getattr(impl, "retrieve_batch", None)
    # Slow (LLM) strategies write every query as soon as it is done; fast ones in batches.
    step = BATCH if batch_fn is not None else 1
    for begin in range(0, len(todo), step):
        chunk = todo[begin : begin + step]
        if batch_fn is not None:
            results = batch_fn([q.text for q in chunk], k)
        else:
            results = []
            for q in chunk:
                if hasattr(impl, "memory"):
                    # FitText's tool memory lives for one session; each query is its own session.
                    impl.memory = ToolMemory()
                results.append(impl.retrieve(q.text, k))
        for q, res in zip(chunk, results, strict=True):
            selected = list(select(q, top_k(res.keys, k)))
            runs.add_item(
                workspace.db, run.id, q.id,
                {"query": q.text, "gold": list(q.gold), **res.to_json(), "selected": selected}, res.seconds,
            )
        finished += len(chunk)
        if progress:
            progress(finished, len(queries))
    items = runs.load_items(workspace.db, run.id)
    wanted = {q.id for q in queries}
    rankings = {qid: item["keys"] for qid, item in items.items() if qid in wanted}
    selections = {qid: item["selected"] for qid, item in items.items() if qid in wanted and "selected" in item}
    gold = {q.id: q.gold for q in queries}
    scores = score_rankings(rankings, gold, k, selections=selections)
    metrics = scores.as_dict()
    run_measures = getattr(impl, "run_measures", None)
    if callable(run_measures):  # e.g. Re-Invoke's round-trip consistency of its synthetic queries
        metrics.update(run_measures())
    # The selector calls the operators too, so every run has LLM (or offline rule) calls to report.
    metrics["llm_calls"] = count_calls(workspace.db, run_id=run.id)
    metrics["llm_errors"] = count_calls(workspace.db, run_id=run.id, errors_only=True)
    seconds = time.perf_counter() - start
    metrics["seconds_per_query"] = round(sum(runs.item_seconds(workspace.db, run.id).values()) / max(len(rankings), 1), 4)
    runs.finish_run(workspace.db, run.id, metrics)
    return EvalReport(run.id, strategy, k, len(rankings), metrics, seconds, len(done))


def _selector(db: Any, engine: Any, context: Mapping[str, Any], run_id: int, seed: int) -> QuerySelector:
    """The CSR selector of a run (ToolScope Eq. 6): the ``select_tools`` role of the strategy's own
    operators when it has them, else of the offline operators (deterministic, no network), recorded
    in the ledger under ``run_id`` either way."""
    operators = context.get("operators")
    if operators is None:
        from core.llm.ledger import SqlLedger

        return rule_selector(engine.tools, ledger=SqlLedger(db, run_id=run_id), seed=seed)
    return offline_selector(operators, engine.tools)


def evaluate_strategies(
    workspace: Workspace,
    version_id: int,
    query_set_id: int,
    queries: Sequence[Query],
    strategies: Sequence[str],
    *,
    k: int = 5,
    llm: LLMConfig | None = None,
    api_key: str | None = None,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[EvalReport, ...]:
    """Several strategies over one query set, one :func:`evaluate` run each, in the order given.

    Names and ``k`` are checked before anything runs, so a typo never leaves half the strategies evaluated.
    ``progress(share, label)`` gets the share of all the work done (each strategy an equal part) and what is
    under way; raising from it (a cancelled job) stops the work, and each run resumes when started again. The
    catalog is embedded first when no engine for it is held, reported as its own step.
    """
    names = list(dict.fromkeys(strategies))
    if not names:
        raise ValueError("choose at least one strategy")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not queries:
        raise ValueError("no queries to evaluate")
    for name in names:
        strategy_class(name)  # raises, listing the valid names
    if progress:
        progress(0.0, "Loading the catalog's search engine")
        workspace.search_engine(version_id, progress=lambda done, total: progress(
            0.0, f"Embedding the catalog: {done:,}/{total:,} tools (cached after the first time)"))
    reports = []
    for i, name in enumerate(names):
        step = None
        if progress:
            def step(done: int, total: int, i: int = i, name: str = name) -> None:
                progress((i + done / max(total, 1)) / len(names),
                         f"{name} ({i + 1}/{len(names)}): query {done}/{total}")
        reports.append(evaluate(workspace, version_id, query_set_id, queries, strategy=name, k=k, llm=llm,
                                api_key=api_key, seed=seed, progress=step))
    return tuple(reports)


# -- the Runs table ---------------------------------------------------------------------------------------

# Every metric a row can show, each measured at the row's own k ("mrr" has no cut-off).
ROW_METRICS = ("recall", "ndcg", "precision", "comprehensiveness", "mrr", "csr")


@dataclass(frozen=True)
class RunRow:
    """One line of the Runs table: an eval run, or one strategy of a playground run (a single query).

    ``metrics`` holds every name of :data:`ROW_METRICS`, measured at ``k``; None where the run did not measure
    it (a playground run stores recall and nDCG only, and only when its query has gold labels)."""

    run_id: int
    kind: str  # "eval" or "playground"
    version_id: int | None
    catalog: str  # "demo v5"
    query_set_id: int | None
    queries_from: str  # the query set's name, or the playground's query text
    strategy: str
    params: str
    llm: str
    k: int
    n_queries: int
    metrics: Mapping[str, float | None]
    llm_calls: int
    llm_errors: int
    seconds_per_query: float
    status: str
    finished_at: datetime | None


def _metric_name(metric: str, k: int) -> str:
    return "mrr" if metric == "mrr" else f"{metric}@{k}"


def _number(value: Any) -> float | None:
    return None if value is None or isinstance(value, bool) else float(value)


def _mean_seconds(db: Any, run_id: int) -> float:
    seconds = runs.item_seconds(db, run_id)
    return round(sum(seconds.values()) / max(len(seconds), 1), 4)


def _llm_label(config: Mapping[str, Any], uses_llm: bool) -> str:
    llm = config.get("llm") or {}
    if not uses_llm or not llm:
        return "not used"
    if llm.get("kind") == "offline":
        return "offline rules"
    return str(llm.get("model") or llm.get("kind") or "?")


def run_rows(db: Any, *, version_id: int | None = None, limit: int = 500) -> tuple[RunRow, ...]:
    """The Runs table: finished eval runs and playground runs (done or stopped), newest first; a playground
    run gives one row per strategy that answered, in the order chosen. ``version_id`` keeps one version's.

    Each metric is read at the run's own k, so runs made with different k share one column per metric (with
    the k beside it) instead of a column per k that is empty for every other run."""
    from core.playground_runs import KIND as PLAYGROUND
    from core.strategies.registry import strategy_names
    from storage.catalogs import list_query_sets, version_by_id

    versions: dict[int, str] = {}
    set_names: dict[int, str] = {}

    def catalog(vid: int | None) -> str:
        if vid is None:
            return ""
        if vid not in versions:
            try:
                v = version_by_id(db, vid)
            except ValueError:  # deleted since
                versions[vid] = "(deleted)"
            else:
                versions[vid] = f"{v.catalog_name} v{v.number}"
                set_names.update({s.id: s.name for s in list_query_sets(db, v.catalog_name)})
        return versions[vid]

    known = set(strategy_names())
    rows: list[RunRow] = []
    for info in runs.list_runs(db, version_id=version_id, limit=limit):
        cfg = info.config
        if info.kind == "eval" and info.status == "done":
            k = int(cfg.get("k", 5))
            m = info.metrics
            uses_llm = info.strategy in known and "operators" in accepted_params(strategy_class(info.strategy))
            where = catalog(info.version_id)
            rows.append(RunRow(
                info.id, "eval", info.version_id, where, info.query_set_id,
                set_names.get(info.query_set_id or -1, f"query set #{info.query_set_id}"), info.strategy,
                params_label(cfg.get("params", {})), _llm_label(cfg, uses_llm),
                k, int(m.get("n_queries", info.n_items)),
                {name: _number(m.get(_metric_name(name, k))) for name in ROW_METRICS},
                # runs stored before these were recorded: read them back from the ledger and the items
                int(m["llm_calls"]) if "llm_calls" in m else count_calls(db, run_id=info.id),
                int(m["llm_errors"]) if "llm_errors" in m else count_calls(db, run_id=info.id, errors_only=True),
                (float(m["seconds_per_query"]) if m.get("seconds_per_query") is not None
                 else _mean_seconds(db, info.id)),
                info.status, info.finished_at,
            ))
        elif info.kind == PLAYGROUND and info.status in ("done", "stopped"):
            k = int(cfg.get("k", 5))
            where = catalog(info.version_id)
            for name, params in cfg.get("strategies", ()):
                m = info.metrics.get(name)
                if m is None:  # a stopped run: this strategy never answered
                    continue
                rows.append(RunRow(
                    info.id, PLAYGROUND, info.version_id, where, None, str(cfg.get("query", "")), name,
                    params_label(params), _llm_label(cfg, m.get("llm_calls", 0) > 0),
                    k, 1, {metric: _number(m.get(metric)) for metric in ROW_METRICS}, int(m.get("llm_calls", 0)),
                    int(m.get("llm_errors", 0)), float(m.get("seconds", 0.0)), info.status, info.finished_at,
                ))
    return tuple(rows)


def default_comparison(rows: Sequence[RunRow], *, baseline: str = "query", companions: int = 2) -> tuple[int, ...]:
    """The eval runs compared when none is picked (our choice, not a paper's), baseline first.

    The baseline is a run of the ``baseline`` strategy (the plain retriever every other configuration is
    measured against), with its default parameters before any other: the newest one that has runs of other
    configurations (strategy and parameters) on the same version, query set and k to compare with, so the
    paired test has shared queries; else the newest one; with no such run, the newest eval run. After it come
    the newest runs of up to ``companions`` other configurations."""
    evals = [r for r in rows if r.kind == "eval"]
    if not evals:
        return ()

    def others(base: RunRow) -> list[int]:
        chosen: dict[tuple[str, str], int] = {(base.strategy, base.params): base.run_id}
        for r in evals:  # newest first: the newest run of each configuration
            if ((r.strategy, r.params) not in chosen and len(chosen) <= companions
                    and (r.version_id, r.query_set_id, r.k) == (base.version_id, base.query_set_id, base.k)):
                chosen[(r.strategy, r.params)] = r.run_id
        return list(chosen.values())[1:]

    candidates = sorted((r for r in evals if r.strategy == baseline), key=lambda r: r.params != "") or evals[:1]
    base = next((r for r in candidates if others(r)), candidates[0])
    return (base.run_id, *others(base))


def pick_baseline(rows: Sequence[RunRow], picked: Sequence[int], *, baseline: str = "query") -> int:
    """Of the picked eval runs, the one to compare the others against: the first of the ``baseline``
    strategy, else the first picked."""
    if not picked:
        raise ValueError("no run picked")
    by_id = {r.run_id: r for r in rows if r.kind == "eval"}
    return next((rid for rid in picked if rid in by_id and by_id[rid].strategy == baseline), picked[0])
