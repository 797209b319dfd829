"""The escaping rule, checked over the source of every page and component.

Streamlit renders markdown in messages, captions, labels and progress texts. Text that comes from outside
(catalog names and descriptions, query ids, job error strings, model output, exception messages) must pass
through ``md_escape`` before it reaches one of those calls. The check below looks at every f-string given to
such a call and flags an interpolated value whose name says it carries outside text (``error``, ``label``,
``name``, ``reason``, ``exc`` …) unless it is wrapped in ``md_escape``. And nothing may render raw HTML.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(REPO / "pages").glob("*.py"), *(REPO / "components").glob("*.py"), REPO / "app.py"])
# Streamlit calls (on st, a column, a container, a placeholder) whose text argument is rendered as markdown.
MARKDOWN_CALLS = {"markdown", "caption", "error", "warning", "info", "success", "write", "subheader", "header",
                  "title", "expander", "progress", "toast", "status", "spinner", "button", "checkbox", "toggle",
                  "radio", "metric", "popover", "download_button", "form_submit_button", "link_button"}
# Names that carry text from outside the app when they are interpolated.
OUTSIDE = {"error", "label", "reason", "message", "name", "text", "description", "key", "query", "title",
           "category", "source", "exc", "err", "detail", "summary", "members", "output", "response", "model_id"}


def _leaf(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Call):  # str(exc), exc.state().error …
        if isinstance(expr.func, ast.Name) and expr.func.id == "str" and expr.args:
            return _leaf(expr.args[0])
        return _leaf(expr.func.value) if isinstance(expr.func, ast.Attribute) and expr.func.attr in (
            "strip", "lower", "upper") else None
    if isinstance(expr, ast.Subscript):  # row["reason"] is a reason; summary["steps"] is a count
        key = expr.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else _leaf(expr.value)
    return None


def _escaped(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "md_escape"


def unescaped_outside_text(source: str) -> list[tuple[int, str]]:
    """(line, expression) of each outside-looking value interpolated unescaped into a markdown call."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in MARKDOWN_CALLS):
            continue
        texts = [*node.args[:1], *(kw.value for kw in node.keywords if kw.arg in ("text", "label", "body"))]
        for text in texts:
            for sub in ast.walk(text):
                if isinstance(sub, ast.FormattedValue) and not _escaped(sub.value) and sub.format_spec is None:
                    if (_leaf(sub.value) or "") in OUTSIDE:
                        found.append((node.lineno, ast.unparse(sub.value)))
    return found


def test_outside_text_is_escaped_in_every_markdown_call():
    problems = [f"{path.relative_to(REPO)}:{line}: {expr}" for path in SOURCES
                for line, expr in unescaped_outside_text(path.read_text(encoding="utf-8"))]
    assert problems == []


def test_the_check_finds_what_it_is_for():
    # the shape of the Merge review bug this rule was written after: a job's error string shown raw
    bad = 'st.error(f"The last merge failed: {job.state().error}")\nbar.progress(0.5, text=f"{state.label}")\n'
    assert unescaped_outside_text(bad) == [(1, "job.state().error"), (2, "state.label")]
    good = 'st.error(f"failed: {md_escape(job.state().error)}")\nst.caption(f"{len(hits)} results, {n:.2f}")\n'
    assert unescaped_outside_text(good) == []


def test_nothing_renders_raw_html():
    for path in [*SOURCES, *(REPO / "core").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        for banned in ("unsafe_allow_html", "st.html(", "components.v1.html", "components.html("):
            assert banned not in text, f"{path.relative_to(REPO)} uses {banned}"
