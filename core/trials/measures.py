"""Scores of trial reports: Recall@K, nDCG@K and Pass@K before and after the re-ranking (GRETEL §4.1),
and the failure-type shares of the top candidates (GRETEL Table 4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from core.metrics import ndcg_at_k, recall_at_k
from core.trials.evidence import TrialOutcome, TrialReport

# Table 4's four classes; a plan that could not be built is the paper's parameter mismatch ("cannot
# construct valid API calls ... missing mandatory fields"), so Table 4's grouping counts it there.
TAXONOMY = (TrialOutcome.PARAMETER_MISMATCH, TrialOutcome.SEMANTIC_MISMATCH, TrialOutcome.EXECUTION_FAILURE,
            TrialOutcome.FUNCTIONAL_SUCCESS)
# The classes a share is given for, each on its own: every share is its count over the judged trials
# (all but NOT_EXECUTED, in the enum's order).
JUDGED = tuple(c for c in TrialOutcome if c != TrialOutcome.NOT_EXECUTED)


def passes(report: TrialReport, ranking: Sequence[str], k: int) -> bool:
    """Pass@K for one query, **our definition**: GRETEL §4.1 reports a "Pass Rate@K" as a functional
    correctness measure but does not define it. Ours: some gold tool is in the top ``k`` and its trial was
    a real functional success (a simulated answer does not count: nothing was shown to work). With several
    gold tools one working gold tool is enough; ``passes_all`` is the stricter variant."""
    top = set(ranking[:k])
    return any(key in top and _worked(report, key) for key in report.gold)


def passes_all(report: TrialReport, ranking: Sequence[str], k: int) -> bool:
    """Our strict variant of :func:`passes` for multi-tool queries: every gold tool is in the top ``k`` and
    worked (our definition, like Pass@K itself)."""
    top = set(ranking[:k])
    return bool(report.gold) and all(key in top and _worked(report, key) for key in report.gold)


def _worked(report: TrialReport, key: str) -> bool:
    trial = report.trial(key)
    return trial is not None and trial.outcome == TrialOutcome.FUNCTIONAL_SUCCESS


def failure_shares(reports: Sequence[TrialReport], k: int = 5) -> dict[str, Any]:
    """GRETEL Table 4 over the top-``k`` candidates of the initial rankings.

    ``counts`` and ``shares`` are per outcome class, each share being that same class's count over the
    ``judged`` trials (those planned or run; NOT_EXECUTED trials are counted, not shared), so a share and
    its count always agree. ``table4`` is the paper's grouping of the same trials, planning failures
    counted as parameter mismatches, with its own counts beside its shares."""
    counts: Counter[str] = Counter()
    for report in reports:
        for key in report.before[:k]:
            trial = report.trial(key)
            if trial is not None:
                counts[trial.outcome] += 1
    judged = sum(counts[c] for c in JUDGED)

    def share(n: int) -> float:
        return round(n / judged, 4) if judged else 0.0

    grouped = {c: counts[c] for c in TAXONOMY}
    grouped[TrialOutcome.PARAMETER_MISMATCH] += counts[TrialOutcome.PLANNING_FAILED]
    return {"shares": {c: share(counts[c]) for c in JUDGED},
            "counts": {c: counts[c] for c in TrialOutcome},
            "table4": {"counts": grouped, "shares": {c: share(n) for c, n in grouped.items()}},
            "judged": judged, "k": k}


def score_reports(reports: Sequence[TrialReport], k: int = 5, *, cutoffs: Sequence[int] | None = None
                  ) -> dict[str, Any]:
    """Mean Recall@K, nDCG@K and Pass@K before and after re-ranking, over queries with gold tools, at each
    of ``cutoffs`` (default: ``k`` alone; GRETEL §4.1 reports K = 5 and 10). The failure shares (GRETEL
    Table 4) are taken over the top candidates at the smallest cut-off."""
    scored = [r for r in reports if r.gold]
    n = len(scored)
    ats = tuple(sorted(set(cutoffs))) if cutoffs else (k,)
    k = ats[0]

    def mean(values: list[float]) -> float:
        return round(sum(values) / n, 4) if n else 0.0

    out: dict[str, Any] = {"queries": n, "k": k}
    if cutoffs:
        out["cutoffs"] = list(ats)
    for label, pick in (("before", lambda r: r.before), ("after", lambda r: r.after)):
        out[label] = {}
        for at in ats:
            out[label].update({
                f"recall@{at}": mean([recall_at_k(pick(r), r.gold, at) for r in scored]),
                f"ndcg@{at}": mean([ndcg_at_k(pick(r), r.gold, at) for r in scored]),
                f"pass@{at}": mean([1.0 if passes(r, pick(r), at) else 0.0 for r in scored]),
                f"pass_all@{at}": mean([1.0 if passes_all(r, pick(r), at) else 0.0 for r in scored]),
            })
    out["failures"] = failure_shares(reports, k)
    out["simulated"] = sum(t.simulation_used for r in reports for t in r.trials)
    out["trials"] = sum(len(r.trials) for r in reports)
    return out


def measure_rows(metrics: Mapping[str, Any]) -> list[tuple[str, float, float]]:
    """Each measure of a stored trials run as (name, before, after), in cut-off order: the ``before`` and
    ``after`` tables, then any ``at_K`` block a run stored before the pool existed (K = its pool, 10)."""
    rows: dict[str, tuple[str, float, float]] = {}
    blocks = [metrics] + [v for key, v in metrics.items() if key.startswith("at_") and isinstance(v, Mapping)]
    for block in blocks:
        before, after = block.get("before") or {}, block.get("after") or {}
        for name, value in before.items():
            rows.setdefault(name, (name, float(value), float(after.get(name, 0.0))))
    return sorted(rows.values(), key=lambda r: (int(r[0].rsplit("@", 1)[1]) if "@" in r[0] else 0))


def outcome_counts(reports: Sequence[TrialReport]) -> Mapping[str, int]:
    return dict(Counter(t.outcome for r in reports for t in r.trials))
