"""Trials over a query set, stored in a run: the engine behind the Trials page and ``toolatlas trials``.

A trials run is a ``run`` row of kind ``trials``. Each query leaves three kinds of item, each written the
moment it exists: its initial ranking (``Q@ranking``), one item per tried candidate (``Q#tool``) and the
finished report (``Q``). A run killed at any point resumes without redoing a ranking or a candidate and
never stores one twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.context import LLMConfig, build_context
from core.llm.framework import make_roles
from core.models import Query, Tool
from core.strategies.registry import accepted_params, make_strategy, strategy_class
from core.trials.evidence import Trial, TrialReport
from core.trials.measures import score_reports
from core.trials.pipeline import Router, TrialConfig, rerun_candidate, run_trials
from storage import runs

KIND = "trials"


@dataclass(frozen=True)
class TrialsRun:
    run_id: int
    reports: tuple[TrialReport, ...]
    metrics: Mapping[str, Any]
    seconds: float = 0.0
    resumed: int = 0
    reused: bool = False  # a finished run with the same settings was returned instead of trying again

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "queries": len(self.reports), "seconds": round(self.seconds, 3),
                "resumed": self.resumed, "reused": self.reused, **dict(self.metrics)}


class SqlTrialStore:
    """The pipeline's store on one run's items (``Q#tool``)."""

    def __init__(self, db: Any, run_id: int) -> None:
        self.db = db
        self.run_id = run_id
        self._items: dict[str, dict[str, Any]] | None = None

    def _all(self) -> dict[str, dict[str, Any]]:
        if self._items is None:
            self._items = runs.load_items(self.db, self.run_id)
        return self._items

    def load(self, query_id: str) -> Mapping[str, Trial]:
        prefix = f"{query_id}#"
        return {k[len(prefix):]: Trial.from_json(v) for k, v in self._all().items() if k.startswith(prefix)}

    def save(self, query_id: str, trial: Trial) -> None:
        runs.add_item(self.db, self.run_id, f"{query_id}#{trial.key}", trial.to_json(), trial.seconds)


def _config(version_id: int, queries: Sequence[Query], strategy: str, params: Mapping[str, Any],
            config: TrialConfig, llm: LLMConfig, seed: int, executors: Sequence[str]) -> dict[str, Any]:
    return {"version_id": version_id, "query_ids": [q.id for q in queries], "strategy": strategy,
            "params": dict(params), "trial": config.to_json(), "llm": llm.identity(), "seed": seed,
            "executors": list(executors)}


def run_trial_set(ws: Any, version_id: int, queries: Sequence[Query], router: Router | None, *,
                  strategy: str = "query", params: Mapping[str, Any] | None = None,
                  config: TrialConfig | None = None, llm: LLMConfig | None = None, seed: int = 0,
                  api_key: str | None = None, query_set_id: int | None = None, resume: bool = True,
                  progress: Callable[[int, int, str], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> TrialsRun:
    """Rank each query with ``strategy``, try its top ``config.k`` candidates (the pool) through ``router`` and
    re-rank them (GRETEL Alg. 1 and §3.2.2), storing everything as it goes; returns the reports and their
    scores at ``config.report_at``.

    ``config.today`` is fixed to the run's first day when not given, so a resumed run plans the same way.
    """
    if not queries:
        raise ValueError("no queries to try")
    params = dict(params or {})
    llm = llm or LLMConfig()
    config = config or TrialConfig()
    if config.today is None:
        config = TrialConfig.from_json({**config.to_json(), "today": time.strftime("%Y-%m-%d")})
    strategy_class(strategy)  # unknown names fail before anything is stored
    names = list(getattr(router, "names", ()) or ())
    run_config = _config(version_id, queries, strategy, params, config, llm, seed, names)
    start = time.perf_counter()
    stored = runs.find_done(ws.db, KIND, run_config, version_id=version_id) if resume else None
    if stored is not None:  # the same trials with the same settings on the same day: shown, not redone
        items = runs.load_items(ws.db, stored.id)
        if all(q.id in items for q in queries):
            reports = tuple(TrialReport.from_json(items[q.id]) for q in queries)
            return TrialsRun(stored.id, reports, stored.metrics, time.perf_counter() - start, len(reports), True)
    run = runs.open_run(ws.db, KIND, run_config, version_id=version_id, query_set_id=query_set_id,
                        strategy=strategy, resume=resume)
    engine = ws.search_engine(version_id)
    context = build_context(ws.db, engine, version_id, llm, seed=seed, run_id=run.id, api_key=api_key,
                            strategy_params=params)
    needs_llm = "operators" in accepted_params(strategy_class(strategy))
    impl = make_strategy(strategy, engine, context=context if needs_llm else {}, **params)
    kind = "offline" if llm.kind == "offline" else "prompted"
    ops = make_roles("trials", kind, operators=context["operators"], ledger=context["operators"].ledger, seed=seed)
    by_key: dict[str, Tool] = {t.key: t for t in engine.tools}
    store = SqlTrialStore(ws.db, run.id)
    items = runs.load_items(ws.db, run.id)
    resumed = sum(1 for q in queries if q.id in items)
    try:
        for i, q in enumerate(queries):
            if cancelled is not None and cancelled():
                break
            if progress:
                progress(i, len(queries), q.id)
            if q.id in items:
                continue
            ranking = items.get(f"{q.id}@ranking")
            if ranking is None:
                result = impl.retrieve(q.text, config.k)
                ranking = {"keys": list(result.keys), "scores": list(result.scores), "seconds": result.seconds}
                runs.add_item(ws.db, run.id, f"{q.id}@ranking", ranking, result.seconds)
            candidates = [by_key[k] for k in ranking["keys"] if k in by_key]
            report = run_trials(q.id, q.text, q.gold, candidates, router, ops, config, strategy=strategy, store=store)
            runs.add_item(ws.db, run.id, q.id, report.to_json(), sum(t.seconds for t in report.trials))
            items[q.id] = report.to_json()
        if progress:
            progress(len(queries), len(queries), "")
    except BaseException:
        # an interrupted page script (Cancel, Stop) or a crash: every finished query is stored; mark the run
        # so it is not listed as still running, and let the interruption through
        runs.finish_run(ws.db, run.id, {}, status="stopped")
        raise
    reports = tuple(TrialReport.from_json(items[q.id]) for q in queries if q.id in items)
    metrics = _metrics(ws.db, run.id, reports, config)
    finished = len(reports) == len(queries)
    runs.finish_run(ws.db, run.id, metrics, status="done" if finished else "stopped")
    return TrialsRun(run.id, reports, metrics, time.perf_counter() - start, resumed)


def _metrics(db: Any, run_id: int, reports: Sequence[TrialReport], config: TrialConfig) -> dict[str, Any]:
    """The run's scores at each reported cut-off (``config.report_at``), in one ``before`` and one ``after``
    table. Runs stored before the pool existed kept K=10 in an ``at_10`` block beside the @5 tables; they are
    read as stored (:func:`core.trials.measures.measure_rows`)."""
    from storage.ledger import count_calls

    metrics = score_reports(reports, cutoffs=config.report_at)
    metrics["pool"] = config.k
    metrics["llm_calls"] = count_calls(db, run_id=run_id)
    metrics["llm_errors"] = count_calls(db, run_id=run_id, errors_only=True)
    return metrics


def load_trial_run(ws: Any, run_id: int) -> tuple[runs.RunInfo, tuple[TrialReport, ...]]:
    """A stored trials run and its finished reports, in query order."""
    info = runs.get_run(ws.db, run_id)
    if info is None or info.kind != KIND:
        raise ValueError(f"no trials run with id {run_id}")
    items = runs.load_items(ws.db, run_id)
    order = info.config.get("query_ids", [])
    return info, tuple(TrialReport.from_json(items[q]) for q in order if q in items)


def rerun_in_run(ws: Any, run_id: int, query_id: str, tool_key: str, router: Router | None, *,
                 llm: LLMConfig | None = None, seed: int = 0, api_key: str | None = None,
                 progress: Callable[[float, str], None] | None = None) -> TrialReport:
    """Try one candidate of a stored report again, with the run's own trial settings, and re-rank; the new
    report is stored as ``Q!rerun-N`` (the original stays, so the history of a candidate is kept) and
    returned. A second re-run builds on the first (:func:`latest_report`)."""
    info, _ = load_trial_run(ws, run_id)
    report = latest_report(ws, run_id, query_id)
    tool = next((t for t in ws.tools(info.version_id) if t.key == tool_key), None)
    if tool is None:
        raise ValueError(f"run {run_id}: tool {tool_key!r} is not in the catalog version")
    llm = llm or LLMConfig()
    config = TrialConfig.from_json(info.config.get("trial", {}))
    engine = ws.search_engine(info.version_id)
    context = build_context(ws.db, engine, info.version_id, llm, seed=seed, run_id=run_id, api_key=api_key)
    kind = "offline" if llm.kind == "offline" else "prompted"
    ops = make_roles("trials", kind, operators=context["operators"], ledger=context["operators"].ledger, seed=seed)
    if progress:
        progress(0.1, f"Trying {tool.name} again…")
    fresh = rerun_candidate(report, tool, router, ops, config)
    n = sum(1 for k in runs.load_items(ws.db, run_id) if k.startswith(f"{query_id}!rerun-"))
    runs.add_item(ws.db, run_id, f"{query_id}!rerun-{n + 1}", {"tool": tool_key, **fresh.to_json()})
    if progress:
        progress(1.0, "Re-ranked")
    return fresh


def latest_report(ws: Any, run_id: int, query_id: str) -> TrialReport:
    """A query's report in a stored run as it stands now: its newest re-run (``Q!rerun-N``), else the
    report the run stored."""
    items = runs.load_items(ws.db, run_id)
    reruns = sorted((int(k.rsplit("-", 1)[1]), v) for k, v in items.items() if k.startswith(f"{query_id}!rerun-"))
    if reruns:
        return TrialReport.from_json(reruns[-1][1])
    if query_id not in items:
        raise ValueError(f"run {run_id} has no finished query {query_id!r}")
    return TrialReport.from_json(items[query_id])


def start_rerun(ws: Any, run_id: int, query_id: str, tool_key: str, router: Router | None, *,
                llm: LLMConfig | None = None, api_key: str | None = None, executors: str = "") -> Any:
    """:func:`rerun_in_run` as a background job of ``ws.jobs`` (joined when the same re-run is under way;
    ``executors`` names the router's plan in the key); its result is the new :class:`TrialReport`."""
    llm = llm or LLMConfig()
    info, _ = load_trial_run(ws, run_id)

    def work(job: Any) -> TrialReport:
        return rerun_in_run(ws, run_id, query_id, tool_key, router, llm=llm, api_key=api_key, progress=job.report)

    # (kind, version, ...) like every job key, so the jobs list names the catalog it works on
    key = (KIND, info.version_id, "rerun", run_id, query_id, tool_key, tuple(sorted(llm.identity().items())),
           executors)
    return ws.jobs.start(key, work, label=f"Trying {tool_key} again…")
