"""Evaluation as *run, then score* (the split of ranx, Bassani ECIR 2022): :func:`run_strategy` runs a strategy
over a query set and stores each query's answer as it comes (resumable); :func:`core.scoring.score` scores a
run on any metrics, so a stored run (:func:`load_run`) is re-scored without running it again; :func:`evaluate`
is the two composed, storing the scores with the run. Also the rows of the Runs page's table (eval and
playground runs alike)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from core.concurrency import run_stage
from core.context import LLMConfig, build_context
from core.merging.measures import QuerySelector, offline_selector, rule_selector
from core.metrics import top_k
from core.models import Query
from core.scoring import DEFAULT_METRICS, METRICS, Run, params_label, parse_metric, run_query_from_item, score
from core.strategies.fitness import fitness_truth, with_truth
from core.strategies.memory import MemoryEntry, ToolMemory
from core.strategies.registry import accepted_params, make_strategy, strategy_class
from core.workspace import Workspace
from storage import runs
from storage.ledger import count_calls

BATCH = 32
EVAL = "eval"
# How long a strategy's tool memory (FitText App. C.2) lives in an evaluation run: "query" (the default) starts
# every query empty; "session" keeps one memory across the run's queries, as one agent session would.
MEMORY_MODES = ("query", "session")


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


def evaluate(workspace: Workspace, version_id: int, query_set_id: int, queries: Sequence[Query],
             **options: Any) -> EvalReport:
    """:func:`run_strategy`, then :func:`core.scoring.score` on every metric at ``k``; the scores are stored
    with the run's own measures as its metrics (``n_queries``, ``ndcg@k`` … ``csr@k``, then the run's
    measures), the shape every eval run has had. ``options`` are :func:`run_strategy`'s (strategy, params, k,
    progress, resume, llm, seed, api_key)."""
    start = time.perf_counter()
    run = run_strategy(workspace, version_id, query_set_id, queries, **options)
    report = score(run, metrics=DEFAULT_METRICS)
    metrics = {**report.as_dict(), **run.measures}
    runs.finish_run(workspace.db, run.run_id, metrics)
    return EvalReport(run.run_id, run.strategy, run.k, report.n_queries, metrics, time.perf_counter() - start,
                      run.resumed_items)


def run_strategy(
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
) -> Run:
    """Run ``strategy`` over ``queries`` at ``k`` and store each query's answer: its ranking, trace and the
    tools an agent would use of its top k. Where a query has gold, each fitness event of its trace also gets
    the member's true quality (``core.strategies.fitness.with_truth``: nDCG@k and recall@k), and the run's
    measures the fitness–truth rank correlation (``fitness_truth_*``, strategies with a fitness only).

    ``params["memory"]`` (strategies with a tool memory) is one of :data:`MEMORY_MODES`: "query" (the default)
    gives every query an empty memory; "session" keeps one memory across the run's queries, in their order
    (FitText App. C.2: the memory lives for the session, so an earlier query's writes are read by the fitness
    of later ones). A session run stores each query's memory writes with its answer, and a resumed session
    run rebuilds its memory from the writes of every query already stored, in the run's query order: it holds
    exactly what an uninterrupted run would hold at that point (queries run one at a time, in order).

    After each query's ranking, the ``select_tools`` role is shown the top k and picks the tools an
    agent would use; the pick is stored with the ranking as ``"selected"`` (scored by CSR@k,
    ToolScope Eq. 6). Strategies that call an LLM use the run's own operators for this; the others
    use the offline operators. Every call lands in the ledger under the run id, and a failed one
    selects nothing (a CSR miss, counted in ``llm_errors``).

    The queries are one resumable stage (:func:`core.concurrency.run_stage`, one at a time so a seeded
    strategy answers the same every time): each answer is written as soon as it is known, so a run
    interrupted at any point (``progress`` raising, Ctrl-C) resumes where it stopped and never stores a
    query (or asks its selector) twice. The run is finished with its own measures (LLM calls and errors,
    seconds per query, a strategy's run measures); its scores are :func:`core.scoring.score`'s business.
    """
    params = dict(params or {})
    config = run_config(workspace, version_id, query_set_id, queries, strategy=strategy, params=params, k=k,
                        llm=llm, seed=seed)
    accepted = accepted_params(strategy_class(strategy))
    needs_llm = "operators" in accepted
    memory_mode = _memory_mode(params, strategy, "memory" in accepted)
    strategy_params = {name: value for name, value in params.items() if name != "memory"}
    if needs_llm:
        llm = llm or LLMConfig()
    db = workspace.db
    run = runs.open_run(db, EVAL, config, version_id=version_id, query_set_id=query_set_id, strategy=strategy,
                        resume=resume)
    engine = workspace.search_engine(version_id)
    context = (
        build_context(db, engine, version_id, llm, seed=seed, run_id=run.id, api_key=api_key,
                      strategy_params=strategy_params)
        if needs_llm
        else {}
    )
    impl = make_strategy(strategy, engine, context=context, **strategy_params)
    select = _selector(db, engine, context, run.id, seed)
    done = runs.done_item_keys(db, run.id)
    if memory_mode == "session":
        impl.memory = _session_memory(db, run.id, [q.id for q in queries if q.id in done])
    retrieve = _retriever(impl, [q for q in queries if q.id not in done], k, fresh_memory=memory_mode == "query")

    def answer(q: Query) -> tuple[dict[str, Any], float]:
        before = len(impl.memory.entries) if memory_mode == "session" else 0
        res = with_truth(retrieve(q), q.gold, k)
        selected = list(select(q, top_k(res.keys, k)))
        item = {"query": q.text, "gold": list(q.gold), **res.to_json(), "selected": selected}
        if memory_mode == "session":
            item["memory_writes"] = [[e.text, sorted(e.keys), e.generation] for e in impl.memory.entries[before:]]
        return item, res.seconds

    run_stage(queries, answer, key=lambda q: q.id, stored=dict.fromkeys(done), workers=1, name="queries",
              save=lambda q, result: runs.add_item(db, run.id, q.id, *result),
              progress=None if progress is None else lambda n, total, _name: progress(n, total))
    stored = _stored_run(db, run.id, strategy, params, k, version_id, query_set_id, wanted={q.id for q in queries})
    measures: dict[str, Any] = {}
    run_measures = getattr(impl, "run_measures", None)
    if callable(run_measures):  # e.g. Re-Invoke's round-trip consistency of its synthetic queries
        measures.update(run_measures())
    truth = fitness_truth(((q.trace, q.gold) for q in stored.queries), k)
    if truth is not None:  # a strategy with a fitness: does it rank members the way the gold does?
        measures.update(truth.as_measures())
    # The selector calls the operators too, so every run has LLM (or offline rule) calls to report.
    measures["llm_calls"] = count_calls(db, run_id=run.id)
    measures["llm_errors"] = count_calls(db, run_id=run.id, errors_only=True)
    measures["seconds_per_query"] = round(sum(q.seconds for q in stored.queries) / max(len(stored.queries), 1), 4)
    runs.finish_run(db, run.id, measures)
    return replace(stored, measures=measures, resumed_items=len(done))


def run_config(workspace: Workspace, version_id: int, query_set_id: int, queries: Sequence[Query], *,
               strategy: str = "query", params: Mapping[str, Any] | None = None, k: int = 5,
               llm: LLMConfig | None = None, seed: int = 0) -> dict[str, Any]:
    """The identity of an evaluation run (:func:`run_strategy`'s arguments that change its answers): the catalog
    version, query set and query ids, strategy, parameters, k, the embedder (``Workspace.vector_space``) and,
    for a strategy with LLM operators, the backend (``LLMConfig.identity``) and seed. The same config resumes
    the same unfinished run (``storage.runs.open_run``) and finds a finished one (:func:`finished_run`).
    ValueError for an unknown strategy (listing the valid names) or a k below 1."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    config = {
        "version_id": version_id,
        "query_set_id": query_set_id,
        "query_ids": [q.id for q in queries],
        "strategy": strategy,
        "params": dict(params or {}),
        "k": k,
        "embedder": workspace.vector_space,
        # Runs stored before selections were kept have no "selector": they are never resumed into this one.
        "selector": "select_tools",
    }
    if "operators" in accepted_params(strategy_class(strategy)):  # also rejects unknown names
        config.update({"llm": (llm or LLMConfig()).identity(), "seed": seed})
    return config


def finished_run(workspace: Workspace, version_id: int, query_set_id: int, queries: Sequence[Query],
                 **options: Any) -> runs.RunInfo | None:
    """The newest finished evaluation run of exactly this configuration (``options``: :func:`run_config`'s
    strategy, params, k, llm, seed), or None: what :func:`evaluate` would store again."""
    config = run_config(workspace, version_id, query_set_id, queries, **options)
    return runs.find_done(workspace.db, EVAL, config, version_id=version_id)


def _memory_mode(params: Mapping[str, Any], strategy: str, has_memory: bool) -> str:
    """The run's memory mode (``params["memory"]``, see :func:`run_strategy`); ValueError naming the valid
    modes, or saying the strategy keeps no memory."""
    mode = params.get("memory", "query")
    if "memory" in params and not has_memory:
        raise ValueError(f"strategy {strategy!r} keeps no tool memory, so it takes no 'memory' parameter")
    if mode not in MEMORY_MODES:
        raise ValueError(f"unknown memory mode {mode!r}; valid modes: {', '.join(MEMORY_MODES)}")
    return str(mode)


def _session_memory(db: Any, run_id: int, done_ids: Sequence[str]) -> ToolMemory:
    """A session run's memory as its stored queries left it: their recorded writes, in the run's query order."""
    items = runs.load_items(db, run_id) if done_ids else {}
    memory = ToolMemory()
    for qid in done_ids:
        for text, keys, generation in items.get(qid, {}).get("memory_writes", ()):
            memory.entries.append(MemoryEntry(str(text), frozenset(keys), int(generation)))
    return memory


def _retriever(impl: Any, todo: Sequence[Query], k: int, *, fresh_memory: bool = True) -> Callable[[Query], Any]:
    """One query's answer from ``impl``. A strategy with ``retrieve_batch`` answers ``BATCH`` queries of
    ``todo`` at a time, ahead of their turn (asked in order, one at a time, so each batch is the next one).
    ``fresh_memory``: a strategy with a tool memory starts each query with an empty one."""
    batch_fn = getattr(impl, "retrieve_batch", None)
    if batch_fn is None:
        def one(q: Query) -> Any:
            if fresh_memory and hasattr(impl, "memory"):
                # FitText's tool memory lives for one session; here each query is its own session.
                impl.memory = ToolMemory()
            return impl.retrieve(q.text, k)
        return one
    position = {q.id: i for i, q in enumerate(todo)}
    ahead: dict[str, Any] = {}

    def batched(q: Query) -> Any:
        if q.id not in ahead:
            chunk = todo[position[q.id] : position[q.id] + BATCH]
            ahead.update(zip([c.id for c in chunk], batch_fn([c.text for c in chunk], k), strict=True))
        return ahead.pop(q.id)
    return batched


def _stored_run(db: Any, run_id: int, strategy: str, params: Mapping[str, Any], k: int,
                version_id: int | None, query_set_id: int | None, *, wanted: set[str] | None = None,
                measures: Mapping[str, Any] | None = None) -> Run:
    seconds = runs.item_seconds(db, run_id)
    queries = tuple(run_query_from_item(qid, item, seconds.get(qid, 0.0))
                    for qid, item in runs.load_items(db, run_id).items() if wanted is None or qid in wanted)
    return Run(run_id, strategy, dict(params), k, queries, version_id, query_set_id, dict(measures or {}))


def load_run(workspace: Workspace, run_id: int) -> Run:
    """A stored eval run, finished or not, as :func:`run_strategy` made it (found by id, not by listing):
    ready to be scored again on any metric. ``measures`` holds what it stored beside its scores."""
    db = workspace.db
    info = runs.get_run(db, run_id)
    if info is None:
        raise ValueError(f"no run with id {run_id}")
    if info.kind != EVAL:
        raise ValueError(f"run #{run_id} is a {info.kind} run, not an evaluation run")
    cfg = info.config
    return _stored_run(db, run_id, info.strategy, cfg.get("params", {}), int(cfg.get("k", 5)), info.version_id,
                       info.query_set_id, measures={k: v for k, v in info.metrics.items() if not _is_score(k)})


def _is_score(name: str) -> bool:
    if name in ("n_queries", "csr_stand_in_queries"):
        return True
    try:
        parse_metric(name)
    except ValueError:
        return False
    return True


def unfinished_eval_runs(workspace: Workspace) -> int:
    """How many of the newest evaluation runs are not done (stopped, cancelled or still running)."""
    return sum(1 for r in runs.list_runs(workspace.db, kind=EVAL) if r.status != "done")


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


@dataclass(frozen=True)
class RunRow:
    """One line of the Runs table: an eval run, or one strategy of a playground run (a single query).

    ``metrics`` holds every name of :data:`core.scoring.METRICS`, measured at ``k``; None where the run did not
    measure it (a playground run stores recall and nDCG only, and only when its query has gold labels)."""

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


def run_rows(workspace: Workspace, *, version_id: int | None = None, grid: str | None = None,
             limit: int = 500) -> tuple[RunRow, ...]:
    """The Runs table: finished eval runs and playground runs (done or stopped), newest first; a playground
    run gives one row per strategy that answered, in the order chosen. ``version_id`` keeps one version's,
    ``grid`` the runs of one grid (``toolatlas grid``, :func:`grid_names`).

    Each metric is read at the run's own k, so runs made with different k share one column per metric (with
    the k beside it) instead of a column per k that is empty for every other run."""
    from core.playground_runs import KIND as PLAYGROUND
    from core.strategies.registry import strategy_names

    db = workspace.db
    versions: dict[int, str] = {}
    set_names: dict[int, str] = {}

    def catalog(vid: int | None) -> str:
        if vid is None:
            return ""
        if vid not in versions:
            try:
                v = workspace.version(vid)
            except ValueError:  # deleted since
                versions[vid] = "(deleted)"
            else:
                versions[vid] = f"{v.catalog_name} v{v.number}"
                set_names.update({s.id: s.name for s in workspace.query_sets(v.catalog_name)})
        return versions[vid]

    known = set(strategy_names())
    rows: list[RunRow] = []
    if grid is None:
        infos = runs.list_runs(db, version_id=version_id, limit=limit)
    else:  # however old: a grid's runs by id, newest first
        found = (runs.get_run(db, rid) for rid in sorted(set(runs.grid_run_ids(db, grid)), reverse=True)[:limit])
        infos = tuple(i for i in found if i is not None and version_id in (None, i.version_id))
    for info in infos:
        cfg = info.config
        if info.kind == EVAL and info.status == "done":
            k = int(cfg.get("k", 5))
            m = info.metrics
            if f"recall@{k}" not in m:  # finished by run_strategy alone, never scored: scored now
                m = {**score(load_run(workspace, info.id)).as_dict(), **m}
            uses_llm = info.strategy in known and "operators" in accepted_params(strategy_class(info.strategy))
            where = catalog(info.version_id)
            rows.append(RunRow(
                info.id, "eval", info.version_id, where, info.query_set_id,
                set_names.get(info.query_set_id or -1, f"query set #{info.query_set_id}"), info.strategy,
                params_label(cfg.get("params", {})), _llm_label(cfg, uses_llm),
                k, int(m.get("n_queries", info.n_items)),
                {name: _number(m.get(_metric_name(name, k))) for name in METRICS},
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
                    k, 1, {metric: _number(m.get(metric)) for metric in METRICS}, int(m.get("llm_calls", 0)),
                    int(m.get("llm_errors", 0)), float(m.get("seconds", 0.0)), info.status, info.finished_at,
                ))
    return tuple(rows)


def grid_names(workspace: Workspace) -> tuple[str, ...]:
    """The grids (``toolatlas grid``) with runs in the store, by name."""
    return runs.grid_names(workspace.db)


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
    strategy with its default parameters, else the first of that strategy, else the first picked."""
    if not picked:
        raise ValueError("no run picked")
    by_id = {r.run_id: r for r in rows if r.kind == "eval"}
    candidates = [rid for rid in picked if rid in by_id and by_id[rid].strategy == baseline]
    return min(candidates, key=lambda rid: by_id[rid].params != "", default=picked[0])
