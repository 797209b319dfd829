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
    runs_frame,
    runs_table,
    score_text,
    summary_frame,
    summary_table,
    table_notes,
)
from components.session import llm_api_key, llm_config, workspace
from components.text import md_escape
from core.compare import METRICS, load_run_scores, paired_test
from core.evaluation import default_comparison, pick_baseline, run_rows
from storage.runs import list_runs

st.title("Runs")
st.caption("Evaluate retrieval strategies on a query set with gold tools, then compare the stored runs: metrics "
           "side by side, a paired significance test against a baseline, and each query's ranking.")
ws = workspace()
info, version = catalog_picker(ws)
jobs_panel(ws)

eval_form(ws, info, version, llm_config(), llm_api_key(), state_key="runs_job")
eval_job_status(ws, state_key="runs_job")

st.subheader("Stored runs")
# radio labels are markdown, and a catalog's name is anyone's text: escaped
scope = st.radio("Show runs of", ["all", "this"], horizontal=True, key="runs_scope",
                 format_func=lambda s: "all catalogs" if s == "all" else f"{md_escape(info.name)} v{version.number} only")
rows = run_rows(ws.db, version_id=version.id if scope == "this" else None)
unfinished = sum(1 for r in list_runs(ws.db, kind="eval") if r.status != "done")
if unfinished:
    st.caption(f"{unfinished} evaluation run(s) unfinished (stopped, cancelled or still running) are not listed: "
               "start the same evaluation again to resume one.")
if not rows:
    st.info("No finished runs yet. Start an evaluation above, press Run on the Strategy playground, or run one "
            "from the command line: `toolatlas eval demo --strategy query -k 5`.")
    st.stop()

st.caption("Tick rows to compare evaluation runs. " + table_notes(rows))
picked_rows = runs_table(rows, key="runs_table")
st.download_button("Download the runs table (CSV)", runs_frame(rows).to_csv(index=False), "runs.csv", "text/csv",
                   key="runs_csv")

playground_picked = [r for r in picked_rows if r.kind == "playground"]
if playground_picked:
    st.caption("Playground rows are single queries and are not compared here; reopen them on the Strategy "
               "playground page (Stored run): " + ", ".join(f"#{r.run_id} {md_escape(r.strategy)}"
                                                          for r in playground_picked))
picked = list(dict.fromkeys(r.run_id for r in picked_rows if r.kind == "eval"))
st.subheader("Compare")
if not picked:
    picked = list(default_comparison(rows))
    if not picked:
        st.info("No evaluation run to compare yet: start one above.")
        st.stop()
    if len(picked) > 1:
        st.caption("Nothing ticked, so this compares the newest `query` run (the plain retriever) with the newest "
                   "runs of other strategies on the same query set and k. Tick rows above to choose.")
    else:
        st.caption("No run of another strategy on the same query set and k to compare with yet: start one above "
                   "(several strategies at once give one run each), or tick rows to compare any runs.")
by_id = {r.run_id: r for r in rows if r.kind == "eval"}
c1, c2 = st.columns([3, 1])
baseline_id = c1.selectbox("Baseline", picked, index=picked.index(pick_baseline(rows, picked)),
                           format_func=lambda i: describe(by_id[i]), key=f"runs_baseline_{'_'.join(map(str, picked))}",
                           help="The run every other one is compared against (a `query` run when one is picked)")
metric = c2.selectbox("Metric", METRICS, key="runs_metric", format_func=lambda m: METRIC_NAMES[m])
order = [baseline_id, *[p for p in picked if p != baseline_id]]
scores = [load_run_scores(ws.db, rid) for rid in order]
if len({s.k for s in scores}) > 1:
    st.warning("These runs were measured at different k (" + ", ".join(f"#{s.run_id}: k={s.k}" for s in scores)
               + "): their @k scores are not comparable.")

if len({len(s.query_ids) for s in scores}) > 1:
    st.caption("The runs answered different numbers of queries (" + ", ".join(f"#{s.run_id}: {len(s.query_ids)}"
               for s in scores) + "): their means are over different queries; the significance test below uses "
               "only the queries they share.")
summary = summary_frame(scores, baseline_id)
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
base = scores[0]
per_query = pd.DataFrame({"query": list(base.query_ids), "text": [base.texts[q] for q in base.query_ids],
                          **{s.label: [float(s.scores[metric][s.query_ids.index(q)]) if q in s.query_ids else None
                                       for q in base.query_ids] for s in scores}})
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
    st.markdown(f"**{md_escape(qid)}** — {md_escape(base.texts[qid])}")
    st.caption("Gold: " + ", ".join(md_escape(g) for g in base.gold[qid]))
    cols = st.columns(len(scores))
    for col, s in zip(cols, scores, strict=True):
        col.markdown(f"**{md_escape(s.label)}**")
        ranking = s.rankings.get(qid, [])
        col.dataframe(pd.DataFrame({"rank": range(1, len(ranking) + 1), "tool": ranking,
                                    "gold": [k in base.gold[qid] for k in ranking]}), hide_index=True)
        trace = s.traces.get(qid, [])
        if trace:
            with col.expander(f"Trace ({len(trace)} events)"):
                st.dataframe(pd.DataFrame([{"step": i, "event": e.get("kind"),
                                            "detail": ", ".join(f"{k}={v}" for k, v in e.items()
                                                                if k != "kind")[:300]}
                                           for i, e in enumerate(trace)]), hide_index=True)
