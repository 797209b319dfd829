"""Tokenisation for BM25 that understands identifiers.

Tool names are written ``get_weather``, ``getWeather`` or ``weather.get``; splitting
them into words lets a query for "weather" match all three.
"""

from __future__ import annotations

import re

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[a-z0-9]+")

STOPWORDS = frozenset(
    """a an and are as at be but by can could do does for from has have how i if in into is it its
    me my of on or our please should so some than that the their them then there these this those
    to us was we were what when where which who will with would you your i'm i'd want need""".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens with identifiers split and English stop words removed."""
    spaced = _CAMEL.sub(" ", text)
    return [w for w in _WORD.findall(spaced.lower()) if w not in STOPWORDS]
