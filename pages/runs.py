"""Runs page: stored evaluation runs side by side."""

import pandas as pd
import streamlit as st

from components.session import workspace
from storage.catalogs import version_by_id
from storage.runs import list_runs

st.title("Runs")
ws = workspace()
runs = list_runs(ws.db, kind="eval")
if not runs:
    st.info("No evaluation runs yet. Run one from the command line, for example:\n\n"
            "`toolatlas eval demo --strategy query --mode hybrid -k 5`")
else:
    rows = []
    for r in runs:
        v = version_by_id(ws.db, r.version_id) if r.version_id else None
        rows.append({
            "run": r.id,
            "catalog": f"{v.catalog_name} v{v.number}" if v else "",
            "strategy": r.strategy,
            "params": ", ".join(f"{k}={val}" for k, val in sorted(r.config.get("params", {}).items())),
            "status": r.status,
            "queries": r.n_items,
            **{k: v for k, v in r.metrics.items() if k != "n_queries"},
            "finished": r.finished_at,
        })
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Per-query drill-down, significance tests and figure export arrive with the strategies issue.")
