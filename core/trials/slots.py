"""Offline argument planning: fill a tool's parameters from the words of a query, no model.

The offline stand-in for GRETEL's Planner (§3.2.1 step 1, Alg. 1 line 1). It takes the typed values
:mod:`core.trials.query_values` reads out of the query (numbers, dates, times, places, codes,
currencies, units, quoted text) and hands them to parameters by reading each schema as a person would:
``enum`` and ``const``, ``format``, ``pattern``, ``examples``, ``default``, ``minimum``/``maximum``, and
what the parameter's name and description say it holds (:func:`core.trials.shapes.slot_shape`: an IANA
zone from a city or country via :mod:`core.trials.vocab`, ISO dates, HH:MM times, ISO 4217 and ISO 639
codes, units). Where each value came from is kept in ``PlanResult.sources`` in a few words. A slot that
asks for a name, code or number never receives a free sentence: a required parameter it cannot fill
properly is a planning failure with a reason, exactly the signal GRETEL uses to demote a tool whose
inputs the query cannot supply. It is a heuristic and says so in the UI; a real planner is the
``plan_call`` role of a chat model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from core.models import Tool
from core.trials import vocab
from core.trials.query_values import (
    BASES,
    CLOCK,
    HEX_LITERAL,
    MONTHS,
    NOT_PLACES,
    Found,
    after_number,
    read_query,
)
from core.trials.shapes import FREE_TEXT, looks_like_sentence, slot_shape, wants_code


@dataclass(frozen=True)
class PlanResult:
    """Arguments for one call, the required parameters left empty, and how each value was found."""

    arguments: Mapping[str, Any]
    missing: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.missing


_SYNONYMS = (
    (r"\b(?:woman|women|girl|she|her)\b", " female "), (r"\b(?:man|men|boy|he|his)\b", " male "),
    (r"\b(?:litres?|liters?|l)\s*(?:per|/)\s*100\s*km\b", " l_per_100km "), (r"\bmiles per gallon\b", " mpg "),
)


def _enum_hits(options: list[Any], query: str) -> list[tuple[int, Any]]:
    """(position, option) for each allowed value the query names, by its words or a common synonym;
    an option like ``mpg_us`` is also named by its head word (``mpg``)."""
    lowered = query.lower()
    for pattern, replacement in _SYNONYMS:
        lowered = re.sub(pattern, replacement, lowered)
    hits: dict[Any, int] = {}
    for option in options:
        text = str(option).lower()
        for form in (text, text.replace("_", " "), text.split("_")[0] if "_" in text else None):
            m = re.search(rf"(?<!\w){re.escape(form)}(?!\w)", lowered) if form and len(form) > 1 else None
            if m:
                hits.setdefault(option, m.start())
                break
    # two options sharing a head word (mpg_us / mpg_uk) named once: keep the first listed
    by_pos: dict[int, Any] = {}
    for option, pos in hits.items():
        by_pos.setdefault(pos, option)
    return sorted(by_pos.items(), key=lambda item: item[0])


def _enum_value(options: list[Any], found: Found, query: str, direction: int = -1) -> Any:
    hits = _enum_hits(options, query)
    if not hits:
        return None
    if direction >= 0 and len(hits) > 1:
        ordered = after_number([(p, o) for p, o in hits], list(found.numbers), query)
        return ordered[min(direction, len(ordered) - 1)]
    return hits[0][1]


def _direction(name: str) -> int:
    """0 for a 'from/source/origin/old/start' slot, 1 for 'to/target/destination/new/end', else -1."""
    n = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    if re.match(r"(from|source|src|origin)(_|$)", n):
        return 0
    if re.match(r"(to|target|dest|destination)(_|$)", n):
        return 1
    if re.search(r"(^|_)(from|source|src|origin|old|start|initial|base|departure|pickup|first|min|low)(_|$)|^from", n):
        return 0
    if re.search(r"(^|_)(to|target|dest|destination|new|end|final|quote|return|arrival|second|max|high)(_|$)|^to", n):
        return 1
    return -1


class _Pools:
    """Found values handed out one at a time so two slots never get the same value."""

    def __init__(self, found: Found) -> None:
        self.found = found
        self.used: dict[str, set[int]] = {}

    def take(self, pool: str, items: tuple[Any, ...], index: int = -1) -> Any:
        used = self.used.setdefault(pool, set())
        if 0 <= index < len(items) and index not in used:
            used.add(index)
            return items[index]
        for i, item in enumerate(items):
            if i not in used:
                used.add(i)
                return item
        return None


def _coerce(value: Any, spec: Mapping[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "integer" and isinstance(value, float):
        return int(value) if value.is_integer() else None
    if kind == "string" and isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    if kind in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return None
        return int(number) if kind == "integer" and number.is_integer() else number
    return value


# -- filling one parameter ------------------------------------------------------------------------------

_DETERMINER = re.compile(r"^(?:a|an|the|some|my|our|your|his|her|their|this|that|these|those|any|me|us)\s+", re.I)
_TAIL_PREPS = frozenset("of for with about on in at into like to from by near".split())
_TIME_WORDS = re.compile(r"\s+(?:today|tonight|tomorrow|yesterday|now|right now|please|again|instead|"
                         r"this (?:week|month|year|weekend|morning|afternoon|evening|summer|winter))$", re.I)
_LEAD_VERBS = re.compile(r"^(?:define|explain|translate|play|find|show|search|get|give|check|track|convert|look up|"
                         r"spell|pronounce|list|recommend|suggest|does|do|is|are|the word)\s+", re.I)
_PHRASE_STOP = frozenset("it is are be was this that there here something anything one me you mean means go going "
                         "get do does thing things stuff question questions".split())
_PLACE_PREPS = frozenset({"in", "near", "at", "from", "around"})
_PERSON_PREPS = frozenset({"to", "with", "for", "cc", "named", "called", "invite", "message", "call", "text",
                           "email", "tell", "ask", "remind", ""})
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://[^\s,;\"'<>]+|\bwww\.[\w-]+(?:\.[\w-]+)+(?:/[^\s,;\"'<>]*)?", re.I)
_HOST = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|co|uk|de|fr|nl|pt|es|it|eu|gov|edu|info|ai|"
                   r"[a-z]{2})\b", re.I)
_IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\b", re.I)
_PHONE = re.compile(r"(?<![\w.])\+?\d[\d\s().-]{6,}\d(?![\w.])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b")
_LOCAL_ZONE = re.compile(r"use\s+['\"]([^'\"]+)['\"]\s+as\s+(?:the\s+)?(?:local|default)", re.I)


_OBJECT_CUE = re.compile(r"\b(?:instead of|substitute for|substitutes for|replacement for|replace|in place of)\s+(.+)",
                         re.I)
_BACKGROUND = re.compile(r"^(?:i|i'm|i’m|i am|i've|i have|i'd|we|we're|we are|my|our|it's|it is|there's|just|so|"
                         r"well|ok|okay|hi|hello|hey)\b", re.I)


def _clean_phrase(words: list[str]) -> str | None:
    phrase = " ".join(words).strip(" ,.;:!?'\"")
    for _ in range(3):
        phrase = _DETERMINER.sub("", _TIME_WORDS.sub("", phrase)).strip(" ,.;:!?'\"")
    if not phrase or re.search(r"\d", phrase) or looks_like_sentence(phrase) or len(phrase.split()) > 4:
        return None
    if all(w.lower().strip("'’") in _PHRASE_STOP | NOT_PLACES for w in phrase.split()):
        return None
    return phrase


def tail_phrase(content: str) -> str | None:
    """The short noun phrase a request is about, by our rule: what follows "instead of" and its kin ("use
    instead of *buttermilk* in pancakes"); else, in the first clause that is not background ("I'm …") and
    has one, the words after its last preposition ("calories in 150 grams of *salmon*", "wine goes with
    *mushroom risotto*"), or a clause of at most three words once a leading verb is dropped ("define
    *serendipity*"). None when the phrase would hold a number, more than four words or a question."""
    m = _OBJECT_CUE.search(content)
    if m:
        phrase = _clean_phrase(re.split(r"\s+(?:in|on|for|with|at|to|from|when|if)\s+|[,;:?!—–]", m.group(1))[0].split())
        if phrase:
            return phrase
    clauses = [c for c in re.split(r"\s*[,;:—–]\s*|\s+-\s+|\s+and\s+(?=\w+\s)", content) if c.strip()]
    # the request sits after its background ("I'm trying to eat healthier — what can I use instead of …")
    asked = [c for c in clauses if not _BACKGROUND.match(c)] or clauses
    for clause in asked:  # first the words after a preposition, in any clause
        words = clause.split()
        last = max((i for i, w in enumerate(words) if w.lower() in _TAIL_PREPS), default=-1)
        phrase = _clean_phrase(words[last + 1:]) if 0 <= last < len(words) - 1 else None
        if phrase:
            return phrase
    for clause in asked:  # then a clause that is only a short phrase
        rest = clause
        for _ in range(2):
            rest = _LEAD_VERBS.sub("", rest)
        phrase = _clean_phrase(rest.split()) if len(rest.split()) <= 3 else None
        if phrase:
            return phrase
    return None


def _list_phrase(content: str) -> list[str]:
    """Items of a list the request names ("with eggs, spinach and feta" → three), each a short phrase."""
    for clause in re.split(r"\s*[;:—–]\s*", content):
        words = clause.split()
        last = max((i for i, w in enumerate(words) if w.lower() in _TAIL_PREPS), default=-1)
        tail = " ".join(words[last + 1:]) if last >= 0 else clause
        parts = [p for p in (re.sub(r"^(?:and|or)\s+", "", x.strip()) for x in re.split(r",|\band\b|\bor\b", tail))
                 if p]
        cleaned = [_clean_phrase(p.split()) for p in parts]
        if cleaned and all(cleaned):
            return [c for c in cleaned if c]
    return []


def _next_unused(pools: _Pools, kind: str, items: list[Any]) -> Any:
    """The first of ``items`` no earlier slot of this plan took (so "from French to German" fills two slots
    with two languages), or None."""
    used = pools.used.setdefault(kind, set())
    pick = next((i for i in range(len(items)) if i not in used), None)
    if pick is None:
        return None
    used.add(pick)
    return items[pick]


def _place(found: Found, pools: _Pools, direction: int) -> tuple[Any, str]:
    want = {0: ("from",), 1: ("to", "into", "for")}.get(direction, ("in", "at", "for", "near", "of", "to", "from"))
    if not found.places and found.codes:
        value = pools.take("codes", found.codes, direction if direction >= 0 else -1)
        if value:
            return value, "three-letter code in request"
    for i, (place, prep) in enumerate(found.places):
        if prep in want and i not in pools.used.get("places", set()):
            pools.used.setdefault("places", set()).add(i)
            return place, f"place after '{prep}'"
    item = pools.take("places", found.places)
    return (item[0], "place name in request") if item else (None, "no place named")


def _zone(spec: Mapping[str, Any], pools: _Pools, query: str, found: Found, direction: int) -> tuple[Any, str]:
    zones = vocab.zones_in(query)
    used = pools.used.setdefault("zones", set())
    # the zone a clock time is stated in ("16:30 in Berlin", "4:30pm Paris time") is the one converted from
    tied = [i for i, z in enumerate(zones) if _states_time(query, z[0])]
    sent = [i for i, z in enumerate(zones) if z[3] in ("to", "into", "for")]
    if direction == 0:
        order = tied + [i for i, z in enumerate(zones) if z[3] == "from"]
    elif direction == 1:
        order = sent + [i for i in range(len(zones)) if i not in tied]
    else:
        order = []
    order += list(range(len(zones)))
    for i in order:
        if i in used:
            continue
        used.add(i)
        _, zone, words, _ = zones[i]
        if words == zone:
            return zone, "IANA zone named in request"
        how = vocab.iana_zone(words)
        return zone, (f"main zone of {words}" if how and how[1] == "country" else f"IANA zone for '{words}'")
    if not found.places and not zones:
        m = _LOCAL_ZONE.search(str(spec.get("description", "")))
        if m and vocab.iana_zone(m.group(1)):
            return m.group(1), "local zone the description names"
    if zones:
        return None, "no further time zone named"
    if found.places:
        place = found.places[0][0]
        if vocab.country_code(place):
            return None, f"{place} spans several time zones"
        return None, f"no IANA zone for '{place}'"
    return None, "no time zone named"


def _states_time(query: str, start: int) -> bool:
    """Is a clock time given in this zone: right before it ("16:30 in Berlin", "4:30pm Paris time")?"""
    before = query[:start]
    clocks = list(CLOCK.finditer(before))
    return bool(clocks) and re.fullmatch(r"\s*(?:in|at)?\s*", before[clocks[-1].end():], re.I) is not None


def _month(query: str, found: Found, today: date) -> tuple[Any, str]:
    lowered = query.lower()
    if re.search(r"\bthis month\b", lowered):
        return f"{today:%Y-%m}", "this month"
    if re.search(r"\b(?:last|previous) month\b", lowered):
        first = today.replace(day=1)
        prev = date(first.year - (first.month == 1), (first.month - 2) % 12 + 1, 1)
        return f"{prev:%Y-%m}", "last month"
    for name, number in MONTHS.items():
        if len(name) > 3 and re.search(rf"\b{name}\b", lowered):
            return f"{today.year}-{number:02d}", f"month '{name.capitalize()}'"
    return None, "no month named"


def _number(name: str, spec: Mapping[str, Any], found: Found, pools: _Pools) -> tuple[Any, str]:
    """The next unused number in the request that the schema's bounds allow."""
    low = spec.get("minimum", spec.get("exclusiveMinimum"))
    high = spec.get("maximum", spec.get("exclusiveMaximum"))
    integer = spec.get("type") == "integer"

    def fits(value: float) -> bool:
        if integer and not float(value).is_integer():
            return False
        if isinstance(low, int | float) and (value < low or ("exclusiveMinimum" in spec and value == low)):
            return False
        return not (isinstance(high, int | float) and (value > high or ("exclusiveMaximum" in spec and value == high)))

    used = pools.used.setdefault("numbers", set())
    picks = [(i, "number in request") for i in range(len(found.numbers))]
    if re.search(r"rate|percent|interest", name.lower()):
        picks = [(i, "percentage in request") for i, n in enumerate(found.numbers) if n[1] == "%"] + picks
    if re.search(r"year", name.lower()):
        picks = [(i, "year in request") for i, n in enumerate(found.numbers) if 1900 <= n[0] <= 2100] + picks
    for i, how in picks:
        if i not in used and fits(found.numbers[i][0]):
            used.add(i)
            return found.numbers[i][0], how
    if found.numbers and (low is not None or high is not None):
        return None, f"no number in range {low if low is not None else '…'}–{high if high is not None else '…'}"
    return None, "no number in request"


def _array(name: str, spec: Mapping[str, Any], found: Found, query: str, tool: Tool) -> tuple[Any, str]:
    items = spec.get("items") if isinstance(spec.get("items"), Mapping) else {}
    if isinstance(items.get("enum"), list) and items["enum"]:
        hits = [o for _, o in _enum_hits(items["enum"], query)]
        return (hits, "enum values named in request") if hits else (None, "no allowed value named")
    singular = re.sub(r"s$", "", name)
    if items.get("type") in ("number", "integer") or re.fullmatch(r"numbers|values|data|x|y|scores|amounts", name):
        values = [n[0] for n in found.numbers]
        if items.get("type") == "string":
            values = [str(int(v)) if float(v).is_integer() else str(v) for v in values]
        return (values, "numbers in request") if values else (None, "no numbers in request")
    shape = slot_shape(singular, {**items, "description": spec.get("description", "")}, tool.name)
    if shape == "email" or re.search(r"e-?mail", f"{name} {spec.get('description', '')}", re.I):
        emails = _EMAIL.findall(query)
        return (emails, "e-mail addresses in request") if emails else (None, "no e-mail address in request")
    if shape == "id":
        return (list(found.ids), "identifiers in request") if found.ids else (None, "no identifier in request")
    parts = _list_phrase(found.content)
    if shape == "person":
        parts = [p for p in parts if p[:1].isupper()]
    return (parts, "items listed in request") if parts else (None, "no list of names in request")


def _string(name: str, spec: Mapping[str, Any], shape: str, found: Found, pools: _Pools, query: str,
            today: date) -> tuple[Any, str]:
    direction = _direction(name)
    if shape == "timezone":
        return _zone(spec, pools, query, found, direction)
    if shape == "currency":
        value = pools.take("currencies", found.currencies, direction if direction >= 0 else -1)
        return (value, "currency named in request") if value else (None, "no currency named")
    if shape == "unit":
        value = pools.take("units", found.units, direction if direction >= 0 else -1)
        return (value, "unit named in request") if value else (None, "no unit named")
    if shape == "date":
        value = pools.take("dates", found.dates, direction if direction >= 0 else -1)
        return (value, "date in request") if value else (None, "no date in request")
    if shape in ("time", "datetime"):
        time = pools.take("times", found.times)
        if shape == "time":
            return (time, "time in request") if time else (None, "no time in request")
        # a date may serve several slots (the day of a booking and its start time); a time may not
        day = pools.take("dates", found.dates, direction if direction >= 0 else -1) or \
            (found.dates[-1] if found.dates else None)
        if time and day:
            return f"{day}T{time}:00", "date and time in request"
        if time:
            return f"{today.isoformat()}T{time}:00", "time in request, today"
        return None, "no time of day in request"
    if shape == "month":
        return _month(query, found, today)
    if shape in ("language", "country"):
        named = _next_unused(pools, shape, vocab.languages_in(query) if shape == "language" else vocab.countries_in(query))
        if named is None:
            return None, f"no {shape} named"
        _, words, code = named
        standard = "ISO 639-1" if shape == "language" else "ISO 3166"
        return (code, f"{standard} code of {words}") if wants_code(spec, name) else (words, f"{shape} named in request")
    if shape == "email":
        m = _EMAIL.search(query)
        return (m.group(0), "e-mail in request") if m else (None, "no e-mail address")
    if shape == "url":
        m = _URL.search(query)
        return (m.group(0).rstrip(".,)"), "URL in request") if m else (None, "no URL in request")
    if shape == "hostname":
        m = _URL.search(query) or _HOST.search(query)
        host = re.sub(r"^https?://|/.*$", "", m.group(0)) if m else None
        return (host, "domain in request") if host else (None, "no domain in request")
    if shape == "ip":
        m = _IP.search(query)
        return (m.group(0), "IP address in request") if m else (None, "no IP address in request")
    if shape == "phone":
        m = _PHONE.search(query)
        return (re.sub(r"[\s().-]", "", m.group(0)), "phone number in request") if m else (None, "no phone number")
    if shape == "iban":
        m = _IBAN.search(query)
        return (m.group(0).replace(" ", ""), "IBAN in request") if m else (None, "no IBAN in request")
    if shape == "code":
        value = pools.take("codes", found.codes, direction if direction >= 0 else -1)
        return (value, "three-letter code in request") if value else (None, "no code in request")
    if shape == "id":
        value = pools.take("ids", found.ids)
        return (value, "identifier in request") if value else (None, "the request gives no identifier")
    if shape == "ticker":
        m = re.search(r"([A-Za-z][\w.-]*?)(?:'s|’s)?\s+(?:stock|shares?|price|worth|quote)\b", query)
        named = m.group(1) if m and m.group(1).lower() not in NOT_PLACES else None
        value = found.codes[0] if found.codes else named or (found.places[0][0] if found.places else None)
        return (value, "company or symbol in request") if value else (None, "no company or symbol named")
    if shape == "nationality":
        m = re.search(r"\b([A-Z][a-z]+)\s+(?:citizens?|passports?|nationals?)\b", query)
        return (m.group(1), "nationality named") if m else (None, "no nationality named")
    if shape == "place":
        return _place(found, pools, direction)
    if shape == "person":
        m = re.search(r"\b(?:name|named|called)\s+(?:of\s+)?(?:is\s+)?([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)", query)
        if m:
            return m.group(1), "name given in request"
        for i, (who, prep) in enumerate(found.places):
            if prep in _PERSON_PREPS and i not in pools.used.get("places", set()):
                pools.used.setdefault("places", set()).add(i)
                return who, f"name after '{prep}'" if prep else "name in request"
        return None, "no name given"
    if shape == "expression":
        return (found.expression, "formula in request") if found.expression else (None, "no formula in request")
    if shape == FREE_TEXT:
        if found.quoted:
            return found.quoted[0], "quoted text"
        return found.content, "request text"
    # "name": a short name or phrase, never the request itself
    short = [q for q in found.quoted if not looks_like_sentence(q)]
    if short:
        return short[0], "quoted text"
    if typ_is_plain_number(name, query):
        return typ_is_plain_number(name, query), "number written in request"
    for i, (phrase, prep) in enumerate(found.places):
        if prep not in _PLACE_PREPS and i not in pools.used.get("places", set()):
            pools.used.setdefault("places", set()).add(i)
            return phrase, "name in request"
    phrase = tail_phrase(found.content)
    if phrase:
        return phrase, f"phrase '{phrase}' in request"
    return None, "no name or short phrase in request"


def typ_is_plain_number(name: str, query: str) -> str | None:
    """A number written as text ("0x1F", "MCMXC", "255") for a string slot named like a number."""
    if not re.fullmatch(r"number|value|numeral|roman", name.lower()):
        return None
    for token in query.replace("?", " ").split():
        if HEX_LITERAL.fullmatch(token) or re.fullmatch(r"[MDCLXVI]{2,}", token) or re.fullmatch(r"\d+", token):
            return token
    return None


def _pattern_ok(value: Any, spec: Mapping[str, Any]) -> bool:
    """JSON Schema ``pattern`` (a search, as the standard says), ``minLength`` and ``maxLength``."""
    if not isinstance(value, str):
        return True
    if isinstance(spec.get("minLength"), int) and len(value) < spec["minLength"]:
        return False
    if isinstance(spec.get("maxLength"), int) and len(value) > spec["maxLength"]:
        return False
    pattern = spec.get("pattern")
    if not isinstance(pattern, str):
        return True
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True  # a pattern Python cannot read (ECMA-only syntax) is not held against the value


def _pattern_candidates(found: Found, query: str) -> list[str]:
    """Every short piece of the request a pattern might accept, in the order they appear."""
    tokens = [t.strip(".,;:!?()\"'“”") for t in query.split()]
    pieces = list(found.quoted) + list(found.dates) + list(found.times) + list(found.codes) + list(found.ids)
    pieces += [p for p, _ in found.places] + [t for t in tokens if t]
    return list(dict.fromkeys(pieces))


def _fill(name: str, spec: Mapping[str, Any], found: Found, pools: _Pools, query: str, tool: Tool,
          today: date) -> tuple[Any, str]:
    """A value for one required parameter and where it came from, or (None, why not). Reads the schema as a
    person would: ``enum`` and ``const`` first, then the type, ``format``, name, description and examples
    (:func:`core.trials.shapes.slot_shape`), bounds and ``pattern``; ``default`` when the request is silent.
    A slot that asks for a name, code or number never receives a free sentence."""
    typ = spec.get("type")
    if "const" in spec:
        return spec["const"], "fixed by the schema"
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        value = _enum_value(spec["enum"], found, query, _direction(name))
        if value is not None:
            return value, f"enum match '{value}'"
        if len(spec["enum"]) == 1:
            return spec["enum"][0], "only allowed value"
        return _default(spec, "no allowed value named")
    if typ == "array":
        value, how = _array(name, spec, found, query, tool)
        return (value, how) if value else _default(spec, how)
    if typ == "boolean":
        return _default(spec, "no yes/no given")
    if typ in ("number", "integer"):
        if slot_shape(name, spec) == "unit" and typ == "integer":
            return _base(name, found, query)
        value, how = _number(name, spec, found, pools)
        return (value, how) if value is not None else _default(spec, how)
    shape = slot_shape(name, spec, tool.name)
    value, how = _string(name, spec, shape, found, pools, query, today)
    if isinstance(value, str) and shape != FREE_TEXT and looks_like_sentence(value):
        value, how = None, "only a sentence, not a name"
    if value is not None and not _pattern_ok(value, spec) or value is None and isinstance(spec.get("pattern"), str):
        fits = [c for c in _pattern_candidates(found, query) if _pattern_ok(c, spec) and not looks_like_sentence(c)]
        if fits:
            return fits[0], f"matches pattern {spec['pattern']}" if spec.get("pattern") else "fits length limits"
        if value is not None:
            value, how = None, f"'{value}' does not match {spec.get('pattern') or 'the length limits'}"
    return (value, how) if value is not None else _default(spec, how)


def _base(name: str, found: Found, query: str) -> tuple[Any, str]:
    direction = _direction(name)
    bases = [BASES[u] for u in found.units if u in BASES]
    if direction == 0 and re.search(r"\b0x", query, re.IGNORECASE):
        return 16, "0x prefix of the number"
    value = bases[min(direction, len(bases) - 1)] if bases and direction >= 0 else None
    if direction == 0 and len(bases) < 2:
        value = 10
    return (value, "number base named in request") if value else (None, "no number base named")


def _default(spec: Mapping[str, Any], why: str) -> tuple[Any, str]:
    """The schema's ``default`` when the request gives nothing: what a person leaves as the form offers."""
    if "default" in spec and spec["default"] is not None:
        return spec["default"], "schema default"
    return None, why

def focus(query: str, tool: Tool) -> str:
    """The part of a many-request query that concerns ``tool``: the intent (Re-Invoke §3.2 split, by
    rule) sharing the most words with the tool's name and description; the whole query when it holds
    one request or none matches. Values from the other requests would otherwise fill this tool's slots."""
    from core.llm.heuristics import split_intents, terms

    intents = split_intents(query)
    if len(intents) < 2:
        return query
    words = set(terms(f"{re.sub(r'[._]', ' ', tool.name)} {tool.description}"))
    scored = [(len(words & set(terms(intent))), -i) for i, intent in enumerate(intents)]
    best, neg_index = max(scored)
    return intents[-neg_index] if best > 0 else query


def plan_arguments(query: str, tool: Tool, *, today: date) -> PlanResult:
    """GRETEL Alg. 1 line 1 (PLAN), offline: arguments for ``tool`` read from ``query``.

    Required parameters must all be filled or the plan fails (listing them). Optional ones are filled
    only when the query names one of their allowed values, so a plan never invents optional settings.
    """
    focused = focus(query, tool)
    plan = _plan(focused, tool, today)
    if plan.missing and focused != query:
        # the split can strand values in a neighbouring clause ("from 0 to 12 m/s, what's its acceleration")
        whole = _plan(query, tool, today)
        if len(whole.missing) < len(plan.missing):
            return whole
    return plan


def _plan(query: str, tool: Tool, today: date) -> PlanResult:
    schema = tool.parameters if isinstance(tool.parameters, Mapping) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    required = [r for r in tool.required if r in props] + [r for r in tool.required if r not in props]
    found = read_query(query, today=today)
    pools = _Pools(found)
    arguments: dict[str, Any] = {}
    sources: dict[str, str] = {}
    missing: list[str] = []
    for name in required:
        spec = props.get(name) if isinstance(props.get(name), Mapping) else {}
        value, how = _fill(name, spec, found, pools, query, tool, today)
        value = _coerce(value, spec) if value is not None else None
        if value is None or value == "":
            missing.append(name)
            sources[name] = how
        else:
            arguments[name] = value
            sources[name] = how
    for name, spec in props.items():
        if name in arguments or name in required or not isinstance(spec, Mapping):
            continue
        if isinstance(spec.get("enum"), list):
            value = _enum_value(spec["enum"], found, query)
            if value is not None:
                arguments[name] = value
                sources[name] = f"enum match '{value}'"
    return PlanResult(arguments, tuple(missing), sources)
