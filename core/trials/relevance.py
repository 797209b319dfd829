"""Does an answer serve the request? The offline stand-in for the relevance judge of a trial.

GRETEL §4.4 (Table 4) names a call that ran but returned an irrelevant response a semantic mismatch, and
leaves the judging to its LLM. It gives no rule, so the one here is **our definition**: the request's needs
are the content words of the query and the values the planner took from it; an answer serves the request
when it shares at least one of them (an answer that only repeats the numbers it was given shows nothing). Two rules, applied in order:

1. *entities* — no argument comes from the request, the request names specific things
   (:func:`request_entities`: places, people, quoted text), and neither the arguments nor the answer
   mention any of them: the call was about something else;
2. *overlap* — nothing in the answer (its keys and values, less the numbers it was given and echoed back:
   :func:`added_text`) shares a word stem, a unit or a named thing (in any of its spellings, "Japan" as
   ``Asia/Tokyo``) with the request's needs.

Stems are the first :data:`STEM_CHARS` characters of a word (``accelerates`` and ``acceleration`` meet);
a few question words stand for the quantity they ask about (:data:`ASKS_FOR`) and unit names for their
symbols (:data:`UNIT_SYMBOLS`), both our tables.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.search.tokenize import tokenize

STEM_CHARS = 5
# Question words and the quantity an answer names when it answers them (our table, deliberately short).
ASKS_FOR: Mapping[str, tuple[str, ...]] = {
    "fast": ("speed", "velocity"), "quick": ("speed", "velocity"), "far": ("distance",),
    "long": ("duration", "length", "distance", "days", "hours", "minutes"), "old": ("age", "years"),
    "heavy": ("weight", "mass"), "tall": ("height",), "big": ("size",), "cost": ("price", "total", "amount"),
    "costs": ("price", "total", "amount"), "pay": ("payment", "amount", "total"), "owe": ("amount", "total"),
    "save": ("value", "total"), "worth": ("value", "price"), "when": ("date", "time"),
    "calories": ("kcal", "energy"), "burn": ("kcal", "calories"),
}
# Unit names and the symbols an answer writes them with (our table; symbols of one letter are left out).
UNIT_SYMBOLS: Mapping[str, tuple[str, ...]] = {
    "kilometres": ("km",), "kilometers": ("km",), "kilometre": ("km",), "kilometer": ("km",), "miles": ("mi",),
    "mile": ("mi",), "centimetres": ("cm",), "centimeters": ("cm",), "millimetres": ("mm",),
    "millimeters": ("mm",), "kilograms": ("kg",), "kilogram": ("kg",), "kilos": ("kg",), "pounds": ("lb", "lbs"),
    "ounces": ("oz",), "feet": ("ft",), "foot": ("ft",), "inches": ("in",), "litres": ("l",), "liters": ("l",),
    "millilitres": ("ml",), "milliliters": ("ml",), "gallons": ("gal",), "celsius": ("c",), "fahrenheit": ("f",),
    "calories": ("kcal",), "megabytes": ("mb",), "gigabytes": ("gb",), "kilobytes": ("kb",), "terabytes": ("tb",),
    "hours": ("h", "hr"), "minutes": ("min",), "seconds": ("s", "sec"),
}
_SYMBOLS = frozenset(s for names in UNIT_SYMBOLS.values() for s in names if len(s) > 1)
# Words too common in requests and answers alike to show the answer is about the request (our list).
_WEAK = frozenset("""get give tell show find know like make want need also just much many well good best
one two three new get got let does did done going about into than then some any more most very really
today now time value result results unit units input inputs""".split())
_UNIT = re.compile(r"(?<![\w/])[a-zA-Zµ°]{1,4}/[a-zA-Z0-9²³]{1,4}(?![\w/])")


@dataclass(frozen=True)
class Relevance:
    """The judge's verdict on one answer: does it serve the request, why, and what it shares with it."""

    relevant: bool
    reason: str
    shared: tuple[str, ...] = ()


def _plain(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = unicodedata.normalize("NFKD", text)
    return re.sub(r"[\s_]+", " ", "".join(c for c in text if not unicodedata.combining(c))).lower()


_CAPS_RUN = re.compile(r"\b[A-Z][\w'’/-]*(?:\s+[A-Z][\w'’/-]*)*")


def request_entities(query: str) -> list[tuple[str, ...]]:
    """The specific things a request names, each with the other spellings an answer may use: capitalised
    names ("Tokyo", "Miles Davis"), quoted text and IANA zone names, plus a place's IANA zone and a
    language's ISO code. A lone capitalised word that opens a sentence ("Split the bill") is not one, nor
    are question and request words. Our rule, for :func:`judge_answer`."""
    from core.trials import vocab
    from core.trials.query_values import NOT_PLACES

    out: list[tuple[str, ...]] = []
    for m in _CAPS_RUN.finditer(query):
        words = [w.rstrip(".'’,") for w in m.group(0).split()]
        while words and words[0].lower().strip("'’") in NOT_PLACES:
            words = words[1:]
        words = [re.sub(r"['’]s$", "", w) for w in words if w]
        if not words or all(w.lower() in NOT_PLACES for w in words):
            continue
        phrase = " ".join(words)
        opens = re.search(r"(^|[.!?:;—]\s*)$", query[: m.start()]) is not None and words[0] == m.group(0).split()[0]
        zone = vocab.iana_zone(phrase)
        if opens and len(words) == 1 and zone is None and vocab.country_code(phrase) is None:
            continue
        forms = [phrase] + ([zone[0]] if zone else [])
        code = vocab.language_code(phrase)
        if code:
            forms.append(code)
        out.append(tuple(forms))
    out += [(q,) for q in re.findall(r"[\"“]([^\"”]{2,80})[\"”]", query)]
    return list(dict.fromkeys(out))


def _query_text(query: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", _plain(query))  # "60,000" is the number 60000


def grounded(value: Any, query_text: str, query_words: set[str]) -> bool:
    """Does an argument value come from the request: its text, one of its words, or its number?"""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        number = f"{value:g}" if isinstance(value, float) else str(value)
        return number in query_text or str(value) in query_text
    if isinstance(value, list | tuple):
        return any(grounded(v, query_text, query_words) for v in value)
    if isinstance(value, Mapping):
        return any(grounded(v, query_text, query_words) for v in value.values())
    text = _plain(value).strip()
    return bool(text) and (text in query_text or any(w in query_words for w in re.findall(r"[a-z0-9]{3,}", text)))


def _stem(word: str) -> str:
    return word[:STEM_CHARS]


def _words(text: str) -> set[str]:
    return {w for w in tokenize(text) if len(w) >= 3 and not w.isdigit() and w not in _WEAK}


def needs(query: str, arguments: Mapping[str, Any]) -> set[str]:
    """The request's needs as stems: its content words, what its question words ask for (:data:`ASKS_FOR`),
    the units it writes (``m/s``) and their symbols (``kilometres`` → ``km``, :data:`UNIT_SYMBOLS`), and the
    words of the argument values taken from it. Our definition."""
    text = _query_text(query)
    raw = set(re.findall(r"[a-z0-9]{3,}", text))
    words = _words(query)
    out = {_stem(w) for w in words}
    out |= {_stem(a) for w in re.findall(r"[a-z]+", text) for a in ASKS_FOR.get(w, ())}
    out |= {u.lower() for u in _UNIT.findall(query)}
    out |= {sym for w in re.findall(r"[a-z]+", text) for sym in UNIT_SYMBOLS.get(w, ()) if sym in _SYMBOLS}
    for value in arguments.values():
        if isinstance(value, str) and grounded(value, text, raw):
            out |= {_stem(w) for w in _words(value)}
    return out


def _echoed_number(value: Any, arguments: Mapping[str, Any]) -> bool:
    """Is ``value`` a number the call was given (an argument, or an item of a list argument)?"""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return False
    try:
        number = float(value)
    except ValueError:
        return False
    for arg in arguments.values():
        for item in arg if isinstance(arg, list | tuple) else (arg,):
            if isinstance(item, bool) or not isinstance(item, int | float | str):
                continue
            try:
                if float(item) == number:
                    return True
            except ValueError:
                continue
    return False


def added_text(answer: Any, arguments: Mapping[str, Any]) -> list[str]:
    """The pieces of text in an answer that count as what the tool said: keys and values, less the numbers
    it was given and echoed back (``{"minutes": 3}`` for ``minutes=3`` says nothing of the request). A
    named thing echoed back ("Lisbon") stays: the answer is about what the request names."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                out.append(str(k))
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)
        elif value is not None and not isinstance(value, bool) and not _echoed_number(value, arguments):
            out.append(str(value))

    walk(answer)
    return out


def _entity_check(query: str, arguments: Mapping[str, Any], answer: Any) -> str | None:
    text = _query_text(query)
    words = set(re.findall(r"[a-z0-9]{3,}", text))
    if any(grounded(v, text, words) for v in arguments.values()):
        return None
    entities = request_entities(query)
    if not entities:
        return None
    said = _plain(arguments) + " " + _plain(answer)
    if any(_plain(form) in said for forms in entities for form in forms):
        return None
    return f"neither its arguments nor its answer mention {', '.join(forms[0] for forms in entities[:3])}"


def judge_answer(query: str, arguments: Mapping[str, Any], answer: Any) -> Relevance:
    """Our offline relevance judge (see the module docstring): the entity rule, then the overlap rule."""
    arguments = arguments or {}
    missed = _entity_check(query, arguments, answer)
    if missed is not None:
        return Relevance(False, f"the call ran, but {missed}")
    wanted = needs(query, arguments)
    pieces = added_text(answer, arguments)
    if not pieces:
        return Relevance(False, "the call ran, but its answer only repeats the numbers it was given")
    told = " ".join(pieces)
    have = {_stem(w) for w in _words(told)} | {u.lower() for u in _UNIT.findall(told)}
    have |= {w for w in tokenize(told) if w in _SYMBOLS}
    plain = _plain(told)
    named = [forms[0] for forms in request_entities(query) if any(_plain(f) in plain for f in forms)]
    shared = tuple(sorted(wanted & have)) + tuple(named)
    if shared:
        return Relevance(True, f"the answer shares {', '.join(shared[:4])} with the request", shared)
    return Relevance(False, "the call ran, but nothing it added to its answer shares a word with the request")
