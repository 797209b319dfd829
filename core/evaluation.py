"""Evaluation runs: a strategy over a query set, stored item by item and resumable."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
