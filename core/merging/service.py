"""A merge of one stored catalog version, end to end: the run in the store (resumable), the judge from the
LLM settings, and the before/after measures. Shared by the CLI and the Merge review / Overlap map pages."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.context import LLMConfig
from core.llm.framework import make_roles
from core.merging.judge import MergeJudge
from core.merging.measures import (
    BeforeAfter,
    Coverage,
    QuerySelector,
    coverage,
    gold_calls,
    mean_silhouette,
    relabel_queries,
    retrieval_before_after,
    rule_selector,
    silhouette_curve,
)
from core.merging.pipeline import MergeConfig, MergeResult, run_merge
from core.models import Query, Tool
from core.search.engine import SearchEngine


def judge_for(db: Any, llm: LLMConfig, *, seed: int = 0, run_id: int | None = None,
              api_key: str | None = None) -> MergeJudge:
    from core.llm.ledger import SqlLedger

    ledger = SqlLedger(db, run_id=run_id)
    if llm.kind == "offline":
        return make_roles("merge", "offline", ledger=ledger, seed=seed)
    ops = make_roles("strategy", llm.kind, ledger=ledger, seed=seed, base_url=llm.base_url, model=llm.model,
                     api_key=api_key, replay=llm.replay, **llm.options)
    return make_roles("merge", "prompted", operators=ops)


def judge_id(llm: LLMConfig) -> str:
    if llm.kind == "offline":
        from core.merging.offline_judge import MODEL

        return f"offline:{MODEL}"
    return llm.generator_id


@dataclass(frozen=True)
class MergeRun:
    run_id: int
    version_id: int
    result: MergeResult
    metrics: Mapping[str, Any] = field(default_factory=dict)  # the stored run's summary (judge calls and errors)


def merge_runs(workspace: Any, version_id: int) -> tuple[Any, ...]:
    """The stored merge runs of a catalog version (``storage.runs.RunInfo``), newest first."""
    from storage.merges import list_merge_runs

    return list_merge_runs(workspace.db, version_id)


def finished_merge_run(workspace: Any, version_id: int, config: MergeConfig, llm: LLMConfig) -> Any | None:
    """The newest finished merge run of this version with these settings and this judge, else ``None``."""
    wanted = {"version_id": version_id, **config.as_dict(), "judge": judge_id(llm)}
    return next((r for r in merge_runs(workspace, version_id) if r.status == "done" and dict(r.config) == wanted),
                None)


def finished_merge_runs(workspace: Any, version_id: int, llm: LLMConfig) -> dict[MergeConfig, Any]:
    """The newest finished run of each setting judged by ``llm``'s judge on this version, newest first."""
    out: dict[MergeConfig, Any] = {}
    for r in merge_runs(workspace, version_id):  # newest first: the first of each setting is kept
        if r.status == "done" and r.config.get("judge") == judge_id(llm):
            cfg = MergeConfig(threshold=float(r.config["threshold"]), k=int(r.config["k"]),
                              autocorrect=bool(r.config["autocorrect"]))
            out.setdefault(cfg, r)
    return out


def merge_version(workspace: Any, version_id: int, config: MergeConfig, llm: LLMConfig | None = None, *,
                  seed: int = 0, api_key: str | None = None, fresh: bool = False,
                  progress: Callable[[int, int, str], None] | None = None) -> MergeRun:
    """Run (or resume, or rebuild from the store) ToolScopeMerger on a stored catalog version."""
    from core.merging.integrity import MergeIntegrityError
    from core.merging.store import SqlMergeStore
    from storage.merges import finish_merge_run, open_merge_run

    llm = llm or LLMConfig()
    engine = workspace.search_engine(version_id)
    jid = judge_id(llm)
    finished = None if fresh else finished_merge_run(workspace, version_id, config, llm)
    run = finished or open_merge_run(workspace.db, version_id, config.as_dict(), jid, resume=not fresh)
    judge = judge_for(workspace.db, llm, seed=seed, run_id=run.id, api_key=api_key)
    try:
        result = run_merge(engine.tools, engine.vectors, judge, config, store=SqlMergeStore(workspace.db, run.id),
                           progress=progress, retry_failed=run.status != "done")
    except MergeIntegrityError:
        finish_merge_run(workspace.db, run.id, {}, status="failed")
        raise
    except BaseException:
        # An interrupted page script (Cancel, Stop) or a crash: every verdict so far is stored, and running
        # again with the same settings resumes; the run is just no longer listed as running. A finished run
        # being re-read keeps its status.
        if run.status != "done":
            finish_merge_run(workspace.db, run.id, {}, status="stopped")
        raise
    if run.status != "done":
        from storage.ledger import count_calls

        # The judge's failed calls (timeouts, rate limits, unreadable answers) are kept apart in the
        # result; the summary says how many there were, for the Merge review page and the CLI.
        run = finish_merge_run(workspace.db, run.id, {**result.summary(),
                                                      "llm_calls": count_calls(workspace.db, run_id=run.id),
                                                      "llm_errors": count_calls(workspace.db, run_id=run.id,
                                                                                errors_only=True)})
    return MergeRun(run.id, version_id, result, dict(run.metrics))


STAGE_LABELS = {"pairs": "Classifying candidate pairs", "audit": "Auto-Correction audits",
                "docs": "Writing merged docs"}


def merge_job_key(workspace: Any, version_id: int, config: MergeConfig, llm: LLMConfig) -> tuple:
    """One merge job per version, vector space, settings and judge: sessions asking for the same merge share it."""
    return ("merge", version_id, workspace.vector_space, tuple(sorted(config.as_dict().items())), judge_id(llm))


def start_merge(workspace: Any, version_id: int, config: MergeConfig, llm: LLMConfig, *,
                api_key: str | None = None) -> Any:
    """:func:`merge_version` as a background job of ``workspace.jobs`` (joined when the same merge is under
    way); its result is the :class:`MergeRun`. Cancelling it stops it at its next verdict, stored "stopped"."""
    def work(job: Any) -> MergeRun:
        def report(done: int, total: int, stage: str) -> None:
            job.report(done / total if total else 1.0, f"{STAGE_LABELS.get(stage, stage)}: {done}/{total}")

        return merge_version(workspace, version_id, config, llm, api_key=api_key, progress=report)

    return workspace.jobs.start(merge_job_key(workspace, version_id, config, llm), work,
                                label="Finding candidate pairs…")


@dataclass(frozen=True)
class MergeMeasures:
    silhouette_before: tuple[tuple[int, float], ...]
    silhouette_after: tuple[tuple[int, float], ...]
    retrieval: BeforeAfter | None
    coverage: Coverage | None  # None: the query set has no gold calls with arguments (not measured)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"silhouette_before": mean_silhouette(self.silhouette_before),
                               "silhouette_after": mean_silhouette(self.silhouette_after),
                               "silhouette_ks": [k for k, _ in self.silhouette_before]}
        if self.retrieval is not None:
            r = self.retrieval
            out.update({f"recall_at_{r.k}_before": r.recall_before, f"recall_at_{r.k}_after": r.recall_after,
                        f"csr_at_{r.k}_before": r.csr_before, f"csr_at_{r.k}_after": r.csr_after,
                        "queries": r.n_queries})
        c = self.coverage
        out.update({"tccr": c.tccr if c else None, "ucc": c.ucc if c else None})  # null: not measured
        if c is not None:
            out.update({"coverage_check": c.check, "gold_calls": c.calls, "capabilities": c.capabilities,
                        "gold_calls_unserved_before": c.unserved_before})
        return out


def measure(engine: SearchEngine, merged: Sequence[Tool], result: MergeResult, queries: Sequence[Query] = (), *,
            k: int = 5, silhouette_ks: Sequence[int] | None = None,
            selector: QuerySelector | None = None, coverage_check: str = "values",
            only_served_before: bool = True) -> MergeMeasures:
    """Silhouette before/after (App. D.1), Recall@k and CSR@k before/after with relabelled gold (§4.4), and
    TCCR/UCC (App. K.1) over the query set's gold calls with arguments (:func:`core.merging.measures.coverage`
    with ``check=coverage_check``; with ``only_served_before`` (ours) only the calls the original catalog
    serves count). A query set without gold calls leaves TCCR/UCC not measured (``coverage`` None).

    CSR's agent is ``selector``, by default the offline ``select_tools`` rule shown each catalog's own
    descriptions (merged tools with their merged docs), as eval runs measure it (a rule standing in for the
    paper's LLM agent: our definition). The silhouette's k default to 5, 10, 20 … 50 below the catalog size."""
    after_engine = SearchEngine.build(merged, engine.embedder, cache=engine.cache,
                                      with_parameters=engine.with_parameters)
    ks = tuple(silhouette_ks) if silhouette_ks is not None else tuple(
        k_ for k_ in (5, 10, 20, 30, 40, 50) if k_ < len(merged))
    before_s = tuple(silhouette_curve(engine.vectors, ks))
    after_s = tuple(silhouette_curve(after_engine.vectors, ks))
    retrieval = cov = None
    if queries:
        selector_after = selector
        if selector is None:
            selector, selector_after = rule_selector(engine.tools), rule_selector(after_engine.tools)
        retrieval = retrieval_before_after(engine, after_engine, queries, relabel_queries(queries, result.phi), k,
                                           selector=selector, selector_after=selector_after)
    calls = gold_calls(queries)
    if calls:
        cov = coverage(calls, merged, result.phi, check=coverage_check,
                       original=engine.tools if only_served_before else None)
    return MergeMeasures(before_s, after_s, retrieval, cov)
