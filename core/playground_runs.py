"""Playground runs in the store: one ``run`` row of kind "playground" per press of Run, one item per strategy
written as soon as that strategy has answered, so a cancelled run keeps the strategies that finished and every
run can be reopened later with its traces (populations, fitness, lineage, LLM calls) intact."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from core.playground import MemoryReadout, outcome
from core.strategies.base import RetrievalResult
from storage import runs

KIND = "playground"


@dataclass(frozen=True)
class PlaygroundRun:
    run_id: int
    version_id: int
    query: str
    gold: tuple[str, ...]
    k: int
    seed: int
    status: str
    strategies: tuple[str, ...]  # as chosen, in order; a stopped run has results for a prefix of them
    results: Mapping[str, RetrievalResult]
    memory: Mapping[str, MemoryReadout]
    created_at: datetime
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # per strategy, as chosen


def playground_config(version_id: int, *, query: str, gold: Sequence[str], k: int, seed: int,
                      strategies: Mapping[str, Mapping[str, Any]], llm: Mapping[str, Any],
                      session_memory: bool) -> dict[str, Any]:
    """The stored config of a run with these settings; ValueError naming the field when one is unusable."""
    if not query.strip():
        raise ValueError("playground run: field 'query' is empty")
    if not strategies:
        raise ValueError("playground run: field 'strategies' is empty; choose at least one strategy")
    return {"version_id": version_id, "query": query, "gold": list(gold), "k": int(k), "seed": int(seed),
            # pairs, not an object: run configs are stored with sorted keys, and the order chosen is shown
            "strategies": [[name, dict(params)] for name, params in strategies.items()], "llm": dict(llm),
            "session_memory": bool(session_memory)}


def open_playground_run(db: Any, version_id: int, *, query: str, gold: Sequence[str], k: int, seed: int,
                        strategies: Mapping[str, Mapping[str, Any]], llm: Mapping[str, Any],
                        session_memory: bool) -> int:
    """A new run (never a resumed one: each press of Run is its own record, even with the same settings)."""
    config = playground_config(version_id, query=query, gold=gold, k=k, seed=seed, strategies=strategies, llm=llm,
                               session_memory=session_memory)
    return runs.open_run(db, KIND, config, version_id=version_id, strategy=",".join(strategies), resume=False).id


def record_strategy(db: Any, run_id: int, name: str, result: RetrievalResult,
                    readout: MemoryReadout | None = None) -> None:
    """Store one strategy's answer with its trace (and how it met the session memory, when kept)."""
    item = {"result": result.to_json(), "memory": asdict(readout) if readout is not None else None}
    runs.add_item(db, run_id, name, item, result.seconds)


def finish_playground_run(db: Any, run_id: int, *, status: str = "done") -> None:
    """Close the run with a per-strategy summary (recall@k and nDCG@k when the query has gold)."""
    run = load_playground_run(db, run_id)
    metrics: dict[str, Any] = {}
    for name, result in run.results.items():
        o = outcome(name, result, run.gold, run.k)
        metrics[name] = {"recall": None if math.isnan(o.recall) else o.recall,
                         "ndcg": None if math.isnan(o.ndcg) else o.ndcg,
                         "seconds": round(o.seconds, 3), "llm_calls": o.llm_calls, "llm_errors": o.llm_errors}
    runs.finish_run(db, run_id, metrics, status=status)


def load_playground_run(db: Any, run_id: int) -> PlaygroundRun:
    info = runs.get_run(db, run_id)
    if info is None or info.kind != KIND:
        raise ValueError(f"no playground run with id {run_id}")
    items = runs.load_items(db, run_id)
    cfg = info.config
    params = {name: dict(p) for name, p in cfg.get("strategies", ())}
    chosen = tuple(params)
    results = {name: RetrievalResult.from_json(items[name]["result"]) for name in chosen if name in items}
    memory = {}
    for name in results:
        m = items[name].get("memory")
        if m:
            memory[name] = MemoryReadout(int(m["entries_before"]), int(m["entries_after"]), tuple(m["repeated"]),
                                         int(m["penalised"]))
    return PlaygroundRun(info.id, int(cfg["version_id"]), cfg["query"], tuple(cfg.get("gold", ())), int(cfg["k"]),
                         int(cfg.get("seed", 0)), info.status, chosen, results, memory, info.created_at, params)


def list_playground_runs(db: Any, version_id: int, *, limit: int = 50) -> tuple[runs.RunInfo, ...]:
    """This version's playground runs, newest first."""
    return runs.list_runs(db, kind=KIND, version_id=version_id, limit=limit)
