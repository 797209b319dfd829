"""Timeline runs over a stored catalog: the engine behind the Timeline page and ``toolatlas evolve``.

A run is a ``run`` row of kind ``evolution``. Each seed stores its toolset sequence first
(``s{seed}:sequence``), then one item per finished (step, method) (``s{seed}:t{t}:{method}``) holding the
evaluation, the revisions with their evidence, Stage I's explorations and Stage II's clusters. A run
stopped at any point resumes from its items: documentation state is rebuilt from stored revisions and no
finished (step, method) is computed again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.concurrency import StageCancelled
from core.context import LLMConfig
from core.evolution.evaluate import MemoSelector, TrialVerifier, dense_retriever
from core.evolution.markov import MarkovConfig
from core.evolution.methods import DEFAULT_METHODS, check_methods
from core.evolution.pipeline import ContinualRunner, EvolutionConfig, StepResult
from core.evolution.report import summarize
from core.evolution.sequence import SOURCES, ToolsetSequence, markov_sequence, version_sequence
from core.llm.framework import make_roles
from core.models import Query
from storage import catalogs as store
from storage import runs

KIND = "evolution"


@dataclass(frozen=True)
class EvolutionSpec:
    """What to run. ``source="versions"`` walks the catalog's stored versions (``version_numbers``, default
    all, in order); ``source="markov"`` simulates ``markov`` over the tools of ``pool_version`` (default
    the latest), one sequence per seed (the seed drives both the simulation and Stage I's sampling)."""

    catalog: str
    source: str = "versions"
    markov: MarkovConfig = field(default_factory=MarkovConfig)
    version_numbers: tuple[int, ...] = ()
    pool_version: int | None = None
    seeds: tuple[int, ...] = (0,)
    methods: tuple[str, ...] = DEFAULT_METHODS
    config: EvolutionConfig = field(default_factory=EvolutionConfig)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown sequence source {self.source!r}; valid sources: {', '.join(SOURCES)}")
        if not self.seeds:
            raise ValueError("at least one seed is needed")
        check_methods(self.methods)

    def to_json(self) -> dict[str, Any]:
        return {"catalog": self.catalog, "source": self.source,
                "markov": self.markov.to_json() if self.source == "markov" else None,
                "version_numbers": list(self.version_numbers), "pool_version": self.pool_version,
                "seeds": list(self.seeds), "methods": list(self.methods), "config": self.config.to_json()}


@dataclass(frozen=True)
class EvolutionRun:
    run_id: int
    spec: Mapping[str, Any]
    query_ids: tuple[str, ...]
    sequences: Mapping[int, Mapping[str, Any]]  # seed -> ToolsetSequence.to_json()
    results: tuple[StepResult, ...]
    summary: Mapping[str, Any]
    status: str = "done"
    seconds: float = 0.0
    resumed: int = 0
    llm_calls: int = 0

    def paired_tests(self, baseline: str | None = None) -> list[Any]:
        """Each method against ``baseline`` over the run's (seed, step) cells (core.evolution.report.paired_tests);
        computed from the stored results, never stored, so a run stored before the tests existed has them too."""
        from core.evolution.report import paired_tests

        return paired_tests(self.results, list(self.summary.get("methods", {})), baseline=baseline)

    def to_json(self) -> dict[str, Any]:
        from core.evolution.report import table_rows

        tests = [{"baseline": m.baseline, "method": m.method, "cells": m.cells, "replicas": m.replicas,
                  **({} if m.test is None else {"mean_difference": round(m.test.mean_difference, 6),
                                                 "ci": [round(m.test.ci_low, 6), round(m.test.ci_high, 6)],
                                                 "p_value": round(m.test.p_value, 6), "wins": m.test.wins,
                                                 "ties": m.test.ties, "losses": m.test.losses})}
                 for m in self.paired_tests()]
        return {"run_id": self.run_id, "status": self.status, "queries": len(self.query_ids),
                "seeds": sorted(self.sequences), "seconds": round(self.seconds, 3), "resumed": self.resumed,
                "llm_calls": self.llm_calls, "table": table_rows(self.summary), "paired_tests": tests,
                "summary": dict(self.summary)}


def build_sequence(ws: Any, spec: EvolutionSpec, seed: int) -> ToolsetSequence:
    info = store.get_catalog(ws.db, spec.catalog)
    if spec.source == "versions":
        chosen = [v for v in info.versions if not spec.version_numbers or v.number in spec.version_numbers]
        missing = set(spec.version_numbers) - {v.number for v in info.versions}
        if missing:
            raise ValueError(f"catalog {spec.catalog!r} has no version(s) {sorted(missing)}; it has "
                             f"{[v.number for v in info.versions]}")
        return version_sequence([ws.tools(v.id) for v in chosen], [v.label or f"v{v.number}" for v in chosen])
    pool = store.get_version(ws.db, spec.catalog, spec.pool_version)
    return markov_sequence(ws.tools(pool.id), replace(spec.markov, seed=seed))


def _operators(ws: Any, llm: LLMConfig, run_id: int, seed: int, api_key: str | None) -> Any:
    from core.llm.ledger import SqlLedger

    ledger = SqlLedger(ws.db, run_id=run_id)
    if llm.kind == "offline":
        return make_roles("adaptation", "offline", ledger=ledger, seed=seed)
    # Notes for a whole cluster and a rewritten description need more room than one-line roles.
    options = {"max_tokens": 1500, **llm.options}
    base = make_roles("strategy", llm.kind, ledger=ledger, seed=seed, base_url=llm.base_url, model=llm.model,
                      api_key=api_key, replay=llm.replay, **options)
    return make_roles("adaptation", "prompted", operators=base)


def _item(seed: int, t: int, method: str) -> str:
    return f"s{seed}:t{t}:{method}"


def _run_config(ws: Any, spec: EvolutionSpec, queries: Sequence[Query], llm: LLMConfig, router: Any) -> dict[str, Any]:
    """What a run is stored under: everything that changes its results."""
    return {"spec": spec.to_json(), "query_ids": [q.id for q in queries], "llm": llm.identity(),
            "embedder": ws.vector_space, "executors": list(getattr(router, "names", ()) or ())}


def finished_run(ws: Any, spec: EvolutionSpec, queries: Sequence[Query], *, llm: LLMConfig | None = None,
                 router: Any = None) -> runs.RunInfo | None:
    """The newest finished run that already answers this request, or None: the same spec (sequence source,
    Markov settings, seeds, methods, pipeline settings), the same queries, operators (LLM identity), embedder
    and executors, on the same catalog version (the catalog's latest version is the one it was when the run
    was stored, so a newly imported version is never answered by an old run).

    Our own rule, not CONTDA's: running the same timeline again would store a second copy of the same numbers
    (exactly so with the offline operators), so callers open this run instead and run again only when asked.
    A stopped run with the same settings is not returned here: ``run_evolution`` resumes it."""
    return runs.find_done(ws.db, KIND, _run_config(ws, spec, queries, llm or LLMConfig(), router),
                          version_id=store.get_version(ws.db, spec.catalog).id)


def run_evolution(ws: Any, spec: EvolutionSpec, queries: Sequence[Query], *, llm: LLMConfig | None = None,
                  api_key: str | None = None, router: Any = None, resume: bool = True,
                  progress: Callable[[float, str], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> EvolutionRun:
    """Run (or resume) every seed of ``spec`` over ``queries`` and store it as it goes (see module doc)."""
    if not queries:
        raise ValueError("no queries to evaluate")
    if spec.config.judge == "execution" and router is None:
        raise ValueError("the execution judge needs executors: pass a router (CLI: --execute)")
    llm = llm or LLMConfig()
    config = _run_config(ws, spec, queries, llm, router)
    latest = store.get_version(ws.db, spec.catalog)
    # Every sequence is built (and so checked) before the run row exists: a bad spec stores nothing.
    sequences = {seed: build_sequence(ws, spec, seed) for seed in spec.seeds}
    run = runs.open_run(ws.db, KIND, config, version_id=latest.id, strategy=spec.source, resume=resume)
    items = runs.load_items(ws.db, run.id)
    start = time.perf_counter()
    embed_cache = ws.cache

    def embed(texts: Sequence[str]):
        from core.embedding import encode_cached

        return encode_cached(ws.embedder, list(texts), embed_cache)[0]

    retrieve = dense_retriever(ws.embedder, ws.cache, with_parameters=ws.text_with_parameters)
    verify = TrialVerifier(router, today=spec.config.explore.today, timeout=spec.config.explore.timeout) \
        if spec.config.judge == "execution" else None
    resumed = 0
    status = "done"
    n_seeds = len(spec.seeds)
    try:
        for i, seed in enumerate(spec.seeds):
            sequence = sequences[seed]
            key = f"s{seed}:sequence"
            if key not in items:
                runs.add_item(ws.db, run.id, key, sequence.to_json())
                items[key] = sequence.to_json()
            ops = _operators(ws, llm, run.id, seed, api_key)
            runner = ContinualRunner(sequence, queries, ops=ops, embed=embed, retrieve=retrieve,
                                     select=MemoSelector(ops), router=router, config=spec.config, seed=seed,
                                     verify=verify)
            done = {(t, m): StepResult.from_json(items[_item(seed, t, m)]) for t in range(len(sequence.steps))
                    for m in spec.methods if _item(seed, t, m) in items}
            resumed += len(done)

            def store_result(result: StepResult) -> None:
                data = result.to_json()
                runs.add_item(ws.db, run.id, _item(result.seed, result.step, result.method), data, result.seconds)
                items[_item(result.seed, result.step, result.method)] = data

            def seed_progress(share: float, label: str, i: int = i) -> None:
                if progress is not None:
                    progress((i + share) / n_seeds, label)

            runner.run(spec.methods, done=done, on_result=store_result, cancelled=cancelled,
                       progress=seed_progress)
    except StageCancelled:
        status = "stopped"
    except BaseException:
        # a crash or an interrupted page script: what finished is stored; mark the run so it is not
        # listed as still running, and let the error through
        runs.finish_run(ws.db, run.id, {"summary": _collect(ws.db, run.id, config, items).summary},
                        status="stopped")
        raise
    run_result = _collect(ws.db, run.id, config, items)
    metrics = {"summary": run_result.summary, "llm_calls": _count_calls(ws.db, run.id)}
    runs.finish_run(ws.db, run.id, metrics, status=status)
    return replace(run_result, status=status, seconds=time.perf_counter() - start, resumed=resumed,
                   llm_calls=metrics["llm_calls"])


def _count_calls(db: Any, run_id: int) -> int:
    from storage.ledger import count_calls

    return count_calls(db, run_id=run_id)


def _collect(db: Any, run_id: int, config: Mapping[str, Any], items: Mapping[str, Any]) -> EvolutionRun:
    spec = config["spec"]
    seeds = [int(s) for s in spec["seeds"]]
    sequences = {s: items[f"s{s}:sequence"] for s in seeds if f"s{s}:sequence" in items}
    results = tuple(StepResult.from_json(v) for k, v in items.items() if not k.endswith(":sequence"))
    summary = summarize(results, spec["methods"])
    return EvolutionRun(run_id, spec, tuple(config["query_ids"]), sequences, results, summary)


def load_evolution(ws: Any, run_id: int) -> EvolutionRun:
    """A stored timeline run with everything finished so far."""
    info = runs.get_run(ws.db, run_id)
    if info is None or info.kind != KIND:
        raise ValueError(f"no timeline run with id {run_id}")
    result = _collect(ws.db, run_id, info.config, runs.load_items(ws.db, run_id))
    return replace(result, status=info.status, llm_calls=int(info.metrics.get("llm_calls", 0) or 0))


def list_evolution_runs(ws: Any, catalog: str | None = None) -> tuple[runs.RunInfo, ...]:
    """The stored timeline runs (of ``catalog`` when given), newest first."""
    out = runs.list_runs(ws.db, kind=KIND, limit=500)
    if catalog is not None:
        out = tuple(r for r in out if r.config.get("spec", {}).get("catalog") == catalog)
    return out
