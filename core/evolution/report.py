"""What a timeline run shows: per-method AvgPerf / Forget / Discover over seeds (CONTDA Eqs. 3–5, Table 2;
the standard error beside the mean is our choice), per-step curves, regressions with their causes (Table 1) and
each tool's documentation history, and a paired test between methods over (seed, step) cells."""

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
    fallbacks: tuple[tuple[str, str, bool], ...] = ()  # the agent's fallback calls at t (CONTDA Fig. 9)


def regressions(results: Sequence[StepResult], seed: int, method: str, step: int) -> list[Regression]:
    s = {r.step: r for r in results if r.seed == seed and r.method == method}
    if step < 1 or step not in s or step - 1 not in s:
        return []
    before = {o.qid: o for o in s[step - 1].evaluation.outcomes}
    return [Regression(o.qid, step, o.cause, o.retrieved, o.selected, o.fallbacks) for o in s[step].evaluation.outcomes
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


def cell_success(results: Sequence[StepResult], method: str, *, first_step: int = 1) -> dict[tuple[int, int], float]:
    """SuccessRate_t (CONTDA Eq. 13) of ``method`` per (seed, step) cell from ``first_step`` on."""
    return {(r.seed, r.step): r.evaluation.success_rate for r in results
            if r.method == method and r.step >= first_step and r.evaluation.outcomes}


def rescued(results: Sequence[StepResult]) -> dict[str, float]:
    """Per method, the queries a fallback call solved (CONTDA Fig. 9's recovery), summed over steps and
    averaged over seeds (kept out of :func:`summarize`, whose stored shape older runs must keep)."""
    totals: dict[str, dict[int, int]] = {}
    for r in results:
        per_seed = totals.setdefault(r.method, {})
        per_seed[r.seed] = per_seed.get(r.seed, 0) + r.evaluation.rescued
    return {m: sum(v.values()) / len(v) for m, v in totals.items()}


@dataclass(frozen=True)
class MethodTest:
    """One method against the baseline over their shared (seed, step) cells; ``test`` is None below 10 cells.
    ``cells`` counts the pairs tested, ``replicas`` the cells left out as replays of another seed's."""

    baseline: str
    method: str
    cells: int
    test: Any = None  # core.compare.PairedTest
    replicas: int = 0  # (seed, step) cells left out as exact replays of another seed's cell at that step


def paired_tests(results: Sequence[StepResult], methods: Sequence[str], *, baseline: str | None = None,
                 first_step: int = 1, resamples: int = 10_000, collapse_replicas: bool = True) -> list[MethodTest]:
    """Each method against ``baseline`` (default: ``original`` when run, else the first method): the paired
    permutation test and bootstrap interval of :func:`core.compare.paired_values` over the (seed, step) cells
    both have, one pair per cell (the success rates of the two methods on the same toolset).

    Our addition: the paper reports means over five seeds without a test (App. B.3). Cells start at step 1
    by default: at step 0 every method is evaluated on the catalog's own documentation, so those pairs are
    equal by construction. ``collapse_replicas`` (our rule, on by default): a seed whose cell at a step is an
    exact replay of an earlier seed's (both methods' per-query outcomes identical, as when the toolset
    sequence is the catalog's own versions and the operators are deterministic) is one observation, not
    several, so it is counted once; off, every (seed, step) cell is a pair, which overstates the evidence
    whenever seeds replay each other."""
    from core.compare import paired_values

    methods = list(methods)
    if not methods:
        return []
    base = baseline or ("original" if "original" in methods else methods[0])
    base_cells = cell_success(results, base, first_step=first_step)
    fingerprints = _cell_fingerprints(results, first_step) if collapse_replicas else {}
    out = []
    for method in methods:
        if method == base:
            continue
        cells = cell_success(results, method, first_step=first_step)
        pairs, seen, replicas = [], set(), 0
        for c in sorted(base_cells):
            if c not in cells:
                continue
            if collapse_replicas:
                key = (c[1], fingerprints.get((base, c)), fingerprints.get((method, c)))
                if key in seen:
                    replicas += 1
                    continue
                seen.add(key)
            pairs.append((base_cells[c], cells[c]))
        out.append(MethodTest(base, method, len(pairs),
                              paired_values(pairs, base, method, "success rate", resamples=resamples), replicas))
    return out


def _cell_fingerprints(results: Sequence[StepResult], first_step: int) -> dict[tuple[str, tuple[int, int]], str]:
    """Per (method, (seed, step)), the cell's per-query outcomes as one text: equal texts are replays."""
    import json

    return {(r.method, (r.seed, r.step)): json.dumps([o.to_json() for o in r.evaluation.outcomes], default=str)
            for r in results if r.step >= first_step}


def paired_rows(tests: Sequence[MethodTest]) -> list[dict[str, Any]]:
    """The paired tests as table rows, differences in percentage points; a comparison with too few cells
    says so instead of a p value."""
    rows = []
    for m in tests:
        t = m.test
        row: dict[str, Any] = {"baseline": get_method(m.baseline).label, "method": get_method(m.method).label,
                               "cells": m.cells, "replayed cells left out": m.replicas}
        if t is None:
            rows.append({**row, "Δ success (pp)": "", "95% CI (pp)": "", "p": "n/a (fewer than 10 cells)",
                         "wins/ties/losses": ""})
            continue
        rows.append({**row, "Δ success (pp)": f"{100 * t.mean_difference:+.2f}",
                     "95% CI (pp)": f"[{100 * t.ci_low:+.2f}, {100 * t.ci_high:+.2f}]",
                     "p": f"{t.p_value:.4f}", "wins/ties/losses": f"{t.wins}/{t.ties}/{t.losses}"})
    return rows
