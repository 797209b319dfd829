"""Safe display of untrusted catalog text.

Tool names and descriptions come from files anyone can write; they are shown as
literal text (markdown syntax escaped), never as HTML. Every ASCII punctuation character that
Streamlit's markdown gives a meaning to is backslash-escaped: links and images (``[]()!``), raw
HTML (``<>``) and entities (``&``), ``:color[…]`` directives and ``:emoji:`` shortcodes (``:``),
``$`` math, emphasis, headings (``#`` and setext ``=``/``-`` underlines), lists, tables, autolinks.
"""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=@^])")
# GitHub-flavoured markdown turns bare URLs, www. names and e-mail addresses into links even when their
# punctuation is escaped; a zero-width space breaks each pattern without changing what a reader sees.
_ZWSP = "\u200b"
_BARE_WWW = re.compile(r"(?i)\b(www)(?=\\\.)")


def md_escape(text: str, limit: int | None = None) -> str:
    """Escape markdown so the text renders literally (no links, images, headings or HTML)."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    escaped = escaped.replace("\\://", "\\:" + _ZWSP + "//").replace("\\@", _ZWSP + "\\@")
    return _BARE_WWW.sub(r"\1" + _ZWSP, escaped)


_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]*)\)")
_MD_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]*)\)")
# underscore emphasis only around several words: ``__init__`` and ``_id_`` are names, not emphasis
_MD_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)__(?=\S)([^_\n]* [^_\n]*?)(?<=\S)__(?!\w)")
_MD_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]* [^_\n]*?)(?<=\S)_(?![\w_])")
_MD_CODE = re.compile(r"`([^`\n]+)`")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?=\S)", re.MULTILINE)
# formatting tags that API docs use for layout; any other tag (script, svg, iframe…) stays visible as written
_LAYOUT_TAG = re.compile(r"</?(?:b|strong|i|em|u|p|br|code|pre|ul|ol|li|span|div|sup|sub|small)\s*/?>", re.IGNORECASE)


def plain_text(text: str) -> str:
    """A description written in markdown or light HTML (OpenAPI specs often are) as a reader of the docs would
    read it: ``**not**`` → ``not``, `` `page` `` → ``page``, ``<b>x</b>`` → ``x``, a heading's ``#`` dropped.
    Nothing is hidden: a link keeps its target in brackets (``[docs](https://x)`` → ``docs (https://x)``),
    and tags other than plain layout ones (``<script>``, ``<svg …>``, ``<iframe …>``) and entities stay as
    written. The result is still untrusted: pass it through :func:`md_escape` before any markdown element.
    snake_case words keep their underscores. (Our own display rule; no paper covers it.)"""
    text = str(text)
    text = _MD_IMAGE.sub(lambda m: f"{m.group(1) or 'image'} ({m.group(2)})", text)
    text = _MD_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), text)
    text = _MD_STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = _MD_EM.sub(lambda m: m.group(1) or m.group(2), text)
    text = _MD_CODE.sub(r"\1", text)
    text = _MD_HEADING.sub("", text)
    return _LAYOUT_TAG.sub("", text)
