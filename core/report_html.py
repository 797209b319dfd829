"""The one page shell of every self-contained HTML report (``toolatlas check --report``, ``toolatlas report``):
plotly.js inlined, a Content-Security-Policy that lets no request leave the page (it opens from disk
offline), the shared styles, tables and figure embedding.

Callers escape every piece of catalog, query or model text with :func:`esc` (text and attributes) before it
reaches :func:`table` or :func:`page`; figure labels are escaped before plotly sees them, and plotly's JSON
escapes ``</`` itself.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1200px;color:#222;
padding:0 16px}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:4px}
.verdict{padding:14px 18px;border-radius:6px;font-size:1.25em;font-weight:600}
.fail{background:#fde2e1;border:1px solid #e6194b}.pass{background:#e3f5e1;border:1px solid #3cb44b}
.summary{padding:12px 16px;border-radius:6px;background:#eef2fb;border:1px solid #4363d8;font-size:1.1em}
table{border-collapse:collapse;margin:8px 0;font-size:.92em}td,th{border:1px solid #ddd;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f4f4f4}.muted{color:#777}.gold{font-weight:700;color:#1a7f37}
.pair{display:flex;gap:24px;flex-wrap:wrap}.query{border:1px solid #ddd;border-radius:6px;padding:8px 12px;
margin:12px 0}code{background:#f4f4f4;padding:0 3px}
"""
# No network: scripts and styles only inline, images and fonts only as data: URLs.
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:; "
       "font-src data:")


def esc(text: object) -> str:
    """``text`` as HTML text, safe inside an element and a quoted attribute."""
    return html.escape(str(text), quote=True)


def table(head: Sequence[str], rows: Sequence[Sequence[str]], *, empty: str = "None.") -> str:
    """An HTML table; ``rows`` hold HTML already escaped by the caller (``head`` is escaped here)."""
    if not rows:
        return f"<p class='muted'>{esc(empty)}</p>"
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def figure(fig: Any) -> str:
    """A plotly figure as a div for :func:`page` (plotly.js comes once, in the page's head)."""
    return fig.to_html(full_html=False, include_plotlyjs=False)


def sections_html(sections: Sequence[tuple[str, str]]) -> str:
    """A numbered table of contents, then each (title, HTML) section under its heading (anchors ``s0``…)."""
    toc = "".join(f"<li><a href='#s{i}'>{esc(t)}</a></li>" for i, (t, _) in enumerate(sections))
    body = "".join(f"<h2 id='s{i}'>{esc(t)}</h2>{s}" for i, (t, s) in enumerate(sections))
    return f"<ol>{toc}</ol>{body}"


def page(title: str, body: str) -> str:
    """The whole document: ``title`` (plain text, escaped here) in the tab, ``body`` (HTML) as given, plotly.js
    inlined (about 4.6 MB)."""
    from plotly.offline import get_plotlyjs

    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
            f"<title>{esc(title)}</title><style>{CSS}</style>"
            f"<script>{get_plotlyjs()}</script></head><body>{body}</body></html>")
