"""Read typed values out of a query's words: numbers, dates, times, places, codes, identifiers,
currencies, units, quoted text, a maths expression. The first half of offline argument planning
(:mod:`core.trials.slots` hands these values to a tool's parameters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from core.trials.vocab import ISO_4217

_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WEEKDAYS = {d: i for i, d in enumerate("monday tuesday wednesday thursday friday saturday sunday".split())}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
MONTHS = _MONTHS  # month name or abbreviation → 1..12

_NUMBER = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(k\b|m\b|%)?", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_RANGE = re.compile(rf"\b(\d{{1,2}})\s*(?:to|-|–|until)\s*(\d{{1,2}})\s+({_MONTH_RE})\b", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)|\b(\d{1,2}):(\d{2})\b|\b(noon|midnight)\b",
                   re.IGNORECASE)
CLOCK = _TIME  # a clock time as a request writes it ("4:30pm", "16:30", "noon")
_CODE = re.compile(r"\b[A-Z]{3}\b")
_ALNUM_ID = re.compile(r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{4,}\b|\b\d{4,}\b")
# number-with-suffix tokens ("8pm", "12th", "5km") look like ids but are quantities
_NOT_ID = re.compile(r"\d+(?:am|pm|st|nd|rd|th|s|k|m|km|kg|cm|mm|g|mg|ml|l|h|min|mph|kph|mpg|x)", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“']([^\"”']{2,200})[\"”']")
_CAPS = re.compile(r"\b([A-Z][\w'’/-]*(?:\s+(?:de|da|do|del|la|le|von|van|of)?\s*[A-Z][\w'’/-]*)*)")
_MATH_TOKEN = re.compile(r"^[(\[]*(?:[\d.,]+%?|[a-z]|\d*[a-z](?:\^\d+)?|[\d.]*[a-z]?\^[\w.]+|sin|cos|tan|log|ln|exp|sqrt|"
                         r"(?:sin|cos|tan|log|ln|exp|sqrt)\(.*\)|[\w.]*[+\-*/^=²³√][\w.()]*|[+\-*/^=])[)\]]*[?.!,]?$")

NOT_PLACES = frozenset(
    "i i'm i’m im my me we our you your please what what's what’s which who when where why how is are was "
    "can could would will should do does did find show get give tell make set book log add remind send "
    "convert calculate the a an if it it's this that there these those any and or but for from to in on at "
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday "
    "one two three four five six seven eight nine ten few several couple both".split()
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
HEX_LITERAL = re.compile(r"\b0x[0-9a-f]+\b|\b0b[01]+\b", re.IGNORECASE)
BASES = {"binary": 2, "octal": 8, "decimal": 10, "hex": 16, "hexadecimal": 16}
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
    """Clock times as 24-hour HH:MM ("4:30pm" → "16:30", "noon" → "12:00"), in the order they appear."""
    out = []
    for m in _TIME.finditer(query):
        if m.group(6):
            out.append((m.start(), "12:00" if m.group(6).lower() == "noon" else "00:00"))
            continue
        if m.group(3):
            hour = int(m.group(1)) % 12 + (12 if m.group(3).lower().startswith("p") else 0)
            minute = int(m.group(2) or 0)
            if not 1 <= int(m.group(1)) <= 12:
                continue
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        if hour < 24 and minute < 60:
            out.append((m.start(), f"{hour:02d}:{minute:02d}"))
    return [t for _, t in sorted(out)]


def _places(query: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in _CAPS.finditer(query):
        words = m.group(1).rstrip(".'’").split()
        while words and words[0].lower().strip("'’") in NOT_PLACES:
            words = words[1:]
        # "Apple's" names the company; the possessive is not part of it
        words = [re.sub(r"['’]s$", "", w) for w in words]
        if not words or all(w.lower() in NOT_PLACES for w in words):
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


def after_number(items: list[tuple[int, str]], numbers: list[tuple[float, str, int]], query: str) -> list[str]:
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
    iso_codes = [(m.start(), m.group(0)) for m in _CODE.finditer(query)
                 if m.group(0) in ISO_4217 and m.group(0).lower() not in _CURRENCIES]
    currencies = after_number(sorted(iso_codes +
        [(m.start(), _CURRENCIES[m.group(0).lower()]) for m in re.finditer(
            r"(?<!\w)(?:" + "|".join(re.escape(k) for k in sorted(_CURRENCIES, key=len, reverse=True)) + r")(?!\w)",
            query, re.IGNORECASE)]
    ), numbers, query)
    unit_hits = [(m.start(), m.group(1).lower()) for m in _UNIT_RE.finditer(query)]
    unit_hits += [(m.start(), "hex" if m.group(0).lower().startswith("0x") else "binary") for m in HEX_LITERAL.finditer(query)]
    units = after_number(sorted(unit_hits), numbers, query)
    exprs = _expressions(query)
    return Found(
        numbers=tuple(numbers),
        dates=tuple(d for _, d in dates),
        times=tuple(_times(query)),
        places=tuple(_places(query)),
        codes=tuple(c for c in _CODE.findall(query) if c.lower() not in _CURRENCIES and c not in ISO_4217),
        ids=tuple(i for i in _ALNUM_ID.findall(query) if not _ISO.fullmatch(i) and not _NOT_ID.fullmatch(i)),
        currencies=tuple(currencies),
        units=tuple(units),
        quoted=tuple(_QUOTED.findall(query)),
        content=_content(query),
        expression=max(exprs, key=len) if exprs else "",
        words=frozenset(re.findall(r"[a-z0-9]+", query.lower())),
    )
