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


def md_escape(text: str, limit: int | None = None) -> str:
    """Escape markdown so the text renders literally (no links, images, headings or HTML)."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return _MD_SPECIAL.sub(r"\\\1", text)
