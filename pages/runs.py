"""Runs page: evaluation runs side by side, per-query drill-down, paired significance, export."""

import html

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.jobs import jobs_panel
from components.session import workspace
from components.text import md_escape
from core.compare import METRICS, load_run_scores, paired_test, summary_rows
from storage.catalogs import version_by_id
from storage.runs import list_runs

st.title("Runs")
ws = workspace()
jobs_panel(ws)
runs = [r for r in list_runs(ws.db, kind="eval") if r.status == "done"]
if not runs:
    st.info("No finished evaluation runs yet. Run one from the command line, for example:\n\n"
            "`toolatlas eval demo --strategy memetic --split test -k 5`")
    st.stop()

rows = []
for r in runs:
    v = version_by_id(ws.db, r.version_id) if r.version_id else None
    rows.append({"run": r.id, "catalog": f"{v.catalog_name} v{v.number}" if v else "", "strategy": r.strategy,
                 "params": ", ".join(f"{k}={val}" for k, val in sorted(r.config.get("params", {}).items())),
                 "llm": (r.config.get("llm") or {}).get("kind", "—"), "queries": r.n_items,
                 **{k: v for k, v in r.metrics.items() if k != "n_queries"}, "finished": r.finished_at})
table = pd.DataFrame(rows)
st.caption("Select runs to compare (the first selected is the baseline).")
event = st.dataframe(table, hide_index=True, width="stretch", on_select="rerun", selection_mode="multi-row",
                     key="runs_table")
picked = [runs[i].id for i in (event.selection.rows if event and event.selection else [])]
if not picked:
    picked = [r.id for r in runs[:3]]
    st.caption(f"Showing the latest runs: {', '.join(f'#{p}' for p in picked)}.")
st.download_button("Download the runs table (CSV)", table.to_csv(index=False), "runs.csv", "text/csv",
                   key="runs_csv")

scores = [load_run_scores(ws.db, rid) for rid in picked]
metric = st.selectbox("Metric", METRICS, key="runs_metric")
summary = pd.DataFrame(summary_rows(scores))
st.dataframe(summary, hide_index=True, width="stretch")
fig = go.Figure(go.Bar(x=[html.escape(s.label) for s in scores], y=[float(s.scores[metric].mean()) for s in scores],
                       marker_color="#3558d6"))
fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), yaxis_title=f"mean {metric}", title=metric)
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
        st.dataframe(pd.DataFrame([{"baseline": t.baseline, "run": t.other, "queries": t.n,
                                    "wins / ties / losses": f"{t.wins} / {t.ties} / {t.losses}",
                                    "mean difference": round(t.mean_difference, 4),
                                    "95% CI": f"[{t.ci_low:+.3f}, {t.ci_high:+.3f}]", "p (paired permutation)":
                                    round(t.p_value, 4)} for t in shown]), hide_index=True, width="stretch")
    if len(shown) < len(tests):
        st.caption("Pairs sharing fewer than 10 queries are not tested.")

st.subheader("Per-query drill-down")
base = scores[0]
per_query = pd.DataFrame({"query": list(base.query_ids), "text": [base.texts[q][:120] for q in base.query_ids],
                          **{s.label: [float(s.scores[metric][s.query_ids.index(q)]) if q in s.query_ids else None
                                       for q in base.query_ids] for s in scores}})
st.download_button("Download per-query scores (CSV)", per_query.to_csv(index=False), "per_query.csv", "text/csv",
                   key="runs_pq_csv")
pq = st.dataframe(per_query, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                  key="runs_pq", height=300)
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
