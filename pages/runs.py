"""Runs page: start an evaluation, see every stored run side by side, compare the ones picked (summary, chart,
paired significance, per-query drill-down), export."""

import pandas as pd
import streamlit as st

from components.jobs import jobs_panel
from components.pickers import catalog_picker
from components.runs_view import (
    METRIC_NAMES,
    comparison_chart,
    describe,
    eval_form,
    eval_job_status,
    grid_table,
    report_download,
    runs_frame,
    runs_table,
    score_text,
    summary_frame,
    summary_table,
    table_notes,
)
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.compare import paired_test
from core.evaluation import (
    default_comparison,
    grid_names,
    load_run,
    pick_baseline,
    run_rows,
    unfinished_eval_runs,
)
from core.scoring import METRICS, score

st.title("Runs")
st.caption("Evaluate retrieval strategies on a query set with gold tools, then compare the stored runs: metrics "
           "side by side, a paired significance test against a baseline, and each query's ranking.")
ws = workspace()
info, version = catalog_picker(ws)
jobs_panel(ws)

eval_form(ws, info, version, llm_config(), llm_api_key(), state_key="runs_job")
eval_job_status(ws, state_key="runs_job")


@st.fragment
def stored_runs() -> None:
    """The stored runs, the comparison of the ones picked and the per-query drill-down: ticking rows, choosing
    the baseline, metric or k and picking a query rerun this part only, not the evaluation form above it."""
    st.subheader("Stored runs")
    # radio labels are markdown, and a catalog's name is anyone's text: escaped
    scope = st.radio("Show runs of", ["all", "this"], horizontal=True, key="runs_scope",
                     format_func=lambda s: "all catalogs" if s == "all" else f"{md_escape(info.name)} v{version.number} only")
    grids = grid_names(ws)
    grid = None
    if grids:
        grid = st.selectbox("Grid", [None, *grids], key="runs_grid",
                            format_func=lambda g: "every run (no grid)" if g is None else g,
                            help="The runs of one grid (`toolatlas grid GRID.yaml`): its cells side by side, and "
                                 "compared below")
    rows = run_rows(ws, version_id=version.id if scope == "this" else None, grid=grid)
    unfinished = unfinished_eval_runs(ws)
    if unfinished:
        st.caption(f"{unfinished} evaluation run(s) unfinished (stopped, cancelled or still running) are not listed: "
                   "start the same evaluation again to resume one.")
    if not rows:
        st.info("No finished runs yet. Start an evaluation above, press Run on the Strategy playground, or run one "
                "from the command line: `toolatlas eval demo --strategy query -k 5`.")
        return

    if grid is not None:
        st.subheader(f"Grid {md_escape(grid)}")
        st.caption("One row per cell of the grid (a finished evaluation run), every metric at the row's k; the best "
                   "value of each metric in bold. Cells not finished yet are not listed: run the grid again to "
                   "resume them. Compare below picks every cell unless you tick rows.")
        cells = grid_table(rows, key="runs_grid_cells")
        st.download_button("Download the grid (CSV)", cells.to_csv(index=False), "grid.csv", "text/csv",
                           key="runs_grid_csv")
    st.caption("Tick rows to compare evaluation runs. " + table_notes(rows))
    picked_rows = runs_table(rows, key="runs_table")
    st.download_button("Download the runs table (CSV)", runs_frame(rows).to_csv(index=False), "runs.csv", "text/csv",
                       key="runs_csv")
    report_download(ws, picked_rows, key="runs_report")

    playground_picked = [r for r in picked_rows if r.kind == "playground"]
    if playground_picked:
        st.caption("Playground rows are single queries and are not compared here; reopen them on the Strategy "
                   "playground page (Stored run): " + ", ".join(f"#{r.run_id} {md_escape(r.strategy)}"
                                                              for r in playground_picked))
    picked = list(dict.fromkeys(r.run_id for r in picked_rows if r.kind == "eval"))
    st.subheader("Compare")
    if not picked and grid is not None:
        picked = [r.run_id for r in rows if r.kind == "eval"]
        st.caption("Nothing ticked, so this compares every cell of the grid. Tick rows above to choose.")
    if not picked:
        picked = list(default_comparison(rows))
        if not picked:
            st.info("No evaluation run to compare yet: start one above.")
            return
        if len(picked) > 1:
            st.caption("Nothing ticked, so this compares the newest `query` run (the plain retriever) with the newest "
                       "runs of other strategies on the same query set and k. Tick rows above to choose.")
        else:
            st.caption("No run of another strategy on the same query set and k to compare with yet: start one above "
                       "(several strategies at once give one run each), or tick rows to compare any runs.")
    by_id = {r.run_id: r for r in rows if r.kind == "eval"}
    c1, c2, c3 = st.columns([3, 1, 1])
    baseline_id = c1.selectbox("Baseline", picked, index=picked.index(pick_baseline(rows, picked)),
                               format_func=lambda i: describe(by_id[i]), key=f"runs_baseline_{'_'.join(map(str, picked))}",
                               help="The run every other one is compared against (a `query` run when one is picked)")
    order = [baseline_id, *[p for p in picked if p != baseline_id]]
    least_k = min(by_id[rid].k for rid in order)
    cutoff = c3.selectbox("At k", [None, *range(1, least_k + 1)], key=f"runs_cutoff_{least_k}",
                          format_func=lambda c: "each run's own" if c is None else str(c),
                          help="Score the stored rankings again at one cut-off for every run (at most the smallest k "
                               "they were run at); nothing is run again. CSR is known only at a run's own k.")
    shown_metrics = METRICS if cutoff is None else tuple(m for m in METRICS if m != "csr")
    metric = c2.selectbox("Metric", shown_metrics, key="runs_metric", format_func=lambda m: METRIC_NAMES[m])
    loaded = [load_run(ws, rid) for rid in order]
    wanted = shown_metrics if cutoff is None else [m if m == "mrr" else f"{m}@{cutoff}" for m in shown_metrics]
    scores = [score(run, metrics=wanted) for run in loaded]
    if cutoff is None and len({s.k for s in scores}) > 1:
        st.warning("These runs were measured at different k (" + ", ".join(f"#{s.run_id}: k={s.k}" for s in scores)
                   + "): their @k scores are not comparable. Choose a common k beside the metric to score them "
                   "again at one cut-off.")

    if len({s.n_queries for s in scores}) > 1:
        st.caption("The runs answered different numbers of queries (" + ", ".join(f"#{s.run_id}: {s.n_queries}"
                   for s in scores) + "): their means are over different queries; the significance test below uses "
                   "only the queries they share.")
    summary = summary_frame(scores, baseline_id, shown_metrics)
    summary_table(summary)
    fig = comparison_chart(scores, baseline_id, metric)
    st.plotly_chart(fig, width="stretch", key="runs_bar")
    c1, c2 = st.columns(2)
    c1.download_button("Download the figure (HTML)", fig.to_html(include_plotlyjs="cdn"), "runs.html", "text/html",
                       key="runs_fig")
    c2.download_button("Download the summary (CSV)", summary.to_csv(index=False), "summary.csv", "text/csv",
                       key="runs_summary_csv")

    if len(scores) >= 2:
        st.subheader("Significance against the baseline")
        tests = [paired_test(scores[0], other, metric) for other in scores[1:]]
        shown = [t for t in tests if t is not None]
        if shown:
            st.dataframe(pd.DataFrame([{"baseline": t.baseline, "run": t.other, "shared queries": t.n,
                                        "wins / ties / losses": f"{t.wins} / {t.ties} / {t.losses}",
                                        "mean difference": round(t.mean_difference, 4),
                                        "95% CI": f"[{t.ci_low:+.3f}, {t.ci_high:+.3f}]", "p (paired permutation)":
                                        round(t.p_value, 4)} for t in shown]), hide_index=True, width="stretch",
                         key="runs_significance",
                         column_config={"mean difference": st.column_config.NumberColumn(format="%+.4f"),
                                        "p (paired permutation)": st.column_config.NumberColumn(format="%.4f")})
            st.caption(f"Per shared query, {METRIC_NAMES[metric]} of the run minus the baseline's: wins are queries "
                       "where the run scores higher. Two-sided sign-flip permutation test; bootstrap interval.")
        if len(shown) < len(tests):
            st.caption("Pairs sharing fewer than 10 queries are not tested.")

    st.subheader("Per-query drill-down")
    base, base_run = scores[0], loaded[0]
    answered = [dict(zip(s.query_ids, s.values(metric), strict=True)) for s in scores]
    base_queries = {q.query_id: q for q in base_run.queries}
    per_query = pd.DataFrame({"query": list(base.query_ids), "text": [base_queries[q].text for q in base.query_ids],
                              **{s.label: [values.get(q) for q in base.query_ids]
                                 for s, values in zip(scores, answered, strict=True)}})
    st.caption(f"{METRIC_NAMES[metric]} per query of the baseline's queries (– : the run did not answer that query); "
               "pick a row to see each run's ranking.")
    shown_pq = per_query.assign(**{s.label: per_query[s.label].map(lambda v: score_text(None if pd.isna(v) else v))
                                   for s in scores})
    pq = st.dataframe(shown_pq, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                      key="runs_pq", height=min(38 + 35 * len(per_query), 300),
                      column_config={"text": st.column_config.TextColumn("text", width="large"),
                                     **{s.label: st.column_config.TextColumn(s.label, alignment="right")
                                        for s in scores}})
    st.download_button("Download per-query scores (CSV)", per_query.to_csv(index=False), "per_query.csv", "text/csv",
                       key="runs_pq_csv")
    sel = pq.selection.rows if pq and pq.selection else []
    if sel:
        qid = base.query_ids[sel[0]]
        gold = base_queries[qid].gold
        st.markdown(f"**{md_escape(qid)}** — {md_escape(base_queries[qid].text)}")
        st.caption("Gold: " + ", ".join(md_escape(g) for g in gold))
        cols = st.columns(len(scores))
        for col, run in zip(cols, loaded, strict=True):
            col.markdown(f"**{md_escape(run.label)}**")
            answer = next((q for q in run.queries if q.query_id == qid), None)
            ranking = list(answer.ranking) if answer else []
            col.dataframe(pd.DataFrame({"rank": range(1, len(ranking) + 1), "tool": ranking,
                                        "gold": [k in gold for k in ranking]}), hide_index=True)
            trace = answer.trace if answer else ()
            if trace:
                with col.expander(f"Trace ({len(trace)} events)"):
                    st.dataframe(pd.DataFrame([{"step": i, "event": e.get("kind"),
                                                "detail": ", ".join(f"{k}={v}" for k, v in e.items()
                                                                    if k != "kind")[:300]}
                                               for i, e in enumerate(trace)]), hide_index=True)


stored_runs()
