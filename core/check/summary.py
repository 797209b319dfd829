"""A check's result as text: a terminal summary and a short Markdown comment for a pull request.

Catalog text in the Markdown is put in code spans with backticks removed, so a tool name cannot turn into a
link, an image or HTML in the comment.
"""

from __future__ import annotations

import re

from core.check.service import CheckResult

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # terminal escapes in catalog text

LIST_LIMIT = 10  # items of each kind a summary lists before "and N more"


def code(text: str, limit: int = 80) -> str:
    """Catalog text as a Markdown code span: no backticks, no line breaks, clipped."""
    text = " ".join(str(text).replace("`", "'").split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"`{text}`" if text else "`(empty)`"


def _more(n: int) -> list[str]:
    return [f"- … and {n - LIST_LIMIT} more"] if n > LIST_LIMIT else []


def finding_lines(result: CheckResult, fmt=code) -> dict[str, list[str]]:
    """One line per finding, under each section's title (``fmt`` renders catalog text)."""
    d = result.changes.diff
    names = {t.key: t.name for t in (*result.base_tools, *result.new_tools)}
    sections: dict[str, list[str]] = {}
    changes = [f"- added {fmt(names[k])}" for k in d.added[:LIST_LIMIT]] + _more(len(d.added))
    changes += [f"- removed {fmt(names[k])}" for k in d.removed[:LIST_LIMIT]] + _more(len(d.removed))
    changes += [f"- renamed {fmt(names[a])} → {fmt(names[b])}" for a, b in d.renamed[:LIST_LIMIT]]
    changes += _more(len(d.renamed))
    sections["Tool changes"] = changes
    sections["Breaking changes"] = ([f"- {fmt(b.name)}: {b.kind} — {fmt(b.detail, 160)}"
                                     for b in result.changes.breaking[:LIST_LIMIT]] + _more(len(result.changes.breaking)))
    same = [o for o in result.overlaps if o.same]
    sections["New overlaps"] = ([f"- {fmt(names[o.key])} looks like {fmt(names[o.other])} (cosine {o.cosine:.2f}): "
                                 f"{fmt(o.reason, 160)}" for o in same[:LIST_LIMIT]] + _more(len(same)))
    r = result.retrieval
    if r is not None:
        lines = [f"- {fmt(q.text, 100)}: " + "; ".join(fmt(c.detail, 160) for c in q.causes)
                 for q in r.regressions[:LIST_LIMIT]] + _more(len(r.regressions))
        sections["Retrieval regressions"] = lines
    bad = [f for f in result.docs if f.fires]
    sections["Documentation"] = ([f"- {fmt(f.name)} scores {f.score}/5"
                                  + (f" (was {f.base_score})" if f.base_score is not None else "")
                                  + f": {fmt('; '.join(f.issues), 200)}" for f in bad[:LIST_LIMIT]] + _more(len(bad)))
    return sections


def counts_line(result: CheckResult) -> str:
    c = result.changes.diff.counts()
    return (f"{c['added']} added, {c['removed']} removed, {c['renamed']} renamed, {c['changed']} changed; "
            f"{len(result.changes.breaking)} breaking; {sum(o.same for o in result.overlaps)} new overlaps")


def metrics_line(result: CheckResult) -> str:
    r = result.retrieval
    if r is None:
        return "retrieval: not checked (no --queries)"
    k = r.k
    return (f"retrieval on {r.n_queries} queries: nDCG@{k} {r.before[f'ndcg@{k}']:.3f} → {r.after[f'ndcg@{k}']:.3f}, "
            f"Recall@{k} {r.before[f'recall@{k}']:.3f} → {r.after[f'recall@{k}']:.3f}; {len(r.regressions)} "
            f"regressed (Forget {r.forget:.3f}), {len(r.discovered)} newly solved (Discover {r.discover:.3f})")


def markdown(result: CheckResult) -> str:
    """A short summary for a pull-request comment."""
    icon = "❌" if result.failed else "✅"
    out = [f"### {icon} toolatlas check: {result.verdict}", "",
           f"{code(result.base_label)} → {code(result.new_label)}: {counts_line(result)}.", "",
           metrics_line(result) + "."]
    for title, lines in finding_lines(result).items():
        if lines:
            out += ["", f"**{title}**", *lines]
    return "\n".join(out) + "\n"


def text(result: CheckResult) -> str:
    """The terminal summary: verdict first, then one line per finding."""
    def plain(s: object, limit: int = 80) -> str:  # no terminal escape sequence from catalog text
        return " ".join(_CONTROL.sub(" ", str(s)).split())[:limit]

    out = [f"verdict: {result.verdict}", f"{result.base_label} -> {result.new_label}: {counts_line(result)}",
           metrics_line(result)]
    for title, lines in finding_lines(result, plain).items():
        if lines:
            out += [f"{title}:", *[f"  {line}" for line in lines]]
    return "\n".join(out) + "\n"
