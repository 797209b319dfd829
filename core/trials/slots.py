"""Offline argument planning: fill a tool's parameters from the words of a query, no model.

The offline stand-in for GRETEL's Planner (§3.2.1 step 1, Alg. 1 line 1). It reads typed values out of
the query (numbers, dates, times, places, codes, currencies, units, quoted text) and hands them to
parameters by schema type, enum, and what the parameter's name and description say it holds. A required
parameter it cannot fill is a planning failure with a reason: exactly the signal GRETEL uses to demote a
tool whose inputs the query cannot supply. It is a heuristic and says so in the UI; a real planner is the
``plan_call`` role of a chat model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from core.models import Tool

_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WEEKDAYS = {d: i for i, d in enumerate("monday tuesday wednesday thursday friday saturday sunday".split())}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_NUMBER = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(k\b|m\b|%)?", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_RANGE = re.compile(rf"\b(\d{{1,2}})\s*(?:to|-|–|until)\s*(\d{{1,2}})\s+({_MONTH_RE})\b", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b", re.IGNORECASE)
_CODE = re.compile(r"\b[A-Z]{3}\b")
_ALNUM_ID = re.compile(r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{4,}\b|\b\d{4,}\b")
# number-with-suffix tokens ("8pm", "12th", "5km") look like ids but are quantities
_NOT_ID = re.compile(r"\d+(?:am|pm|st|nd|rd|th|s|k|m|km|kg|cm|mm|g|mg|ml|l|h|min|mph|kph|mpg|x)", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“']([^\"”']{2,200})[\"”']")
_CAPS = re.compile(r"\b([A-Z][\w'’-]*(?:\s+(?:de|da|do|del|la|le|von|van|of)?\s*[A-Z][\w'’-]*)*)")
_MATH_TOKEN = re.compile(r"^[(\[]*(?:[\d.,]+%?|[a-z]|\d*[a-z](?:\^\d+)?|[\d.]*[a-z]?\^[\w.]+|sin|cos|tan|log|ln|exp|sqrt|"
                         r"(?:sin|cos|tan|log|ln|exp|sqrt)\(.*\)|[\w.]*[+\-*/^=²³√][\w.()]*|[+\-*/^=])[)\]]*[?.!,]?$")

_NOT_PLACES = frozenset(
    "i i'm i’m im my me we our you your please what what's what’s which who when where why how is are was "
    "can could would will should do does did find show get give tell make set book log add remind send "
    "convert calculate the a an if it it's this that there these those any and or but for from to in on at "
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday".split()
    + list(_MONTHS)
)
_CURRENCIES = {
    "usd": "USD", "dollar": "USD", "dollars": "USD", "$": "USD", "eur": "EUR", "euro": "EUR", "euros": "EUR",
    "€": "EUR", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "sterling": "GBP", "£": "GBP", "jpy": "JPY",
    "yen": "JPY", "¥": "JPY", "chf": "CHF", "franc": "CHF", "francs": "CHF", "cad": "CAD", "aud": "AUD",
    "inr": "INR", "rupee": "INR", "rupees": "INR", "cny": "CNY", "yuan": "CNY", "sek": "SEK", "krona": "SEK",
    "nok": "NOK", "dkk": "DKK", "mxn": "MXN", "peso": "MXN", "pesos": "MXN", "brl": "BRL", "real": "BRL",
}
# Unit words, longest first so "litres per 100 km" wins over "km".
_UNITS = sorted((
    "litres per 100 km", "liters per 100 km", "l/100km", "l/100 km", "mpg", "km/h", "kph", "mph", "m/s",
    "kilometres", "kilometers", "kilometre", "kilometer", "km", "metres", "meters", "metre", "meter", "m",
    "centimetres", "centimeters", "cm", "millimetres", "millimeters", "mm", "miles", "mile", "mi", "yards",
    "yard", "yd", "feet", "foot", "ft", "inches", "inch", "nautical miles", "kilograms", "kilogram",
    "kg", "grams", "gram", "g", "milligrams", "mg", "pounds", "pound", "lbs", "lb", "ounces", "ounce", "oz",
    "stone", "tonnes", "tons", "litres", "liters", "litre", "liter", "l", "millilitres", "milliliters", "ml",
    "gallons", "gallon", "gal", "pints", "pint", "quarts", "cups", "cup", "tablespoons", "tablespoon", "tbsp",
    "teaspoons", "teaspoon", "tsp", "fluid ounces", "fl oz", "celsius", "centigrade", "fahrenheit", "kelvin",
    "°c", "°f", "bytes", "kilobytes", "kb", "megabytes", "mb", "gigabytes", "gb", "terabytes", "tb", "bits",
    "psi", "bar", "pascal", "pa", "kpa", "atm", "hpa", "joules", "joule", "j", "kilojoules", "kj", "calories",
    "kcal", "kwh", "kilowatt hours", "degrees", "degree", "radians", "radian", "binary", "decimal", "hex",
    "hexadecimal", "octal", "seconds", "minutes", "hours", "days", "weeks", "months", "years", "us", "uk", "eu",
), key=len, reverse=True)
_UNIT_RE = re.compile(r"(?<![\w°'’])(" + "|".join(re.escape(u) for u in _UNITS) + r")(?![\w/])", re.IGNORECASE)
_HEX = re.compile(r"\b0x[0-9a-f]+\b|\b0b[01]+\b", re.IGNORECASE)
_BASES = {"binary": 2, "octal": 8, "decimal": 10, "hex": 16, "hexadecimal": 16}
_REQUEST_CUES = re.compile(
    r"^(?:(?:please|hey|hi|ok|so|now|and|also|could you|can you|would you|will you|i need|i want|i'd like|"
    r"i would like|let me know|tell me|show me|give me|find me|find|search for|search|look up|get me|get|"
    r"what's|what is|what are|what|which|how do i|how much|how many|how)\s+)+", re.IGNORECASE)
_STOP_TAIL = re.compile(r"[?.!]+$")


@dataclass(frozen=True)
class Found:
    """Values read out of a query, each list in the order they appear."""

    numbers: tuple[tuple[float, str, int], ...]  # (value, suffix, position)
    dates: tuple[str, ...]
    times: tuple[str, ...]
    places: tuple[tuple[str, str], ...]  # (place, preposition before it or "")
    codes: tuple[str, ...]
    ids: tuple[str, ...]
    currencies: tuple[str, ...]
    units: tuple[str, ...]
    quoted: tuple[str, ...]
    content: str
    expression: str
    words: frozenset[str]


@dataclass(frozen=True)
class PlanResult:
    """Arguments for one call, the required parameters left empty, and how each value was found."""

    arguments: Mapping[str, Any]
    missing: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.missing


def _number(text: str, suffix: str) -> float:
    value = float(text.replace(",", ""))
    if suffix.lower() == "k":
        value *= 1_000
    elif suffix.lower() == "m":
        value *= 1_000_000
    return value


def _dates(query: str, today: date) -> list[tuple[int, str]]:
    """(position, ISO date) pairs for absolute and relative dates."""
    out: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(pos: int, end: int, d: date) -> None:
        if any(a <= pos < b for a, b in taken):
            return
        taken.append((pos, end))
        out.append((pos, d.isoformat()))

    def build(day: int, month: int, year: str | None) -> date | None:
        try:
            d = date(int(year) if year else today.year, month, day)
        except ValueError:
            return None
        return d

    for m in _RANGE.finditer(query):
        month = _MONTHS[m.group(3).lower()]
        first, second = build(int(m.group(1)), month, None), build(int(m.group(2)), month, None)
        if first and second:
            out.extend([(m.start(1), first.isoformat()), (m.start(2), second.isoformat())])
            taken.append((m.start(), m.end()))
    for m in _ISO.finditer(query):
        try:
            add(m.start(), m.end(), date(int(m.group(1)), int(m.group(2)), int(m.group(3))))
        except ValueError:
            continue
    for m in _DMY.finditer(query):
        d = build(int(m.group(1)), _MONTHS[m.group(2).lower()], m.group(3))
        if d:
            add(m.start(), m.end(), d)
    for m in _MDY.finditer(query):
        d = build(int(m.group(2)), _MONTHS[m.group(1).lower()], m.group(3))
        if d:
            add(m.start(), m.end(), d)
    lowered = query.lower()
    for word, delta in (("today", 0), ("tonight", 0), ("tomorrow", 1), ("yesterday", -1)):
        for m in re.finditer(rf"\b{word}\b", lowered):
            add(m.start(), m.end(), today + timedelta(days=delta))
    for m in re.finditer(r"\b(next|this|on|last)?\s*(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)\b",
                         lowered):
        target = _WEEKDAYS.get(m.group(2), 5)
        ahead = (target - today.weekday()) % 7
        if m.group(1) == "last":
            ahead = ahead - 7 if ahead else -7
        elif m.group(1) == "next" and ahead == 0:
            ahead = 7
        add(m.start(2), m.end(), today + timedelta(days=ahead))
    for m in re.finditer(r"\b(?:last|past|previous)\s+(year|month|week|(\d+)\s+days?)\b", lowered):
        days = int(m.group(2)) if m.group(2) else {"year": 365, "month": 30, "week": 7}[m.group(1)]
        add(m.start(), m.end(), today - timedelta(days=days))
        add(m.end(), m.end() + 1, today)  # a span "over the last year" ends today
    for m in re.finditer(rf"\bsince\s+({_MONTH_RE})\b", lowered):
        month = _MONTHS[m.group(1)]
        start = date(today.year if month <= today.month else today.year - 1, month, 1)
        add(m.start(), m.end(), start)
        add(m.end(), m.end() + 1, today)
    return sorted(out)


def _times(query: str) -> list[str]:
    out = []
    for m in _TIME.finditer(query):
        if m.group(3):
            hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
            minute = int(m.group(2) or 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        if hour < 24 and minute < 60:
            out.append(f"{hour:02d}:{minute:02d}")
    return out


def _places(query: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in _CAPS.finditer(query):
        words = m.group(1).rstrip(".'’").split()
        while words and words[0].lower().strip("'’") in _NOT_PLACES:
            words = words[1:]
        # "Apple's" names the company; the possessive is not part of it
        words = [re.sub(r"['’]s$", "", w) for w in words]
        if not words or all(w.lower() in _NOT_PLACES for w in words):
            continue
        phrase = " ".join(words)
        if _CODE.fullmatch(phrase) or re.search(r"\d", phrase) or phrase.lower() in _CURRENCIES:
            continue
        before = query[: m.start()].rstrip().split()
        prep = before[-1].lower() if before else ""
        if any(p == phrase for p, _ in out):
            continue
        out.append((phrase, prep))
    return out


def _content(query: str) -> str:
    """The request itself: the last sentence with its opening cue words and end punctuation removed."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", query.strip()) if s.strip()]
    last = sentences[-1] if sentences else query.strip()
    if len(sentences) > 1 and len(last.split()) < 3:
        last = f"{sentences[-2]} {last}"
    text = _REQUEST_CUES.sub("", last)
    text = re.sub(r"^(?:is|are|do|does|can|could|should|will)\s+(?:there|it|i|we|you)?\s*", "", text, flags=re.I)
    text = re.sub(r"\b(?:for me|please|right now|now)\b", "", text, flags=re.I)
    return re.sub(r"\s+", " ", _STOP_TAIL.sub("", text)).strip(" ,") or query.strip()


def _expressions(query: str) -> list[str]:
    """Runs of formula-like tokens ("x^2 sin(x)", "3x + 7 = 22", "17.5% of 2,340")."""
    runs: list[list[str]] = [[]]
    tokens = query.replace("’", "'").split()
    for i, token in enumerate(tokens):
        bare = token.lower().rstrip("?!,")
        joins = bare == "of" and runs[-1] and i + 1 < len(tokens) and re.match(r"[\d(]", tokens[i + 1])
        if _MATH_TOKEN.match(bare) or joins:
            runs[-1].append(token.rstrip("?!,"))
        elif runs[-1]:
            runs.append([])
    out = []
    for run in runs:
        text = " ".join(run).strip(" .")
        # a lone number or letter is not a formula; one with an operator or a variable power is
        if re.search(r"[+\-*/^=²³√%]|\(", text) and re.search(r"[\dx]", text):
            out.append(text)
    return out


def _after_number(items: list[tuple[int, str]], numbers: list[tuple[float, str, int]], query: str) -> list[str]:
    """Values ordered so one written right after a number ("26.2 miles", "50 pounds") comes first:
    that is the unit or currency the amount is in, and the other one is the target."""
    def adjacent(pos: int) -> bool:
        return any(re.fullmatch(r"[\d.,]+[km%]?\s*(?:us\s+|u\.s\.\s+)?", query[n_pos:pos], re.IGNORECASE) is not None
                   for _, _, n_pos in numbers if n_pos < pos)
    first = [v for pos, v in items if adjacent(pos)]
    rest = [v for pos, v in items if not adjacent(pos)]
    return first[:1] + [v for v in rest] + first[1:]


def read_query(query: str, *, today: date) -> Found:
    """Every typed value the query offers (see :class:`Found`)."""
    dates = _dates(query, today)
    date_spans = {pos for pos, _ in dates}
    numbers = []
    for m in _NUMBER.finditer(query):
        if m.start() in date_spans or _ISO.search(query[max(0, m.start() - 5): m.end() + 6]):
            continue
        if query[m.end(): m.end() + 1].lower() in ("x", "b") and m.group(1) == "0":
            continue  # the 0 of a 0x/0b literal
        if re.fullmatch(r"(19|20)\d\d", m.group(1)) and re.search(rf"(?:{_MONTH_RE})\.?\s*,?\s*$",
                                                               query[: m.start()], re.IGNORECASE):
            continue  # the year of a date already read
        numbers.append((_number(m.group(1), m.group(2) or ""), (m.group(2) or "").lower(), m.start()))
    date_text_numbers = {int(v) for pos, _ in dates for v in re.findall(r"\d+", query[pos: pos + 20])[:2]}
    numbers = [n for n in numbers if not (n[0] in date_text_numbers and any(abs(n[2] - p) < 20 for p in date_spans))]
    currencies = _after_number(sorted(
        [(m.start(), _CURRENCIES[m.group(0).lower()]) for m in re.finditer(
            r"(?<!\w)(?:" + "|".join(re.escape(k) for k in sorted(_CURRENCIES, key=len, reverse=True)) + r")(?!\w)",
            query, re.IGNORECASE)]
    ), numbers, query)
    unit_hits = [(m.start(), m.group(1).lower()) for m in _UNIT_RE.finditer(query)]
    unit_hits += [(m.start(), "hex" if m.group(0).lower().startswith("0x") else "binary") for m in _HEX.finditer(query)]
    units = _after_number(sorted(unit_hits), numbers, query)
    exprs = _expressions(query)
    return Found(
        numbers=tuple(numbers),
        dates=tuple(d for _, d in dates),
        times=tuple(_times(query)),
        places=tuple(_places(query)),
        codes=tuple(c for c in _CODE.findall(query) if c.lower() not in _CURRENCIES),
        ids=tuple(i for i in _ALNUM_ID.findall(query) if not _ISO.fullmatch(i) and not _NOT_ID.fullmatch(i)),
        currencies=tuple(currencies),
        units=tuple(units),
        quoted=tuple(_QUOTED.findall(query)),
        content=_content(query),
        expression=max(exprs, key=len) if exprs else "",
        words=frozenset(re.findall(r"[a-z0-9]+", query.lower())),
    )


def _kind(name: str, spec: Mapping[str, Any]) -> str:
    """What a parameter holds, from its name and description."""
    n = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    desc = str(spec.get("description", "")).lower()
    both = f"{n} {desc}"
    if re.search(r"citizen|nationality|passport", n):
        return "nationality"
    if re.search(r"_id$|^id$|reference|barcode|isbn|flight_number|tracking|order_number", n):
        return "id"
    if re.search(r"timezone|^tz$|_tz$", n):
        return "place"
    if re.search(r"iata|airport|_code$|^code$", n):
        return "code"
    if re.search(r"currency|^base$|^quote$", n):
        return "currency"
    if re.search(r"unit|scale|measure|system|^from$|^to$|_base$", n):
        return "unit"
    if re.search(r"date|day$|check_in|check_out|^start|^end|birth|deadline|when", n):
        return "date"
    if re.search(r"time$|^time|hour|datetime", n):
        return "time"
    if re.search(r"ticker|symbol", n):
        return "ticker"
    if re.search(r"city|location|place|region|country|resort|spot|address|destination|origin|station|port|"
                 r"area|near|where|citizenship|nationality|pickup", n):
        return "place"
    if re.search(r"(guest|last|first|full|user|person|contact|recipient)_?name$|^name$", n):
        return "person"
    if re.search(r"expr|equation|formula|^input$|expression", n):
        return "expression"
    if re.search(r"e-?mail", both):
        return "email"
    return "text"


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
        ordered = _after_number([(p, o) for p, o in hits], list(found.numbers), query)
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


def _fill(name: str, spec: Mapping[str, Any], found: Found, pools: _Pools, query: str) -> tuple[Any, str]:
    """A value for one parameter and where it came from, or (None, why not)."""
    typ = spec.get("type")
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        value = _enum_value(spec["enum"], found, query, _direction(name))
        return (value, "enum value named in the query") if value is not None else (None, "no allowed value named")
    kind = _kind(name, spec)
    direction = _direction(name)
    if typ == "array":
        item_type = (spec.get("items") or {}).get("type")
        if item_type in ("number", "integer"):
            values = [n[0] for n in found.numbers]
            return (values, "all numbers in the query") if values else (None, "no numbers in the query")
        parts = [p.strip() for p in re.split(r",|\band\b", found.content) if p.strip()]
        return (parts, "the request split on commas") if parts else (None, "nothing to list")
    if typ == "boolean":
        return (None, "no yes/no given")
    if kind == "unit" and typ == "integer":
        bases = [_BASES[u] for u in found.units if u in _BASES]
        if direction == 0 and re.search(r"\b0x", query, re.IGNORECASE):
            return 16, "the 0x prefix of the number"
        value = bases[min(direction, len(bases) - 1)] if bases and direction >= 0 else None
        if direction == 0 and len(bases) < 2:
            value = 10
        return (value, "a number base named in the query") if value else (None, "no number base named")
    if typ in ("number", "integer"):
        if re.search(r"rate|percent|interest", name.lower()):
            pct = [i for i, n in enumerate(found.numbers) if n[1] == "%"]
            if pct:
                return pools.take("numbers", found.numbers, pct[0])[0], "a percentage in the query"
        if re.search(r"year", name.lower()):
            years = [i for i, n in enumerate(found.numbers) if 1900 <= n[0] <= 2100]
            if years:
                return pools.take("numbers", found.numbers, years[0])[0], "a year in the query"
        item = pools.take("numbers", found.numbers)
        return (item[0], "the next number in the query") if item else (None, "no number left in the query")
    if kind == "currency":
        value = pools.take("currencies", found.currencies, direction if direction >= 0 else -1)
        return (value, "a currency named in the query") if value else (None, "no currency named")
    if kind == "unit":
        value = pools.take("units", found.units, direction if direction >= 0 else -1)
        return (value, "a unit named in the query") if value else (None, "no unit named")
    if kind == "date":
        value = pools.take("dates", found.dates, direction if direction >= 0 else -1)
        return (value, "a date in the query") if value else (None, "no date in the query")
    if kind == "time":
        if found.times:
            time = pools.take("times", found.times)
            if time and "date" in name.lower() and found.dates:
                return f"{found.dates[0]}T{time}", "a date and time in the query"
            if time:
                return time, "a time in the query"
        return None, "no time in the query"
    if kind == "code":
        value = pools.take("codes", found.codes, direction if direction >= 0 else -1)
        return (value, "a three-letter code in the query") if value else (None, "no code in the query")
    if kind == "id":
        value = pools.take("ids", found.ids)
        return (value, "an identifier in the query") if value else (None, "the query gives no identifier")
    if kind == "ticker":
        m = re.search(r"([A-Za-z][\w.-]*?)(?:'s|’s)?\s+(?:stock|shares?|price|worth|quote)\b", query)
        named = m.group(1) if m and m.group(1).lower() not in _NOT_PLACES else None
        value = found.codes[0] if found.codes else named or (found.places[0][0] if found.places else None)
        return (value, "a company or symbol in the query") if value else (None, "no company or symbol named")
    if kind == "nationality":
        m = re.search(r"\b([A-Z][a-z]+)\s+(?:citizens?|passports?|nationals?)\b", query)
        return (m.group(1), "the nationality named") if m else (None, "no nationality named")
    if kind == "place":
        want = {0: ("from",), 1: ("to", "into", "for")}.get(direction, ("in", "at", "for", "near", "of", "to", "from"))
        if not found.places and found.codes:
            value = pools.take("codes", found.codes, direction if direction >= 0 else -1)
            if value:
                return value, "a three-letter code in the query"
        for i, (place, prep) in enumerate(found.places):
            if prep in want and i not in pools.used.get("places", set()):
                pools.used.setdefault("places", set()).add(i)
                return place, f"a place after '{prep}'"
        item = pools.take("places", found.places)
        return (item[0], "a capitalised place name") if item else (None, "no place named")
    if kind == "person":
        m = re.search(r"\b(?:name|named|called)\s+(?:of\s+)?([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)", query)
        return (m.group(1), "a name given in the query") if m else (None, "no name given")
    if kind == "email":
        m = re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", query)
        return (m.group(0), "an e-mail address") if m else (None, "no e-mail address")
    if typ == "string" and re.fullmatch(r"number|value|numeral|roman", name.lower()):
        for token in query.replace("?", " ").split():
            if _HEX.fullmatch(token) or re.fullmatch(r"[MDCLXVI]{2,}", token) or re.fullmatch(r"\d+", token):
                return token, "a number written in the query"
    if kind == "expression":
        if found.expression:
            return found.expression, "a formula in the query"
        return found.content, "the request text"
    if found.quoted:
        return found.quoted[0], "quoted text"
    return found.content, "the request text"


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
        value, how = _fill(name, spec, found, pools, query)
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
                sources[name] = "enum value named in the query"
    return PlanResult(arguments, tuple(missing), sources)
