"""The Strategy playground's run (ours): one query through the strategies picked, each stored the moment it
answers (``core.playground_runs``), as a background job (``core.jobs``) that the page follows and its Cancel stops.

A run is one resumable stage (``core.concurrency.run_stage``) over the strategies, in the order chosen and one
at a time, so each strategy's seconds are its own: a strategy already stored for the run is not run again, a
cancel or a failing strategy keeps the ones that answered and marks the run "stopped". With a
:class:`SessionMemory` each strategy keeps its tool memory across the session's runs (FitText App. C.2);
without one every run starts empty, as each evaluation query does.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.concurrency import run_stage
from core.context import LLMConfig, build_context
from core.jobs import Job
from core.playground import MemoryReadout, memory_readout
from core.playground_runs import (
    PlaygroundRun,
    finish_playground_run,
    list_playground_runs,
    load_playground_run,
    open_playground_run,
    playground_config,
    record_strategy,
)
from core.strategies.base import RetrievalResult
from core.strategies.fitness import with_truth
from core.strategies.memory import ToolMemory
from core.strategies.registry import make_strategy
from storage.ledger import CallRecord, list_calls
from storage.runs import RunInfo

# The knobs the page offers per strategy, at the paper defaults (FitText Table 8); strategies not named here
# have none worth turning on one query.
KNOBS: Mapping[str, Mapping[str, int]] = {
    "single_pass": {},
    "dbd": {"turns": 3},
    "ibi": {"turns": 3},
    "scattershot": {"fan_out": 5},
    "memetic": {"population": 6, "generations": 3},
    "memetic_v2": {"population": 8, "generations": 3},
    "reinvoke": {"m": 10},
    "toolscope": {},
    "query": {},
}

JOB_KIND = "playground"

Answer = tuple[RetrievalResult, MemoryReadout | None]


class SessionMemory:
    """One agent session's tool memories (FitText App. C.2): one :class:`ToolMemory` per catalog version and
    strategy, kept across the session's playground runs. Mutable on purpose and safe to share with the job
    thread that writes it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._memories: dict[tuple[int, str], ToolMemory] = {}

    def of(self, version_id: int, strategy: str) -> ToolMemory:
        with self._lock:
            return self._memories.setdefault((version_id, strategy), ToolMemory())

    def held(self, version_id: int) -> dict[str, int]:
        """Entries held per strategy for one version (strategies that ran at least once)."""
        with self._lock:
            return {name: len(m.entries) for (vid, name), m in self._memories.items() if vid == version_id}

    def clear(self) -> None:
        with self._lock:
            self._memories.clear()


def start_playground(ws: Any, version_id: int, *, query: str, gold: Sequence[str], k: int, seed: int,
                     strategies: Mapping[str, Mapping[str, Any]], llm: LLMConfig, api_key: str | None = None,
                     memory: SessionMemory | None = None) -> Job:
    """A new run with these settings as a background job (each press of Run is its own run, see
    :func:`open_playground_run`), whose result is the finished :class:`PlaygroundRun`. The run is stored once
    the job starts, so a job cancelled before it starts leaves nothing behind; bad settings raise here, before
    any job. ``memory`` given: the run uses and grows the session's tool memories."""
    settings = dict(query=query, gold=tuple(gold), k=k, seed=seed, strategies=dict(strategies),
                    llm=llm.identity(), session_memory=memory is not None)
    playground_config(version_id, **settings)

    def work(job: Job) -> PlaygroundRun:
        run_id = open_playground_run(ws.db, version_id, **settings)
        return run_playground(ws, run_id, llm, api_key=api_key, memory=memory, progress=job.report,
                              cancelled=lambda: job.cancelling)

    key = (JOB_KIND, version_id, uuid.uuid4().hex)  # one job per press, never joined with another
    return ws.jobs.start(key, work, label="Starting the playground run…")


def run_playground(ws: Any, run_id: int, llm: LLMConfig, *, api_key: str | None = None,
                   memory: SessionMemory | None = None, progress: Callable[[float, str], None] | None = None,
                   cancelled: Callable[[], bool] | None = None) -> PlaygroundRun:
    """Run the stored run's strategies that have not answered yet, storing each answer as it comes, then close
    the run ("done"; "stopped" when cancelled or a strategy fails, which is raised again). With gold, each
    fitness event of an answer carries its member's nDCG@k and recall@k (``with_truth``). ``progress(share,
    label)`` is told before each strategy starts; ``cancelled()`` is asked between strategies (raising
    :class:`StageCancelled`)."""
    run = load_playground_run(ws.db, run_id)
    report = progress or (lambda _share, _label: None)
    total = len(run.strategies)
    try:
        report(0.0, "Loading the catalog's search engine")
        engine = ws.search_engine(run.version_id)

        def answer(name: str) -> Answer:
            done = run.strategies.index(name)
            report(done / total, f"Running {name} ({done + 1} of {total})…")
            params = dict(run.params.get(name, {}))
            context = build_context(ws.db, engine, run.version_id, llm, seed=run.seed, strategy_params=params,
                                    api_key=api_key)
            if memory is None:  # a fresh memory from the context: this run only
                result = make_strategy(name, engine, context=context, **params).retrieve(run.query, run.k)
                return with_truth(result, run.gold, run.k), None
            kept = context["memory"] = memory.of(run.version_id, name)
            earlier = ToolMemory(list(kept.entries))
            result = make_strategy(name, engine, context=context, **params).retrieve(run.query, run.k)
            return with_truth(result, run.gold, run.k), memory_readout(result, earlier, kept)

        def save(name: str, answered: Answer) -> None:
            record_strategy(ws.db, run_id, name, *answered)

        stored = {name: (result, run.memory.get(name)) for name, result in run.results.items()}
        run_stage(run.strategies, answer, key=lambda name: name, stored=stored, save=save, workers=1,
                  name="playground", cancelled=cancelled)
    except BaseException:
        # cancelled, or a failing strategy: keep the strategies that answered, as a stopped run
        finish_playground_run(ws.db, run_id, status="stopped")
        raise
    finish_playground_run(ws.db, run_id)
    return load_playground_run(ws.db, run_id)


def playground_runs(ws: Any, version_id: int, *, limit: int = 50) -> tuple[RunInfo, ...]:
    """This version's stored playground runs, newest first."""
    return list_playground_runs(ws.db, version_id, limit=limit)


def playground_run(ws: Any, run_id: int) -> PlaygroundRun:
    """A stored playground run with its traces; ValueError when ``run_id`` is not one."""
    return load_playground_run(ws.db, run_id)


def llm_calls(ws: Any, ids: Iterable[int | None]) -> dict[int, CallRecord]:
    """The ledger's records of the given call ids, by id (None ids skipped)."""
    wanted = [i for i in ids if i]
    return {c.id: c for c in list_calls(ws.db, ids=wanted)} if wanted else {}
