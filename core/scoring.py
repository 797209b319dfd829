"""Scoring a stored run: the second half of evaluation as *run, then score* (the split of ranx, Bassani
ECIR 2022: a run holds rankings, qrels hold the gold, ``evaluate(qrels, run, metrics)`` scores).

A :class:`Run` is what a strategy answered per query (ranking, the tools its selector picked, trace), as
stored item by item; :func:`score` turns it into a :class:`Report` for any metrics asked, so a stored run is
re-scored (nDCG@3 of a run made at k = 5, say) without being run again. Metric names are parsed in one
place (:func:`parse_metric`); the per-query measures are those of :mod:`core.metrics`. Pure: no store, no
network.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.metrics import (
    comprehensiveness_at_k,
    csr,
    csr_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

# The measures cut at k, each from core.metrics; "mrr" (no cut-off) and "csr" (needs the run's selections)
# are handled beside them.
_AT_K: dict[str, Callable[[Sequence[str], Collection[str], int], float]] = {
    "ndcg": ndcg_at_k,
    "precision": precision_at_k,
    "recall": recall_at_k,
    "comprehensiveness": comprehensiveness_at_k,
}
# Every metric name, in the order the Runs page shows them.
METRICS = ("recall", "ndcg", "precision", "comprehensiveness", "mrr", "csr")
# What an evaluation run stores in its metrics, in this order (the stored shape since the first runs).
DEFAULT_METRICS = ("ndcg", "precision", "recall", "comprehensiveness", "mrr", "csr")


def params_label(params: Mapping[str, Any]) -> str:
    """A run's strategy parameters as one line, ``a=1, b=x`` in name order (empty: the defaults)."""
    return ", ".join(f"{a}={b}" for a, b in sorted(params.items()))


# -- metric names -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A metric and its cut-off: ``ndcg@5`` is ``Metric("ndcg", 5)``. ``cutoff`` None means "at the run's own
    k" for the cut metrics (see :meth:`at`); ``mrr`` never has one."""

    name: str
    cutoff: int | None = None

    @property
    def label(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff}"

    def at(self, k: int) -> Metric:
        """This metric with the run's k as its cut-off when it has none (mrr stays without)."""
        return self if self.cutoff is not None or self.name == "mrr" else Metric(self.name, k)


def _valid_names() -> str:
    return ", ".join([*(f"{n}@K" for n in METRICS if n != "mrr"), "mrr"]) + " (K a cut-off; without @K: the run's own k)"


def parse_metric(text: str | Metric) -> Metric:
    """``"ndcg@5"`` → ``Metric("ndcg", 5)``; ``"recall"`` → ``Metric("recall")`` (at the run's k). The one
    parser of metric names; an unknown name or a bad cut-off raises ValueError listing the valid names."""
    if isinstance(text, Metric):
        return text
    name, at, cut = str(text).strip().lower().partition("@")
    if name not in METRICS:
        raise ValueError(f"unknown metric {text!r}; valid metrics: {_valid_names()}")
    if not at:
        return Metric(name)
    if name == "mrr":
        raise ValueError(f"mrr has no cut-off, got {text!r}; valid metrics: {_valid_names()}")
    if not cut.isdigit() or int(cut) < 1:
        raise ValueError(f"the cut-off of {text!r} must be a whole number of at least 1; valid metrics: "
                         f"{_valid_names()}")
    return Metric(name, int(cut))


# -- a run ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunQuery:
    """One query of a run as stored: its ranking, the keys its selector picked from the top k (None for items
    stored before selections were kept) and the strategy's trace."""

    query_id: str
    text: str
    gold: tuple[str, ...]
    ranking: tuple[str, ...]
    selected: tuple[str, ...] | None = None
    trace: tuple[Mapping[str, Any], ...] = ()
    seconds: float = 0.0


@dataclass(frozen=True)
class Run:
    """A strategy's answers over a query set, made at cut-off ``k`` (the depth of each stored ranking and the
    top k its selector was shown). ``measures`` are what the run measured of itself rather than per query
    (LLM calls, seconds per query, a strategy's own run measures such as Re-Invoke's round trip);
    ``resumed_items`` counts the queries found already stored when it was run (0 for a run loaded back)."""

    run_id: int
    strategy: str
    params: Mapping[str, Any]
    k: int
    queries: tuple[RunQuery, ...]
    version_id: int | None = None
    query_set_id: int | None = None
    measures: Mapping[str, Any] = field(default_factory=dict)
    resumed_items: int = 0

    @property
    def label(self) -> str:
        params = params_label(self.params)
        return f"#{self.run_id} {self.strategy}" + (f" ({params})" if params else "")

    @property
    def query_ids(self) -> tuple[str, ...]:
        return tuple(q.query_id for q in self.queries)

    @property
    def qrels(self) -> dict[str, tuple[str, ...]]:
        """The gold tools stored with each query: the qrels the run was made against."""
        return {q.query_id: q.gold for q in self.queries}


def run_query_from_item(query_id: str, item: Mapping[str, Any], seconds: float = 0.0) -> RunQuery:
    """A stored eval item (``{"query", "gold", "keys", "selected"?, "trace"?}``) as a :class:`RunQuery`."""
    selected = item.get("selected")
    return RunQuery(query_id, str(item.get("query", "")), tuple(item.get("gold", ())), tuple(item["keys"]),
                    None if selected is None else tuple(selected), tuple(item.get("trace", ())), seconds)


# -- scoring ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """A run's scores: per query (aligned with ``query_ids``) and their means, for each metric asked.
    ``csr_stand_in`` counts queries stored without a selection whose CSR came from
    :func:`core.metrics.gold_count_stand_in`."""

    run_id: int
    label: str
    k: int  # the run's own k
    metrics: tuple[Metric, ...]  # as scored: every cut-off resolved
    query_ids: tuple[str, ...]
    per_query: Mapping[str, tuple[float, ...]]  # metric label -> values
    means: Mapping[str, float]  # metric label -> mean over the queries (0 when there are none)
    csr_stand_in: int = 0

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def metric(self, name: str | Metric) -> Metric:
        """The scored metric ``name`` stands for: ``"ndcg@3"`` exactly, ``"ndcg"`` the one nDCG scored."""
        wanted = parse_metric(name)
        found = [m for m in self.metrics if m.name == wanted.name
                 and (wanted.cutoff is None or m.cutoff == wanted.cutoff)]
        if len(found) != 1:
            scored = ", ".join(m.label for m in self.metrics)
            why = "is ambiguous" if found else "was not scored"
            raise ValueError(f"{wanted.label} {why} in run #{self.run_id}; scored: {scored}")
        return found[0]

    def values(self, name: str | Metric) -> tuple[float, ...]:
        return self.per_query[self.metric(name).label]

    def mean(self, name: str | Metric) -> float:
        return self.means[self.metric(name).label]

    def as_dict(self) -> dict[str, Any]:
        """``n_queries`` and each mean rounded to 6 places under its label (and ``csr_stand_in_queries`` when
        any): the shape an evaluation run stores as its metrics."""
        out: dict[str, Any] = {"n_queries": self.n_queries,
                               **{m.label: round(self.means[m.label], 6) for m in self.metrics}}
        if self.csr_stand_in:
            out["csr_stand_in_queries"] = self.csr_stand_in
        return out


def resolve_metrics(run_k: int, metrics: Iterable[str | Metric], *, run_label: str = "the run") -> tuple[Metric, ...]:
    """The metrics parsed and cut at ``run_k`` where they name no cut-off, repeats dropped; ValueError for one
    the stored run cannot answer: a cut-off deeper than the rankings it stored, or CSR at another k than the
    one its selector was shown (ours: what a stored run can be scored on again)."""
    out: dict[str, Metric] = {}
    for raw in metrics:
        m = parse_metric(raw).at(run_k)
        if m.cutoff is not None and m.cutoff > run_k:
            raise ValueError(f"{m.label} needs the top {m.cutoff} of each query, but {run_label} was made at "
                             f"k = {run_k} and stored its top {run_k} only: score at a cut-off of at most {run_k}, or run it "
                             f"again at k = {m.cutoff}")
        if m.name == "csr" and m.cutoff != run_k:
            raise ValueError(f"{m.label}: {run_label}'s selector picked from its top {run_k}, so CSR is known "
                             f"only at k = {run_k} (csr@{run_k})")
        out.setdefault(m.label, m)
    if not out:
        raise ValueError(f"no metric to score; valid metrics: {_valid_names()}")
    return tuple(out.values())


def score(run: Run, qrels: Mapping[str, Collection[str]] | None = None,
          metrics: Iterable[str | Metric] = DEFAULT_METRICS) -> Report:
    """Score every query of ``run`` against ``qrels`` (query id → gold keys; None: the gold stored with the
    run) on each of ``metrics`` (names as :func:`parse_metric` reads them), and their means.

    CSR@k (ToolScope Eq. 6) compares the keys the run's selector picked with the gold set; a query stored
    before selections were kept falls back to :func:`core.metrics.gold_count_stand_in` (counted in
    ``csr_stand_in``). A query with a ranking but no gold entry is an error."""
    wanted = resolve_metrics(run.k, metrics, run_label=f"run #{run.run_id}")
    gold_of = run.qrels if qrels is None else qrels
    missing = [q.query_id for q in run.queries if q.query_id not in gold_of]
    if missing:
        raise ValueError(f"query {missing[0]!r} has a ranking but no gold tools")
    stand_in = 0
    per_query: dict[str, list[float]] = {m.label: [] for m in wanted}
    for q in run.queries:
        gold = set(gold_of[q.query_id])
        for m in wanted:
            if m.name == "mrr":
                value = reciprocal_rank(q.ranking, gold)
            elif m.name == "csr":
                value = csr(q.selected, gold) if q.selected is not None else csr_at_k(q.ranking, gold, run.k)
            else:
                value = _AT_K[m.name](q.ranking, gold, m.cutoff)  # type: ignore[arg-type]
            per_query[m.label].append(value)
        if q.selected is None and any(m.name == "csr" for m in wanted):
            stand_in += 1
    n = len(run.queries)
    means = {label: sum(values) / n if n else 0.0 for label, values in per_query.items()}
    return Report(run.run_id, run.label, run.k, wanted, run.query_ids,
                  {label: tuple(values) for label, values in per_query.items()}, means, stand_in)
