"""What a timeline run shows: per-method AvgPerf / Forget / Discover over seeds (CONTDA Eqs. 3–5, mean and
standard error, as in the paper's Table 2), per-step curves, regressions with their causes (Table 1) and
each tool's documentation history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.evolution.docs import Revision
from core.evolution.evaluate import CAUSES
from core.evolution.methods import get_method
from core.evolution.metrics import mean_se, series_metrics
from core.evolution.pipeline import StepResult


def _by(results: Sequence[StepResult]) -> dict[tuple[int, str], list[StepResult]]:
    out: dict[tuple[int, str], list[StepResult]] = {}
    for r in results:
        out.setdefault((r.seed, r.method), []).append(r)
    for series in out.values():
        series.sort(key=lambda r: r.step)
    return out


def summarize(results: Sequence[StepResult], methods: Sequence[str]) -> dict[str, Any]:
    """Per method: AvgPerf, mean Forget and mean Discover as mean ± SE over the seeds whose series is
    complete, and per step the success rate, Forget and Discover (mean ± SE) and the failure causes."""
    series = _by(results)
    steps = max((r.step for r in results), default=-1) + 1
    out: dict[str, Any] = {"steps": steps, "methods": {}}
    for method in methods:
        complete = [s for (seed, m), s in sorted(series.items()) if m == method and len(s) == steps]
        if not complete:
            continue
        per_seed = [series_metrics([r.evaluation.success for r in s]) for s in complete]
        by_step_causes = []
        for t in range(steps):
            counts = [s[t].evaluation.causes() for s in complete]
            by_step_causes.append({c: round(sum(x[c] for x in counts) / len(counts), 3) for c in CAUSES})
        out["methods"][method] = {
            "label": get_method(method).label,
            "seeds": [s[0].seed for s in complete],
            "avg_perf": mean_se([m.avg_perf for m in per_seed]).to_json(),
            "forget": mean_se([m.mean_forget for m in per_seed]).to_json(),
            "discover": mean_se([m.mean_discover for m in per_seed]).to_json(),
            "success_by_step": [mean_se([m.success[t] for m in per_seed]).to_json() for t in range(steps)],
            "forget_by_step": [mean_se([m.forget[t] for m in per_seed]).to_json() for t in range(steps - 1)],
            "discover_by_step": [mean_se([m.discover[t] for m in per_seed]).to_json() for t in range(steps - 1)],
            "causes_by_step": by_step_causes,
            "revisions": sum(len(r.revisions) for s in complete for r in s) / len(complete),
        }
    return out


@dataclass(frozen=True)
class Regression:
    """A query solved at t−1 and lost at t, with why it failed at t (CONTDA Table 1)."""

    qid: str
    step: int
    cause: str
    retrieved: tuple[str, ...]
    selected: tuple[str, ...]


def regressions(results: Sequence[StepResult], seed: int, method: str, step: int) -> list[Regression]:
    s = {r.step: r for r in results if r.seed == seed and r.method == method}
    if step < 1 or step not in s or step - 1 not in s:
        return []
    before = {o.qid: o for o in s[step - 1].evaluation.outcomes}
    return [Regression(o.qid, step, o.cause, o.retrieved, o.selected) for o in s[step].evaluation.outcomes
            if not o.success and before.get(o.qid) is not None and before[o.qid].success]


def discoveries(results: Sequence[StepResult], seed: int, method: str, step: int) -> list[str]:
    s = {r.step: r for r in results if r.seed == seed and r.method == method}
    if step < 1 or step not in s or step - 1 not in s:
        return []
    before = {o.qid: o.success for o in s[step - 1].evaluation.outcomes}
    return [o.qid for o in s[step].evaluation.outcomes if o.success and not before.get(o.qid, False)]


def doc_history(results: Sequence[StepResult], seed: int, method: str, key: str) -> list[Revision]:
    """Every revision of one tool's documentation under one method, in step order."""
    out = [rev for r in sorted(results, key=lambda r: r.step) if r.seed == seed and r.method == method
           for rev in r.revisions if rev.key == key]
    return out


def revised_keys(results: Sequence[StepResult], seed: int, method: str) -> dict[str, int]:
    """Tools with at least one revision under a method, with their revision counts (most revised first)."""
    counts: dict[str, int] = {}
    for r in results:
        if r.seed == seed and r.method == method:
            for rev in r.revisions:
                counts[rev.key] = counts.get(rev.key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def pct(x: Mapping[str, Any]) -> str:
    """A ``MeanSE.to_json()`` in percent: ``mean ± se`` over two or more seeds; over one seed the plain
    value, since one value has no spread (a ``± 0.00`` would claim a precision nobody measured)."""
    if int(x.get("n", 2)) < 2:
        return f"{100 * x['mean']:.2f}"
    return f"{100 * x['mean']:.2f} ± {100 * x['se']:.2f}"


def table_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The closing table: one row per method, percentages with their standard errors (none over one seed)."""
    rows = []
    for name, m in summary.get("methods", {}).items():
        rows.append({"method": name, "label": m["label"], "AvgPerf": pct(m["avg_perf"]),
                     "Forget": pct(m["forget"]), "Discover": pct(m["discover"]), "seeds": len(m["seeds"])})
    return rows


def same_series(summary: Mapping[str, Any], field: str = "success_by_step", *,
                tolerance: float = 1e-9) -> dict[str, tuple[str, ...]]:
    """Per method of ``summary``, the methods listed before it whose ``field`` series (per-step means) is the
    same as its own at every step, within ``tolerance``. A chart draws such lines on top of each other; this
    says which they are, so the chart can keep both visible and name the coincidence (our own display aid)."""
    methods = summary.get("methods", {})
    means = {name: [s["mean"] for s in m.get(field, [])] for name, m in methods.items()}
    out: dict[str, tuple[str, ...]] = {}
    for i, (name, values) in enumerate(means.items()):
        out[name] = tuple(other for other, theirs in list(means.items())[:i]
                          if len(theirs) == len(values) and all(abs(a - b) <= tolerance
                                                                 for a, b in zip(theirs, values, strict=True)))
    return out
