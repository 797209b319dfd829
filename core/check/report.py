"""A check's result as one self-contained HTML file: plotly.js inlined, no request leaves the page, so it opens
from disk offline. The verdict comes first, then tool changes, breaking changes, new overlaps, retrieval
(metrics, every regression with both rankings, the newly solved queries), documentation, and both versions'
overlap maps side by side with the changed tools marked. The page shell (head, no-network policy, styles,
tables, figure embedding) is :mod:`core.report_html`'s, shared with ``toolatlas report``.

Every piece of catalog text goes through :func:`html.escape` (text and attributes); figure labels are escaped
before plotly sees them, and plotly's JSON escapes ``</`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.check.docs import worst_first
from core.check.service import RULES, CheckResult
from core.check.summary import counts_line, metrics_line
from core.report_html import esc, figure, page, sections_html
from core.report_html import table as _table

STATUS_COLOURS = {"unchanged": "#b4b4b4", "changed": "#f58231", "added": "#3cb44b", "renamed": "#4363d8",
                  "removed": "#e6194b"}


def _changes(result: CheckResult) -> str:
    d = result.changes.diff
    base = {t.key: t for t in result.base_tools}
    new = {t.key: t for t in result.new_tools}
    rows = [["added", esc(new[k].name), esc(new[k].description[:200])] for k in d.added]
    rows += [["removed", esc(base[k].name), esc(base[k].description[:200])] for k in d.removed]
    rows += [["renamed", f"{esc(base[a].name)} → {esc(new[b].name)}", esc(new[b].description[:200])]
             for a, b in d.renamed]
    rows += [["changed", esc(new[k].name), esc(new[k].description[:200])] for k in d.changed]
    return f"<p>{esc(counts_line(result))}.</p>" + _table(["change", "tool", "description (NEW)"], rows,
                                                          empty="No tool was added, removed, renamed or changed.")


def _breaking(result: CheckResult) -> str:
    rows = [[esc(b.kind), esc(b.name), esc(b.detail)] for b in result.changes.breaking]
    return _table(["kind", "tool", "what breaks"], rows, empty="No breaking change.")


def _overlaps(result: CheckResult) -> str:
    names = {t.key: t.name for t in (*result.base_tools, *result.new_tools)}
    rows = [[esc(names[o.key]), esc(names[o.other]), f"{o.cosine:.3f}",
             "<b>same tool</b>" if o.same else ("judge failed" if not o.judge_ok else "different"), esc(o.reason),
             esc(names.get(o.nearest_existing, "—"))] for o in result.overlaps]
    note = (f"<p>Candidate pairs (cosine ≥ θ = {result.threshold:.2f} among each tool's "
            f"{result.config.neighbours} nearest neighbours) that involve an added or changed tool, put to the "
            f"pair judge <code>{esc(result.judge)}</code>. Pairs already judged the same in BASE are left out.</p>")
    return note + _table(["added / changed tool", "looks like", "cosine", "judge", "reason", "nearest BASE tool"],
                         rows, empty="No candidate pair involves an added or changed tool.")


def _ranking(title: str, ranking: Sequence[str], gold: Sequence[str], names: dict[str, str]) -> str:
    rows = [[str(i), (f"<span class='gold'>{esc(names.get(k, k))} ★</span>" if k in gold else esc(names.get(k, k)))]
            for i, k in enumerate(ranking, start=1)]
    return f"<div><b>{esc(title)}</b>" + _table(["rank", "tool"], rows, empty="(no results)") + "</div>"


def _shift(q, names_base: dict[str, str], names_new: dict[str, str], *, causes: bool) -> str:
    ranks = ", ".join(f"{esc(g)}: {b or '—'} → {a or '—'}" for g, b, a in zip(q.gold, q.gold_rank_before,
                                                                             q.gold_rank_after, strict=True))
    why = "".join(f"<li><b>{esc(c.kind)}</b>: {esc(c.detail)}</li>" for c in q.causes) if causes else ""
    return (f"<div class='query'><p><b>{esc(q.query_id)}</b>: {esc(q.text)}</p><p class='muted'>gold rank BASE → "
            f"NEW: {ranks}</p>" + (f"<ul>{why}</ul>" if why else "") + "<div class='pair'>"
            + _ranking("BASE top k", q.before, q.gold, names_base) + _ranking("NEW top k", q.after, q.gold, names_new)
            + "</div></div>")


def _metrics_figure(result: CheckResult) -> str:
    import plotly.graph_objects as go

    r = result.retrieval
    names = list(r.before)
    fig = go.Figure([go.Bar(name="BASE: " + esc(result.base_label), x=names, y=[r.before[n] for n in names]),
                     go.Bar(name="NEW: " + esc(result.new_label), x=names, y=[r.after[n] for n in names])])
    fig.update_layout(title=f"Retrieval before and after ({r.n_queries} queries, {r.mode} search)",
                      xaxis_title="metric", yaxis_title="mean over queries", yaxis_range=[0, 1], barmode="group",
                      height=380, legend_title_text="version")
    return figure(fig)


def _retrieval(result: CheckResult) -> str:
    r = result.retrieval
    if r is None:
        return "<p class='muted'>Not checked: give queries (<code>--queries Q.jsonl</code>) with gold tools.</p>"
    names_base = {t.key: t.name for t in result.base_tools}
    names_new = {t.key: t.name for t in result.new_tools}
    rows = [[esc(m), f"{r.before[m]:.3f}", f"{r.after[m]:.3f}", f"{r.after[m] - r.before[m]:+.3f}"] for m in r.before]
    rows += [["Forget (CONTDA Eq. 4)", "", f"{r.forget:.3f}", ""], ["Discover (CONTDA Eq. 5)", "", f"{r.discover:.3f}", ""]]
    out = [f"<p>{esc(metrics_line(result))}. A query is solved when {r.solved} of its gold tools are in the "
           f"top {r.k}.</p>", _table(["metric", "BASE", "NEW", "change"], rows), _metrics_figure(result),
           f"<h3>Regressions ({len(r.regressions)})</h3>"]
    out += [_shift(q, names_base, names_new, causes=True) for q in r.regressions] or ["<p class='muted'>None.</p>"]
    out.append(f"<h3>Newly solved ({len(r.discovered)})</h3>")
    out += [_shift(q, names_base, names_new, causes=False) for q in r.discovered] or ["<p class='muted'>None.</p>"]
    return "".join(out)


def _docs(result: CheckResult) -> str:
    rows = [[esc(f.status), esc(f.name), f"{f.score}/5" + (f" (was {f.base_score})" if f.base_score is not None else ""),
             "<b>yes</b>" if f.fires else "no", esc("; ".join(f.issues) or "nothing to fix")]
            for f in worst_first(result.docs)]
    return (f"<p>Rater: {esc(result.docs[0].rater if result.docs else 'rules')}. Counts against the change: an "
            f"added tool below {result.config.doc_min}/5, or a changed one below both that and its BASE score.</p>"
            + _table(["status", "tool", "score", "counts", "what to fix"], rows, empty="No added or changed tool."))


def maps_figure(result: CheckResult):
    """Both versions on one projection, side by side (core.overlap_charts.overlap_scatter), coloured by
    what happened to each tool; judged-same new overlaps drawn as links in the NEW panel."""
    import numpy as np

    from core.models import Tool
    from core.overlap import LOOK_ALIKE, MapLayer, OverlapLink
    from core.overlap_charts import overlap_scatter, shared_axes

    m = result.map
    d = result.changes.diff
    status = {**{k: "added" for k in d.added}, **{k: "changed" for k in d.changed},
              **{new: "renamed" for _, new in d.renamed}}
    gone = {**{k: "removed" for k in d.removed}, **{old: "renamed" for old, _ in d.renamed},
            **{k: "changed" for k in d.changed}}
    # BASE points get keys of their own, so their hover shows BASE's text, not NEW's
    tools: dict[str, Tool] = {f"base:{t.key}": t for t in result.base_tools}
    tools.update({t.key: t for t in result.new_tools})
    before = MapLayer(tuple(f"base:{p.key}" for p in m.base), np.asarray([[p.x, p.y] for p in m.base], np.float32),
                      tuple(gone.get(p.key, "unchanged") for p in m.base))
    after = MapLayer(tuple(p.key for p in m.new), np.asarray([[p.x, p.y] for p in m.new], np.float32),
                     tuple(status.get(p.key, "unchanged") for p in m.new))
    links = [OverlapLink(o.key, o.other, o.cosine, LOOK_ALIKE) for o in result.overlaps if o.same]
    marked = {k for k, g in zip(before.keys, before.groups, strict=True) if g != "unchanged"}
    marked |= {k for k, g in zip(after.keys, after.groups, strict=True) if g != "unchanged"}
    return overlap_scatter(
        before, tools, after=after, title="Both versions on one map: what changed, and where",
        subtitle=f"2-D {m.method} projection of both versions' tool embeddings (shared axes; near = similar). "
                 "Changed tools are marked; lines join new overlaps the judge calls the same.",
        panel_titles=("BASE: " + esc(result.base_label), "NEW: " + esc(result.new_label)),
        legend_title="change", colours=STATUS_COLOURS, highlight=marked, links=links,
        link_threshold=result.threshold, axes=shared_axes(np.vstack([before.coords, after.coords])))


def _maps(result: CheckResult) -> str:
    if result.map is None:
        return "<p class='muted'>Not drawn (no map was computed for this check).</p>"
    return figure(maps_figure(result))


def render_html(result: CheckResult) -> str:
    """The whole report as one HTML document (the shared shell of :mod:`core.report_html`: plotly.js inlined,
    no network)."""
    cls = "fail" if result.failed else "pass"
    rules = "".join(f"<li><b>{esc(rule)}</b>{' (fails the check)' if rule in result.config.fail_on else ''}: "
                    f"{esc(RULES[rule])} — {'<b>found</b>' if rule in result.fired else 'none'}</li>" for rule in RULES)
    sections = [("Tool changes", _changes(result)), ("Breaking changes", _breaking(result)),
                ("New overlaps", _overlaps(result)), ("Retrieval", _retrieval(result)),
                ("Documentation of added and changed tools", _docs(result)), ("Overlap maps", _maps(result))]
    return page(f"toolatlas check: {result.verdict}",
                f"<h1>toolatlas check: {esc(result.base_label)} → {esc(result.new_label)}</h1>"
                f"<div class='verdict {cls}'>{esc(result.verdict)}</div>"
                f"<p>{esc(counts_line(result))}. {esc(metrics_line(result))}.</p><ul>{rules}</ul>"
                f"<p class='muted'>Embeddings: {esc(result.embedder)}; judge: {esc(result.judge)} (offline rules stand "
                f"in for a model unless a model was named); took {result.seconds:.1f} s.</p>"
                + sections_html(sections))
