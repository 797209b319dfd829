"""The Catalog page's "Compare versions" view: ``toolatlas check`` on two stored versions of the catalog, with
the same findings, the two versions' overlap maps side by side, and the HTML report to download."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.jobs import job_result
from components.text import md_escape
from core.check.docs import worst_first
from core.check.inputs import resolve, workspace_loader
from core.check.report import maps_figure, render_html
from core.check.service import RULES, CheckConfig, CheckResult, run_check
from core.check.summary import counts_line, metrics_line

NO_QUERIES = "(no queries)"


def _check_job(ws, catalog: str, base: int, new: int, query_set_id: int | None, k: int):
    """The check as work for the shared job registry (its progress is the job's)."""

    def work(job) -> CheckResult:
        loader = workspace_loader(ws)
        queries = ws.queries(query_set_id) if query_set_id is not None else ()
        return run_check(resolve(f"{catalog}@v{base}", stored=loader), resolve(f"{catalog}@v{new}", stored=loader),
                         embedder=ws.embedder, vector_space=ws.vector_space, cache=ws.cache, queries=queries,
                         config=CheckConfig(k=k), with_parameters=ws.text_with_parameters, map_method="umap",
                         progress=job.report)
    return work


def _frame(rows: list[dict], key: str, empty: str) -> None:
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=key)
    else:
        st.caption(empty)


def show_result(result: CheckResult) -> None:
    """The findings of a check, verdict first (tables show catalog text as plain cells)."""
    (st.error if result.failed else st.success)(md_escape(f"{result.verdict}. {counts_line(result)}."))
    st.caption(md_escape(metrics_line(result)) + ". Rules: " + "; ".join(
        f"**{r}**{' (fails)' if r in result.config.fail_on else ''}: {RULES[r]}" for r in RULES) + ".")
    names = {t.key: t.name for t in (*result.base_tools, *result.new_tools)}
    d = result.changes.diff
    st.markdown("**Tool changes and breaking changes**")
    _frame([{"change": c, "tool": names[k]} for c, keys in (("added", d.added), ("removed", d.removed),
                                                             ("changed", d.changed)) for k in keys]
           + [{"change": "renamed", "tool": f"{names[a]} → {names[b]}"} for a, b in d.renamed],
           "check_changes", "No tool added, removed, renamed or changed.")
    _frame([{"tool": b.name, "kind": b.kind, "what breaks": b.detail} for b in result.changes.breaking],
           "check_breaking", "No breaking change.")
    st.markdown("**New overlaps** (the offline pair judge's rules stand in for a model)")
    _frame([{"tool": names[o.key], "looks like": names[o.other], "cosine": round(o.cosine, 3),
             "judge": "same tool" if o.same else "different", "reason": o.reason,
             "nearest existing": names.get(o.nearest_existing, "")} for o in result.overlaps],
           "check_overlaps", "No candidate pair involves an added or changed tool.")
    if result.retrieval is not None:
        st.markdown("**Retrieval regressions** (queries solved on BASE, not on NEW)")
        _frame([{"query": q.text, "gold": ", ".join(q.gold), "BASE top k": ", ".join(q.before),
                 "NEW top k": ", ".join(q.after), "cause": "; ".join(c.detail for c in q.causes)}
                for q in result.retrieval.regressions], "check_regressions", "No query regressed.")
    st.markdown("**Documentation of added and changed tools** (rules, not a model)")
    _frame([{"tool": f.name, "status": f.status, "score": f.score,
             "score on BASE": "—" if f.base_score is None else str(f.base_score), "fires the docs rule": f.fires,
             "what to fix": "; ".join(f.issues)} for f in worst_first(result.docs)], "check_docs",
           "No added or changed tool.")
    if result.map is not None:
        st.plotly_chart(maps_figure(result), width="stretch", key="check_map")


def compare_versions(ws, info) -> None:
    """Pick two stored versions of ``info``'s catalog (and a query set), run the check as a job, show it."""
    st.subheader("Compare versions")
    st.caption("A regression gate for maintainers: what changed between two versions, what breaks callers, which "
               "new tools duplicate old ones, which queries stop finding their tools. Pick BASE and NEW, then run "
               "the check (the same as `toolatlas check NAME@vA NAME@vB` in CI).")
    numbers = [v.number for v in info.versions]
    if len(numbers) < 2:
        st.info("This catalog has one version. Import a changed file under the same name to compare versions.")
        return
    sets = {s.name: s.id for s in ws.query_sets(info.name)}
    c1, c2, c3, c4 = st.columns([1, 1, 2, 1])
    base = c1.selectbox("BASE version", numbers, index=len(numbers) - 2, key="check_base")
    new = c2.selectbox("NEW version", numbers, index=len(numbers) - 1, key="check_new")
    chosen = c3.selectbox("Queries (retrieval regressions)", [NO_QUERIES, *sets], index=1 if sets else 0,
                          key="check_queries", format_func=md_escape)
    k = int(c4.number_input("k", min_value=1, max_value=50, value=5, key="check_k"))
    qs_id = sets.get(chosen)
    key = ("check", info.name, base, new, qs_id, k, ws.vector_space)
    if st.button("Run the check", key="check_run", disabled=base == new, type="primary"):
        st.session_state["check_key"] = key
    if base == new:
        st.caption("Choose two different versions.")
    if st.session_state.get("check_key") != key:
        return
    result = job_result(ws, key, _check_job(ws, info.name, base, new, qs_id, k),
                        label=f"Checking v{new} against v{base}…")
    if st.session_state.get("check_html", (None, ""))[0] != key:  # drawn once per check, not on every rerun
        st.session_state["check_html"] = (key, render_html(result))
    st.download_button("Download the report (HTML, opens offline)", st.session_state["check_html"][1],
                       file_name=f"{info.name}-v{base}-v{new}-check.html", mime="text/html", key="check_download")
    show_result(result)
