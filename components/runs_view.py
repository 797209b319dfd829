"""The Runs page's pieces: the table of stored runs, the form that starts an evaluation as a background job,
and the comparison of the runs picked (summary, chart, significance)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.text import md_escape
from core.evaluation import RunRow, evaluate_strategies, select_queries
from core.jobs import CANCELLED, DONE, FAILED
from core.scoring import METRICS, Report
from core.strategies.registry import strategy_names

# Column titles of the metrics, each measured at the row's own k (shown in the k column beside them).
METRIC_TITLES = {"recall": "recall@k", "ndcg": "nDCG@k", "precision": "P@k", "comprehensiveness": "comp@k",
                 "mrr": "MRR", "csr": "CSR@k"}
METRIC_HELP = {
    "recall": "Recall@k: share of the gold tools found in the top k, averaged over queries.",
    "ndcg": "nDCG@k: rank-weighted gain of the gold tools in the top k (1 = all gold tools first).",
    "precision": "Precision@k: share of the top k that are gold tools.",
    "comprehensiveness": "Comprehensiveness@k: share of queries whose every gold tool is in the top k.",
    "mrr": "Mean reciprocal rank of the first gold tool (no cut-off).",
    "csr": "CSR@k (ToolScope Eq. 6): share of queries where the tools an agent picks from the top k are "
           "exactly the gold set.",
}
KIND_LABELS = {"eval": "evaluation", "playground": "playground"}
BASELINE_COLOUR, OTHER_COLOUR = "#7a7f8c", "#3558d6"


# -- the table --------------------------------------------------------------------------------------------


NOT_MEASURED = "–"
# The metrics the table shows (all six are in the CSV and in the comparison's summary).
TABLE_METRICS = ("recall", "ndcg", "mrr", "csr")


def runs_frame(rows: Sequence[RunRow]) -> pd.DataFrame:
    """Every field of every row, numbers as numbers (empty where not measured): the CSV download."""
    return pd.DataFrame([{
        "run": r.run_id, "kind": r.kind, "catalog": r.catalog, "query set / query": r.queries_from,
        "strategy": r.strategy, "params": r.params, "k": r.k, "queries": r.n_queries,
        **{METRIC_TITLES[m]: r.metrics.get(m) for m in METRICS},
        "seconds per query": r.seconds_per_query, "LLM": r.llm, "LLM calls": r.llm_calls,
        "failed calls": r.llm_errors, "finished (UTC)": r.finished_at,
    } for r in rows])


def score_text(value: float | None) -> str:
    # Text, right-aligned: the grid can only show a missing number as "None". Scores lie in [0, 1], so three
    # fixed decimals still sort in numeric order.
    return NOT_MEASURED if value is None else f"{value:.3f}"


def display_frame(rows: Sequence[RunRow]) -> pd.DataFrame:
    """The table as shown: strategy with its parameters, where it ran, the main metrics at the row's k."""
    return pd.DataFrame([{
        "run": f"#{r.run_id}", "kind": KIND_LABELS.get(r.kind, r.kind),
        "strategy": r.strategy + (f" ({r.params})" if r.params else ""),
        "catalog · queries": f"{r.catalog} · {r.queries_from}", "k": r.k, "queries": r.n_queries,
        **{METRIC_TITLES[m]: score_text(r.metrics.get(m)) for m in TABLE_METRICS},
        "s / query": r.seconds_per_query, "LLM": r.llm, "LLM calls": r.llm_calls, "failed calls": r.llm_errors,
        "finished (UTC)": r.finished_at,
    } for r in rows])


def _column_config() -> dict:
    number, text = st.column_config.NumberColumn, st.column_config.TextColumn
    return {
        "run": text("run", width=52),
        "kind": text("kind", width=84, help="evaluation: a query set scored query by query; playground: one query "
                                            "run on the Strategy playground"),
        "strategy": text("strategy", width=150, help="Strategy and the parameters it was run with (none: its "
                                                     "defaults)"),
        "catalog · queries": text("catalog · queries", width=150,
                                  help="Catalog version, then the query set (or the playground's query)"),
        "k": number("k", width=40, format="%d", help="The cut-off every @k metric of the row is measured at"),
        "queries": number("queries", width=62, format="%d"),
        **{METRIC_TITLES[m]: text(METRIC_TITLES[m], width=62, alignment="right",
                                  help=METRIC_HELP[m] + f" {NOT_MEASURED}: not measured for this run.")
           for m in TABLE_METRICS},
        "s / query": number("s / query", format="%.3f s", width=80,
                            help="Mean seconds per query (retrieval and tool selection)"),
        "LLM": text("LLM", width=100, help="The backend of the strategy's LLM operators; 'not used' for strategies "
                                           "without any"),
        "LLM calls": number("LLM calls", format="%d", width=80,
                            help="Calls recorded in the ledger for the run, offline rule calls included"),
        "failed calls": number("failed calls", format="%d", width=84),
        "finished (UTC)": st.column_config.DatetimeColumn("finished (UTC)", format="YYYY-MM-DD HH:mm", width=140),
    }


def runs_table(rows: Sequence[RunRow], *, key: str) -> list[RunRow]:
    """The table with a selection column; returns the rows picked (in table order). The key changes with the
    rows listed, so a new run never shifts a selection onto another row."""
    with st.container(key=f"{key}_box"):  # a stable handle (class st-key-…) for browser tests
        event = st.dataframe(display_frame(rows), hide_index=True, width="stretch", on_select="rerun",
                             selection_mode="multi-row", column_config=_column_config(),
                             key=f"{key}_{hash(tuple(r.run_id for r in rows))}", height=min(38 + 35 * len(rows), 390))
    picked = event.selection.rows if event and event.selection else []
    return [rows[i] for i in picked]


def table_notes(rows: Sequence[RunRow]) -> str:
    ks = sorted({r.k for r in rows})
    parts = [f"Each @k metric is measured at its row's own k ({', '.join(map(str, ks))} here): compare scores "
             "only between rows with the same k." if len(ks) > 1 else
             f"Every @k metric is measured at k = {ks[0]}." if ks else ""]
    parts.append("Precision and comprehensiveness are in the CSV and in the comparison below.")
    if any(r.kind == "playground" for r in rows):
        parts.append(f"Playground rows are single queries, one row per strategy; {NOT_MEASURED} marks a metric "
                     "the playground does not measure (CSR, MRR), or any metric of a query without gold tools.")
    return " ".join(p for p in parts if p)


# -- a grid's cells --------------------------------------------------------------------------------------


def grid_frame(rows: Sequence[RunRow]) -> pd.DataFrame:
    """A grid's runs as cells x metrics (``toolatlas grid``): one row per eval run, in the order the grid's
    runs were recorded reversed (newest first, as the table), every metric as a number at the row's k."""
    return pd.DataFrame([{
        "run": f"#{r.run_id}", "strategy": r.strategy, "params": r.params or "(defaults)", "LLM": r.llm,
        "query set": r.queries_from, "k": r.k, "queries": r.n_queries,
        **{METRIC_TITLES[m]: r.metrics.get(m) for m in METRICS}, "s / query": r.seconds_per_query,
    } for r in rows if r.kind == "eval"])


def grid_table(rows: Sequence[RunRow], *, key: str) -> pd.DataFrame:
    """:func:`grid_frame`, the best value of each metric column in bold; returns the frame (for its CSV)."""
    frame = grid_frame(rows)
    metric_columns = [METRIC_TITLES[m] for m in METRICS if frame[METRIC_TITLES[m]].notna().any()]
    frame = frame[[c for c in frame.columns if c not in METRIC_TITLES.values() or c in metric_columns]]
    styled = frame.style.highlight_max(subset=metric_columns, props="font-weight: bold").format(
        "{:.3f}", subset=metric_columns, na_rep=NOT_MEASURED)
    st.dataframe(styled, hide_index=True, width="stretch", key=key,
                 column_config={"s / query": st.column_config.NumberColumn(format="%.3f s"),
                                **{c: st.column_config.Column(c, help=METRIC_HELP[m])
                                   for m, c in METRIC_TITLES.items() if c in metric_columns}})
    return frame


# -- starting an evaluation -------------------------------------------------------------------------------


def backend_line(llm) -> str:
    if llm.kind == "offline":
        return ("LLM backend: **offline operators** (deterministic rules, not a language model). Strategies that "
                "call a model use them; choose a model on the Settings page.")
    return (f"LLM backend: OpenAI-compatible endpoint, model **{md_escape(llm.model or '(default)')}** (from the "
            "Settings page). Strategies that call a model make several calls per query.")


def eval_form(ws, info, version, llm, api_key, *, state_key: str) -> None:
    """Query set, split and size, strategies, k → a background job that stores each query as it is scored."""
    sets = ws.query_sets(info.name)
    with st.container(border=True):
        st.markdown(f"**New evaluation on {md_escape(info.name)} v{version.number}** · the catalog picked in the "
                    "sidebar")
        if not sets:
            st.info("This catalog has no query set with gold tools to evaluate on. Import a queries JSONL with the "
                    "catalog on the Catalog page, or run `toolatlas import FILE --queries Q.jsonl`.")
            return
        c1, c2, c3 = st.columns([2, 1, 1])
        qs = c1.selectbox("Query set", sets, key="runs_new_set", format_func=lambda s: f"{s.name} ({s.n_queries} "
                          "queries)")
        queries = ws.queries(qs.id)
        splits = sorted({q.split for q in queries if q.split})
        split = c2.selectbox("Split", ["all", *splits], key="runs_new_split", disabled=not splits)
        pool = select_queries(queries, split=None if split == "all" else split)
        limit = int(c3.number_input("Queries", 1, len(pool), len(pool), key=f"runs_new_limit_{qs.id}_{split}",
                                    help="The first N queries of the set (or split)"))
        c4, c5, c6 = st.columns([4, 1, 1], vertical_alignment="bottom")
        chosen = c4.multiselect("Strategies", strategy_names(), default=["query"], key="runs_new_strategies",
                                help="One stored run per strategy, with its default parameters")
        k = int(c5.number_input("k", 1, 50, 5, key="runs_new_k", help="Cut-off of every @k metric"))
        start = c6.button("Start evaluation", type="primary", key="runs_new_start", disabled=not chosen,
                          width="stretch")
        st.caption(backend_line(llm))
    if start:
        picked = pool[:limit]
        key = ("eval", version.id, ws.vector_space, qs.id, split, limit, tuple(chosen), k,
               tuple(sorted(llm.identity().items())))

        def work(job):
            return evaluate_strategies(ws, version.id, qs.id, picked, chosen, k=k, llm=llm, api_key=api_key,
                                       progress=job.report)

        job = ws.jobs.start(key, work, label="Starting…")
        st.session_state[state_key] = job.key
        st.session_state[f"{state_key}_seen_over"] = False


def eval_job_status(ws, *, state_key: str) -> None:
    """The evaluation this session started: a progress bar (with Cancel) that refreshes itself without holding
    the page, then what came of it. When the job ends the whole page reruns once, so the table lists the runs."""
    key = st.session_state.get(state_key)
    job = ws.jobs.get(key) if key is not None else None
    if job is None:
        return
    seen_key = f"{state_key}_seen_over"
    if job.over:
        st.session_state[seen_key] = True

    @st.fragment(run_every=1.0 if not job.over else None)
    def status() -> None:
        state = job.state()
        if not state.over:
            c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
            label = "Stopping…" if state.cancelling else state.label
            c1.progress(state.share, text=f"{md_escape(label, 200)} · {state.seconds:.0f} s")
            if c2.button("Cancel", key="runs_cancel", icon=":material/stop_circle:", disabled=state.cancelling,
                         help="Stop at the next query. Finished queries are stored; start the same evaluation "
                              "again to resume."):
                job.cancel()
            return
        if not st.session_state.get(seen_key):
            st.session_state[seen_key] = True
            st.rerun(scope="app")  # the table above was drawn before the runs existed
        if state.status == DONE:
            reports = job.result()
            st.success("Evaluation finished: " + "; ".join(
                f"run #{r.run_id} {md_escape(r.strategy)}, recall@{r.k} {r.metrics.get(f'recall@{r.k}', 0):.3f}"
                + (f" (resumed {r.resumed_items} stored queries)" if r.resumed_items else "") for r in reports)
                + f" · {state.seconds:.0f} s. The new runs are at the top of the table.")
        elif state.status == CANCELLED:
            st.info("Evaluation cancelled. The queries scored so far are stored; start the same evaluation again "
                    "to resume from there.")
        elif state.status == FAILED:
            st.error(f"The evaluation failed: {md_escape(state.error or 'unknown error')}")

    status()


# -- one run as a report ---------------------------------------------------------------------------------


def report_download(ws, picked: Sequence[RunRow], *, key: str) -> None:
    """Any stored eval, merge, trials or timeline run as one self-contained HTML file (core.run_report); the run
    ticked in the table first. The HTML is built only when the button is pressed."""
    from core.run_report import reportable_runs, run_report_html

    choices = {run_id: label for run_id, _, label in reportable_runs(ws)}
    if not choices:
        return
    ticked = next((r.run_id for r in picked if r.run_id in choices), None)
    ids = list(choices)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    run_id = c1.selectbox("Report of run", ids, index=ids.index(ticked) if ticked is not None else 0,
                          format_func=lambda i: choices[i], key=f"{key}_{ticked}",
                          help="Evaluation, merge, trials and timeline runs. The report opens offline in any browser: "
                               "a one-line summary, the run's metrics and figures.")
    c2.download_button("Download report (HTML)", data=lambda: run_report_html(ws, run_id),
                       file_name=f"toolatlas-run-{run_id}.html", mime="text/html", key=f"{key}_button",
                       icon=":material/download:", width="stretch")


# -- comparing runs ---------------------------------------------------------------------------------------


def describe(row: RunRow) -> str:
    params = f" ({row.params})" if row.params else ""
    return f"#{row.run_id} {row.strategy}{params} · {row.catalog} · {row.queries_from} · k={row.k}"


def summary_frame(reports: Sequence[Report], baseline_id: int, metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Mean of each of ``metrics`` per run, each at the cut-off it was scored at (the k column says which: the
    run's own k, or the common cut-off it was re-scored at)."""
    return pd.DataFrame([{"run": r.label, "role": "baseline" if r.run_id == baseline_id else "compared",
                          "k": _cutoff(r, metrics), "queries": r.n_queries,
                          **{METRIC_TITLES[m]: r.mean(m) for m in metrics}} for r in reports])


def _cutoff(report: Report, metrics: Sequence[str]) -> int:
    """The cut-off the report's @k metrics were scored at."""
    return next((c for c in (report.metric(m).cutoff for m in metrics) if c is not None), report.k)


def summary_table(frame: pd.DataFrame) -> None:
    st.dataframe(frame, hide_index=True, width="stretch", key="runs_summary",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in frame.columns
                                if c not in ("run", "role", "k", "queries")})


METRIC_NAMES = {"recall": "recall", "ndcg": "nDCG", "precision": "precision", "comprehensiveness":
                "comprehensiveness", "mrr": "reciprocal rank", "csr": "CSR"}


def comparison_chart(reports: Sequence[Report], baseline_id: int, metric: str) -> go.Figure:
    """Mean ``metric`` per run as bars, the baseline in grey, with the value on each bar."""
    fig = go.Figure()
    for role, colour in (("baseline", BASELINE_COLOUR), ("compared run", OTHER_COLOUR)):
        chosen = [r for r in reports if (r.run_id == baseline_id) == (role == "baseline")]
        if not chosen:
            continue
        values = [r.mean(metric) for r in chosen]
        fig.add_trace(go.Bar(x=[html.escape(r.label) for r in chosen], y=values, name=role, marker_color=colour,
                             text=[f"{v:.3f}" for v in values], textposition="outside", cliponaxis=False,
                             width=0.5 if len(reports) > 2 else 0.35,
                             hovertemplate="%{x}<br>mean: %{y:.4f}<extra></extra>"))
    ks = sorted({r.metric(metric).cutoff for r in reports} - {None})
    at = "" if not ks else (f"@{ks[0]}" if len(ks) == 1 else "@k (each run's own k)")
    name = METRIC_NAMES[metric]
    top = max((r.mean(metric) for r in reports), default=1.0)
    fig.update_layout(
        title=f"Mean {name}{at} per run (over the run's queries)", height=380, margin=dict(l=10, r=10, t=50, b=10),
        xaxis_title="run", yaxis_title=f"mean {name}{at}",
        yaxis_range=[0, max(1.0, top) * 1.12 if not math.isnan(top) else 1.0],
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0), barmode="group",
    )
    return fig
