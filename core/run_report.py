"""Any stored run (evaluation, merge, trials, timeline) as one self-contained HTML report, so a demo can be
shared as one file (issue 17): the shell of :mod:`core.report_html` (plotly.js inlined, no network), a
one-line summary first (what run, catalog@version, strategy or method, parameters, when), the run's metrics,
and one or two figures of its kind.

Nothing is run again: an eval run is re-scored from its stored rankings (:func:`core.scoring.score`); a merge
run is rebuilt from its stored verdicts with no judge call (offline rules stand in, and are never asked for a
finished run); a trials run and a timeline are read back by their services. Every piece of catalog, query or
model text is escaped (:func:`core.report_html.esc`), figure labels included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from core.report_html import esc, figure, page, sections_html, table

# run kind in the store -> what the report calls it
REPORT_KINDS = {"eval": "evaluation", "merge": "merge", "trials": "trials", "evolution": "timeline"}


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "<span class='muted'>not measured</span>"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return esc(value)
    return str(value) if isinstance(value, int) else f"{value:.{digits}f}"


def _params(params: Mapping[str, Any]) -> str:
    from core.scoring import params_label

    return params_label(params) or "defaults"


def _where(ws: Any, version_id: int | None) -> str:
    if version_id is None:
        return "no catalog"
    try:
        v = ws.version(version_id)
    except ValueError:
        return f"a deleted version (#{version_id})"
    return f"{v.catalog_name}@v{v.number}"


def _when(info: Any) -> str:
    stamp = info.finished_at or info.created_at
    return f"finished {stamp:%Y-%m-%d %H:%M} UTC" if info.finished_at else f"started {stamp:%Y-%m-%d %H:%M} UTC"


def _metrics_table(metrics: Mapping[str, Any]) -> str:
    """The run's stored metrics, one row each (nested blocks as their keys; long ones left to their section)."""
    rows = [[esc(k), _num(v, 4)] for k, v in metrics.items() if not isinstance(v, Mapping | list | tuple)]
    return table(["metric", "value"], rows, empty="No metrics stored.")


def _bars(title: str, groups: Mapping[str, Mapping[str, float]], *, x_title: str, y_title: str,
          legend: str) -> Any:
    """Grouped bars: one trace per group (escaped names), one bar per measure."""
    import plotly.graph_objects as go

    fig = go.Figure([go.Bar(name=esc(name), x=[esc(m) for m in values], y=list(values.values()),
                            text=[f"{v:.3f}" for v in values.values()], textposition="outside", cliponaxis=False)
                     for name, values in groups.items()])
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, barmode="group", height=380,
                      legend_title_text=legend, yaxis_range=[0, 1.12])
    return fig


# -- evaluation -------------------------------------------------------------------------------------------


def _eval(ws: Any, info: Any) -> tuple[str, list[tuple[str, str]]]:
    from core.evaluation import load_run
    from core.scoring import METRICS, score

    run = load_run(ws, info.id)
    report = score(run)
    qs = {s.id: s.name for s in ws.query_sets(ws.version(run.version_id).catalog_name)} if run.version_id else {}
    what = (f"evaluation run #{info.id} · strategy {run.strategy} ({_params(run.params)}) · k={run.k} · "
            f"{report.n_queries} queries of {qs.get(run.query_set_id, f'query set #{run.query_set_id}')}")
    labels = [report.metric(m).label for m in METRICS]
    fig = _bars(f"Mean score per metric, run #{info.id} ({run.strategy}, k={run.k})",
                {run.label: {lab: report.means[lab] for lab in labels}}, x_title="metric",
                y_title="mean over the run's queries", legend="run")
    by_id = {q.query_id: q for q in run.queries}
    rows = []
    for i, qid in enumerate(report.query_ids):
        q = by_id[qid]
        top = ", ".join(f"<span class='gold'>{esc(k)} ★</span>" if k in q.gold else esc(k) for k in q.ranking[:run.k])
        rows.append([esc(qid), esc(q.text), esc(", ".join(q.gold)), top,
                     *(f"{report.per_query[lab][i]:.3f}" for lab in labels)])
    metrics = {**report.as_dict(), **run.measures}
    return what, [("Metrics", _metrics_table(metrics) + figure(fig)),
                  ("Per query", f"<p>Each query's top {run.k} (gold tools starred) and its scores.</p>"
                   + table(["query", "text", "gold", f"top {run.k}", *labels], rows, empty="No query answered."))]


# -- merge ------------------------------------------------------------------------------------------------


def _preferred_set(ws: Any, catalog: str) -> Any:
    """The query set a merge is measured on: the one named after the catalog, else the only one, else none."""
    sets = ws.query_sets(catalog)
    named = [s for s in sets if s.name == catalog]
    return named[0] if named else (sets[0] if len(sets) == 1 else None)


def _cluster_bars(result: Any, review: Any, by_key: Mapping[str, Any], run_id: int) -> str:
    """Members per cluster, named by the representative's (escaped) name, coloured by review status."""
    import plotly.graph_objects as go

    if not result.clusters:
        return ""
    status = [review.states[cl.id].status for cl in result.clusters]
    fig = go.Figure([go.Bar(name=esc(st), x=[f"{cl.id}: {esc(by_key[cl.representative].name[:40])}"
                                             for cl, s in zip(result.clusters, status, strict=True) if s == st],
                            y=[len(cl.members) for cl, s in zip(result.clusters, status, strict=True) if s == st])
                     for st in dict.fromkeys(status)])
    fig.update_layout(title=f"Tools per proposed cluster, merge run #{run_id}", xaxis_title="cluster (kept tool)",
                      yaxis_title="tools merged into one", legend_title_text="review", height=380)
    return figure(fig)


def _merge(ws: Any, info: Any) -> tuple[str, list[tuple[str, str]]]:
    from core.llm.framework import make_roles
    from core.merging.measures import mean_silhouette
    from core.merging.pipeline import MergeConfig, run_merge
    from core.merging.review import load_review
    from core.merging.service import measure
    from core.merging.store import SqlMergeStore
    from core.overlap_charts import silhouette_chart

    if info.status != "done":
        raise ValueError(f"merge run #{info.id} is {info.status}, not finished: finish it before reporting it")
    cfg = info.config
    config = MergeConfig(threshold=float(cfg["threshold"]), k=int(cfg["k"]), autocorrect=bool(cfg["autocorrect"]),
                         keep_parameters=bool(cfg.get("keep_parameters", True)))
    engine = ws.search_engine(info.version_id)
    # A finished run: every verdict, audit and doc is stored and final (retry_failed=False), so the judge is
    # never asked; offline rules without a ledger stand in for it, so nothing is written either way.
    result = run_merge(engine.tools, engine.vectors, make_roles("merge", "offline", ledger=None), config,
                       store=SqlMergeStore(ws.db, info.id), retry_failed=False)
    review = load_review(ws, info.id, result, engine.tools)
    by_key = {t.key: t for t in engine.tools}
    query_set = _preferred_set(ws, ws.version(info.version_id).catalog_name)
    queries = ws.queries(query_set.id) if query_set else ()
    m = measure(engine, review.reviewed, replace(result, phi=review.phi), queries, k=5)
    what = (f"merge run #{info.id} · judge {cfg.get('judge', info.strategy)} · θ={config.threshold:.2f}, "
            f"k={config.k}, Auto-Correction {'on' if config.autocorrect else 'off'}")
    rows = [[esc(cl.id), str(len(cl.members)), f"{cl.confidence:.2f}", esc(cl.audit.verdict if cl.audit else "—"),
             esc(review.states[cl.id].status), esc(by_key[cl.representative].name),
             esc(", ".join(by_key[k].name for k in cl.members))] for cl in result.clusters]
    measures = [["mean silhouette", _num(mean_silhouette(m.silhouette_before)),
                 _num(mean_silhouette(m.silhouette_after)), ""]]
    if m.retrieval is not None:
        r = m.retrieval
        measures += [[f"Recall@{r.k}", _num(r.recall_before), _num(r.recall_after), f"{r.n_queries} queries"],
                     [f"CSR@{r.k}", _num(r.csr_before), _num(r.csr_after), "offline select_tools rule as the agent"]]
    c = m.coverage
    why = ("the query set has no gold calls with arguments" if c is None else
           f"over {c.calls} gold calls, argument {c.check} checked")
    measures += [["TCCR (ToolScope App. K.1)", "", _num(c.tccr if c else None), esc(why)],
                 ["UCC (ToolScope App. K.1)", "", _num(c.ucc if c else None), esc(why)]]
    on = f"query set {esc(query_set.name)}" if query_set else "no query set (silhouette only)"
    sections = [("Metrics", _metrics_table(info.metrics)),
                ("Measures before / after", f"<p>Measured on the reviewed catalog and {on}.</p>"
                 + table(["measure", "before", "after", "note"], measures)
                 + (figure(silhouette_chart(m.silhouette_before, m.silhouette_after)) if m.silhouette_before else
                    "<p class='muted'>Too few tools for a silhouette curve.</p>")),
                (f"Clusters ({len(result.clusters)})", _cluster_bars(result, review, by_key, info.id) + table(["cluster", "size", "confidence", "Auto-Correction", "review", "representative", "members"],
                       rows, empty="No two tools were judged the same."))]
    return what, sections


# -- trials -----------------------------------------------------------------------------------------------


def _trials(ws: Any, info: Any) -> tuple[str, list[tuple[str, str]]]:
    from core.trials.measures import measure_rows
    from core.trials.service import load_trial_run

    info, reports = load_trial_run(ws, info.id)
    cfg = info.config
    rows = measure_rows(info.metrics)
    what = (f"trials run #{info.id} · strategy {info.strategy} ({_params(cfg.get('params', {}))}) · "
            f"{len(reports)} queries · executors {', '.join(cfg.get('executors', [])) or 'none'}")
    table_rows = [[esc(n), f"{b:.3f}", f"{a:.3f}", f"{a - b:+.3f}"] for n, b, a in rows]
    fig = _bars(f"Retrieval before and after the trials' re-ranking, run #{info.id}",
                {"before": {n: b for n, b, _ in rows}, "after": {n: a for n, _, a in rows}},
                x_title="measure", y_title="mean over the run's queries", legend="ranking")
    shares = (info.metrics.get("failures") or {}).get("counts", {})
    outcomes = table(["outcome", "trials"], [[esc(k), str(v)] for k, v in shares.items()], empty="None recorded.")
    k = int(info.metrics.get("k", 5))

    def top(ranking: Sequence[str], gold: Sequence[str]) -> str:
        return ", ".join(f"<span class='gold'>{esc(t)} ★</span>" if t in gold else esc(t) for t in ranking[:k])

    per_query = [[esc(r.query_id), esc(r.query), top(r.before, r.gold), top(r.after, r.gold), str(len(r.trials))]
                 for r in reports]
    return what, [("Metrics", _metrics_table(info.metrics)),
                  ("Before / after", table(["measure", "before", "after", "change"], table_rows,
                                           empty="No measure stored.") + figure(fig)),
                  ("Outcomes of the top candidates' trials", outcomes),
                  ("Queries", f"<p>Each query's top {k} before and after (gold tools starred).</p>"
                   + table(["query", "text", f"top {k} before", f"top {k} after", "trials"], per_query,
                           empty="No query finished."))]


# -- timeline ---------------------------------------------------------------------------------------------


def _curve(summary: Mapping[str, Any], run_id: int) -> Any:
    """Success rate per step, one line per method (means over the seeds; CONTDA Eq. 13 per step)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, m in summary.get("methods", {}).items():
        series = m.get("success_by_step", [])
        fig.add_trace(go.Scatter(x=[f"t{t}" for t in range(len(series))], y=[s["mean"] for s in series],
                                 mode="lines+markers", name=esc(m.get("label", name))))
    fig.update_layout(title=f"Success rate per step and method, timeline #{run_id}", xaxis_title="step",
                      yaxis_title="success rate (mean over seeds)", legend_title_text="method", height=380,
                      yaxis_range=[0, 1])
    return fig


def _timeline(ws: Any, info: Any) -> tuple[str, list[tuple[str, str]]]:
    from core.evolution.report import table_rows
    from core.evolution.service import load_evolution

    run = load_evolution(ws, info.id)
    spec = run.spec
    what = (f"timeline run #{info.id} · {spec.get('source', '?')} sequence · methods "
            f"{', '.join(spec.get('methods', []))} · seeds {', '.join(map(str, spec.get('seeds', [])))} · "
            f"{run.summary.get('steps', 0)} steps · {len(run.query_ids)} queries")
    summary = table(["method", "label", "AvgPerf %", "Forget %", "Discover %", "seeds"],
                    [[esc(r["method"]), esc(r["label"]), esc(r["AvgPerf"]), esc(r["Forget"]), esc(r["Discover"]),
                      str(r["seeds"])] for r in table_rows(run.summary)], empty="No step finished.")
    tests = [[esc(t.baseline), esc(t.method), str(t.cells),
              *(["not tested (fewer than 10 cells)", "", ""] if t.test is None else
                [f"{t.test.mean_difference:+.4f}", f"[{t.test.ci_low:+.3f}, {t.test.ci_high:+.3f}]",
                 f"{t.test.p_value:.4f}"])] for t in run.paired_tests()]
    return what, [("Metrics", summary + figure(_curve(run.summary, info.id))),
                  ("Paired test against the baseline",
                   "<p>Per (seed, step) cell, the method's success rate minus the baseline's: paired permutation test "
                   "and bootstrap interval.</p>"
                   + table(["baseline", "method", "cells", "mean difference", "95% CI", "p"], tests,
                           empty="No other method to test."))]


_BUILDERS = {"eval": _eval, "merge": _merge, "trials": _trials, "evolution": _timeline}


def reportable_runs(ws: Any, *, limit: int = 500) -> tuple[tuple[int, str, str], ...]:
    """(run id, report kind, one-line label) of the stored finished runs a report can be made of, newest first."""
    from storage import runs

    return tuple((r.id, REPORT_KINDS[r.kind], f"#{r.id} {REPORT_KINDS[r.kind]} · {r.strategy} · "
                  f"{_where(ws, r.version_id)}") for r in runs.list_runs(ws.db, limit=limit)
                 if r.kind in REPORT_KINDS and r.status == "done")


def run_report_html(ws: Any, run_id: int) -> str:
    """The stored run ``run_id`` as one HTML document (see the module docstring). ValueError for an unknown id
    or a run of a kind with no report (the message names the kinds that have one)."""
    from storage import runs

    info = runs.get_run(ws.db, run_id)
    if info is None:
        raise ValueError(f"no run with id {run_id}")
    if info.kind not in _BUILDERS:
        raise ValueError(f"run #{run_id} is a {info.kind} run; reports exist for "
                         + ", ".join(f"{k} ({v})" for k, v in REPORT_KINDS.items()) + " runs")
    what, sections = _BUILDERS[info.kind](ws, info)
    line = f"{what} · on {_where(ws, info.version_id)} · {_when(info)} · status {info.status}"
    return page(f"toolatlas report: run #{run_id}",
                f"<h1>toolatlas report: {esc(REPORT_KINDS[info.kind])} run #{run_id}</h1>"
                f"<div class='summary'>{esc(line)}</div>"
                "<p class='muted'>Made from the stored run: nothing was run again. Offline rules stand in for a "
                "model wherever the run was made without one.</p>" + sections_html(sections))

