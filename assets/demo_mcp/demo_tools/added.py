"""Tools the demo catalog gains in versions v2–v5, so the Timeline can call what each version adds.

Same rules as the other modules: answers come from small fixed tables or are computed from the
arguments, "today" is :data:`REFERENCE_DATE`, and whatever looks random (ids, prices, passwords, random
numbers) is derived from a hash of the arguments, so the same call always gets the same answer. Tools
that act (send, share, upload, order) only return a confirmation: nothing leaves the process and no
local file is read. ``calculate_age`` (added in v2) lives in :mod:`demo_tools.dates_food`; the four
added tools that are broken on purpose are declared in ``served.json`` and handled by ``server.py``.
"""

from __future__ import annotations

import calendar
import difflib
import hashlib
import math
import mimetypes
import random
import re
import string
from datetime import UTC, date, datetime, timedelta
from typing import Any

from demo_tools.base import REFERENCE_DATE, BadInput, _digest, _key, _lookup, _number, parse_date, tool
from demo_tools.dates_food import _clock, _zone
from demo_tools.places import _CITY_ALIASES, _WEATHER

REFERENCE_NOON = datetime.combine(REFERENCE_DATE, datetime.min.time()).replace(hour=12)


def _seed(*parts: Any) -> int:
    """A full-width seed for :class:`random.Random` derived from the call's arguments."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def _ident(prefix: str, *parts: Any) -> str:
    return f"{prefix}-{hashlib.sha256('|'.join(map(str, parts)).encode()).hexdigest()[:10]}"


def _text(value: Any, name: str) -> str:
    text = str(value).strip()
    if not text:
        raise BadInput(f"{name} must not be empty")
    return text


# ---------------------------------------------------------------- finance


# code: name, symbol, subunit, subunits per unit, countries and territories using it
_CURRENCIES = {
    "USD": ("United States dollar", "$", "cent", 100, ["United States", "Ecuador", "El Salvador", "Panama", "Puerto Rico"]),
    "EUR": ("Euro", "€", "cent", 100, ["Austria", "Belgium", "Croatia", "Cyprus", "Estonia", "Finland", "France",
                                      "Germany", "Greece", "Ireland", "Italy", "Latvia", "Lithuania", "Luxembourg",
                                      "Malta", "Netherlands", "Portugal", "Slovakia", "Slovenia", "Spain"]),
    "GBP": ("Pound sterling", "£", "penny", 100, ["United Kingdom"]),
    "JPY": ("Japanese yen", "¥", "sen (no longer used)", 100, ["Japan"]),
    "CHF": ("Swiss franc", "CHF", "rappen / centime", 100, ["Switzerland", "Liechtenstein"]),
    "CAD": ("Canadian dollar", "$", "cent", 100, ["Canada"]),
    "AUD": ("Australian dollar", "$", "cent", 100, ["Australia", "Kiribati", "Nauru", "Tuvalu"]),
    "NZD": ("New Zealand dollar", "$", "cent", 100, ["New Zealand", "Cook Islands", "Niue"]),
    "INR": ("Indian rupee", "₹", "paisa", 100, ["India", "Bhutan (alongside the ngultrum)"]),
    "CNY": ("Renminbi (Chinese yuan)", "¥", "fen", 100, ["China"]),
    "HKD": ("Hong Kong dollar", "HK$", "cent", 100, ["Hong Kong"]),
    "SGD": ("Singapore dollar", "S$", "cent", 100, ["Singapore", "Brunei (at par with the Brunei dollar)"]),
    "THB": ("Thai baht", "฿", "satang", 100, ["Thailand"]),
    "KRW": ("South Korean won", "₩", "jeon (no longer used)", 100, ["South Korea"]),
    "BRL": ("Brazilian real", "R$", "centavo", 100, ["Brazil"]),
    "MXN": ("Mexican peso", "$", "centavo", 100, ["Mexico"]),
    "SEK": ("Swedish krona", "kr", "öre", 100, ["Sweden"]),
    "NOK": ("Norwegian krone", "kr", "øre", 100, ["Norway"]),
    "DKK": ("Danish krone", "kr", "øre", 100, ["Denmark", "Greenland", "Faroe Islands"]),
    "PLN": ("Polish złoty", "zł", "grosz", 100, ["Poland"]),
    "CZK": ("Czech koruna", "Kč", "haléř", 100, ["Czech Republic"]),
    "TRY": ("Turkish lira", "₺", "kuruş", 100, ["Turkey", "Northern Cyprus"]),
    "ZAR": ("South African rand", "R", "cent", 100, ["South Africa", "Lesotho", "Namibia", "Eswatini"]),
    "AED": ("UAE dirham", "د.إ", "fils", 100, ["United Arab Emirates"]),
    "XOF": ("West African CFA franc", "CFA", "centime", 100, ["Benin", "Burkina Faso", "Côte d'Ivoire",
                                                              "Guinea-Bissau", "Mali", "Niger", "Senegal", "Togo"]),
}
_CURRENCY_ALIASES = {"dollar": "USD", "us dollar": "USD", "euro": "EUR", "pound": "GBP", "sterling": "GBP",
                     "pound sterling": "GBP", "yen": "JPY", "swiss franc": "CHF", "canadian dollar": "CAD",
                     "australian dollar": "AUD", "rupee": "INR", "indian rupee": "INR", "yuan": "CNY",
                     "renminbi": "CNY", "baht": "THB", "thai baht": "THB", "won": "KRW", "real": "BRL",
                     "peso": "MXN", "mexican peso": "MXN", "krona": "SEK", "krone": "NOK", "zloty": "PLN",
                     "złoty": "PLN", "koruna": "CZK", "lira": "TRY", "rand": "ZAR", "dirham": "AED",
                     "singapore dollar": "SGD", "hong kong dollar": "HKD", "new zealand dollar": "NZD",
                     "cfa franc": "XOF"}


@tool("currency_info")
def currency_info(a: dict) -> dict:
    text = _text(a["code"], "code")
    code = text.upper() if text.upper() in _CURRENCIES else None
    if code is None:
        key = _key(text).replace("the ", "")
        code = _CURRENCY_ALIASES.get(key) or _CURRENCY_ALIASES.get(key.rstrip("s"))
    if code is None:
        raise BadInput(f"unknown currency {text!r}; use an ISO 4217 code such as {', '.join(sorted(_CURRENCIES))}")
    name, symbol, subunit, per_unit, countries = _CURRENCIES[code]
    return {"code": code, "name": name, "symbol": symbol, "subunit": subunit, "subunits_per_unit": per_unit,
            "countries": countries}


def _easter(year: int) -> date:
    """Gregorian Easter Sunday (anonymous algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th (1-based; -1 for the last) given weekday of a month."""
    if n < 0:
        last = date(year, month, calendar.monthrange(year, month)[1])
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))


def _us_observed(day: date) -> date:
    return day - timedelta(days=1) if day.weekday() == 5 else day + timedelta(days=1) if day.weekday() == 6 else day


def _nyse(year: int) -> tuple[list[tuple[date, str]], list[tuple[date, str]]]:
    new_year = date(year, 1, 1)
    days = [] if new_year.weekday() == 5 else [(_us_observed(new_year), "New Year's Day")]  # NYSE: no Friday make-up
    days += [(_nth_weekday(year, 1, 0, 3), "Martin Luther King Jr. Day"),
             (_nth_weekday(year, 2, 0, 3), "Washington's Birthday"),
             (_easter(year) - timedelta(days=2), "Good Friday"),
             (_nth_weekday(year, 5, 0, -1), "Memorial Day")]
    if year >= 2022:
        days.append((_us_observed(date(year, 6, 19)), "Juneteenth National Independence Day"))
    thanksgiving = _nth_weekday(year, 11, 3, 4)
    days += [(_us_observed(date(year, 7, 4)), "Independence Day"), (_nth_weekday(year, 9, 0, 1), "Labor Day"),
             (thanksgiving, "Thanksgiving Day"), (_us_observed(date(year, 12, 25)), "Christmas Day")]
    early = [(date(year, 7, 3), "Independence Day eve"), (thanksgiving + timedelta(days=1), "Day after Thanksgiving"),
             (date(year, 12, 24), "Christmas Eve")]
    closed = {d for d, _ in days}
    return days, [(d, why) for d, why in early if d.weekday() < 5 and d not in closed]


def _uk(year: int) -> tuple[list[tuple[date, str]], list[tuple[date, str]]]:
    new_year = date(year, 1, 1)
    new_year += timedelta(days=(7 - new_year.weekday()) % 7 if new_year.weekday() >= 5 else 0)
    easter = _easter(year)
    christmas, boxing = date(year, 12, 25), date(year, 12, 26)
    if christmas.weekday() == 5:
        christmas, boxing = date(year, 12, 27), date(year, 12, 28)
    elif christmas.weekday() == 6:
        christmas, boxing = date(year, 12, 27), date(year, 12, 26)
    elif boxing.weekday() == 5:
        boxing = date(year, 12, 28)
    days = [(new_year, "New Year's Day"), (easter - timedelta(days=2), "Good Friday"),
            (easter + timedelta(days=1), "Easter Monday"), (_nth_weekday(year, 5, 0, 1), "Early May bank holiday"),
            (_nth_weekday(year, 5, 0, -1), "Spring bank holiday"), (_nth_weekday(year, 8, 0, -1), "Summer bank holiday"),
            (christmas, "Christmas Day"), (boxing, "Boxing Day")]
    early = [(date(year, 12, 24), "Christmas Eve"), (date(year, 12, 31), "New Year's Eve")]
    return days, [(d, why) for d, why in early if d.weekday() < 5]


def _xetra(year: int) -> tuple[list[tuple[date, str]], list[tuple[date, str]]]:
    easter = _easter(year)
    days = [(date(year, 1, 1), "New Year's Day"), (easter - timedelta(days=2), "Good Friday"),
            (easter + timedelta(days=1), "Easter Monday"), (date(year, 5, 1), "Labour Day"),
            (date(year, 12, 24), "Christmas Eve"), (date(year, 12, 25), "Christmas Day"),
            (date(year, 12, 26), "Boxing Day"), (date(year, 12, 31), "New Year's Eve")]
    return days, []


def _euronext(year: int) -> tuple[list[tuple[date, str]], list[tuple[date, str]]]:
    easter = _easter(year)
    days = [(date(year, 1, 1), "New Year's Day"), (easter - timedelta(days=2), "Good Friday"),
            (easter + timedelta(days=1), "Easter Monday"), (date(year, 5, 1), "Labour Day"),
            (date(year, 12, 25), "Christmas Day"), (date(year, 12, 26), "Boxing Day")]
    early = [(date(year, 12, 24), "Christmas Eve"), (date(year, 12, 31), "New Year's Eve")]
    return days, [(d, why) for d, why in early if d.weekday() < 5]


_EXCHANGES = {
    "nyse": ("New York Stock Exchange", "XNYS", "America/New_York", "13:00", _nyse),
    "nasdaq": ("Nasdaq", "XNAS", "America/New_York", "13:00", _nyse),
    "lse": ("London Stock Exchange", "XLON", "Europe/London", "12:30", _uk),
    "xetra": ("Deutsche Börse Xetra (Frankfurt)", "XETR", "Europe/Berlin", "14:00", _xetra),
    "euronext": ("Euronext (Paris, Amsterdam, Brussels, Lisbon, Milan, Dublin, Oslo)", "XPAR", "Europe/Paris",
                 "14:05", _euronext),
}
_EXCHANGE_ALIASES = {"new york stock exchange": "nyse", "the new york stock exchange": "nyse", "xnys": "nyse",
                     "nyse american": "nyse", "wall street": "nyse", "xnas": "nasdaq", "london stock exchange": "lse",
                     "london": "lse", "xlon": "lse", "frankfurt": "xetra", "frankfurt stock exchange": "xetra",
                     "deutsche börse": "xetra", "deutsche borse": "xetra", "fwb": "xetra", "xetr": "xetra",
                     "euronext paris": "euronext", "euronext amsterdam": "euronext", "euronext lisbon": "euronext",
                     "paris": "euronext", "amsterdam": "euronext", "xpar": "euronext", "xams": "euronext"}


@tool("get_bank_holidays_for_markets")
def get_bank_holidays_for_markets(a: dict) -> dict:
    key, (name, mic, zone, early_close, rules) = _lookup(_EXCHANGES, _EXCHANGE_ALIASES, a["exchange"], "exchange")
    year = int(a["year"])
    if not 1990 <= year <= 2100:
        raise BadInput("year must be between 1990 and 2100")
    closed, early = rules(year)
    return {"exchange": name, "mic": mic, "year": year, "timezone": zone,
            "closed": [{"date": d.isoformat(), "weekday": d.strftime("%A"), "holiday": why}
                       for d, why in sorted(closed) if d.weekday() < 5 and d.year == year],
            "early_closes": [{"date": d.isoformat(), "weekday": d.strftime("%A"), "occasion": why,
                              "closes_at": early_close} for d, why in sorted(early)],
            "note": "regular weekend closures are not listed; one-off closures (national mourning, "
                    "royal events) are not predicted"}


# title: typical annual gross salary in EUR in Berlin (p25, median, p75)
_SALARIES = {
    "software engineer": (58_000, 70_000, 85_000), "data engineer": (60_000, 72_000, 86_000),
    "data scientist": (58_000, 70_000, 84_000), "devops engineer": (60_000, 72_000, 85_000),
    "product manager": (65_000, 80_000, 95_000), "ux designer": (48_000, 58_000, 70_000),
    "project manager": (55_000, 66_000, 78_000), "marketing manager": (52_000, 63_000, 76_000),
    "accountant": (45_000, 53_000, 62_000), "nurse": (38_000, 44_000, 50_000), "teacher": (46_000, 55_000, 64_000),
    "sales representative": (42_000, 52_000, 65_000), "mechanical engineer": (54_000, 64_000, 75_000),
    "graphic designer": (38_000, 45_000, 53_000), "lawyer": (70_000, 88_000, 110_000),
}
_TITLE_ALIASES = {"developer": "software engineer", "software developer": "software engineer",
                  "programmer": "software engineer", "backend developer": "software engineer",
                  "frontend developer": "software engineer", "web developer": "software engineer",
                  "ml engineer": "data scientist", "machine learning engineer": "data scientist",
                  "data analyst": "data scientist", "sre": "devops engineer", "designer": "ux designer",
                  "product designer": "ux designer", "pm": "product manager", "salesperson": "sales representative",
                  "registered nurse": "nurse", "attorney": "lawyer"}
# city: currency, local salary level relative to Berlin (in the local currency, after conversion)
_SALARY_CITIES = {
    "berlin": ("EUR", 1.0), "munich": ("EUR", 1.12), "hamburg": ("EUR", 1.04), "frankfurt": ("EUR", 1.08),
    "amsterdam": ("EUR", 1.05), "paris": ("EUR", 1.02), "madrid": ("EUR", 0.68), "barcelona": ("EUR", 0.66),
    "lisbon": ("EUR", 0.52), "rome": ("EUR", 0.62), "vienna": ("EUR", 0.98), "dublin": ("EUR", 1.1),
    "london": ("GBP", 0.95), "new york": ("USD", 1.9), "san francisco": ("USD", 2.25), "chicago": ("USD", 1.6),
    "toronto": ("CAD", 1.55), "sydney": ("AUD", 1.75), "tokyo": ("JPY", 118.0), "singapore": ("SGD", 1.35),
    "zurich": ("CHF", 1.75), "oslo": ("NOK", 11.5),
}


@tool("salary_benchmark")
def salary_benchmark(a: dict) -> dict:
    title_key = _key(a["title"])
    title = _TITLE_ALIASES.get(title_key, title_key)
    if title not in _SALARIES:
        title = next((t for t in _SALARIES if t in title_key), None) or next(
            (v for k, v in _TITLE_ALIASES.items() if k in title_key), None)
    if title is None:
        raise BadInput(f"no salary data for {a['title']!r}; known job titles: {', '.join(sorted(_SALARIES))}")
    city, (money, level) = _lookup(_SALARY_CITIES, _CITY_ALIASES, a["city"], "salary")
    seniority_spread = 1 + (_digest(title, city) % 5) / 100  # a fixed small local skew
    low, median, high = (int(round(v * level * seniority_spread, -3)) for v in _SALARIES[title])
    return {"title": title, "city": city.title(), "currency": money, "period": "year", "basis": "gross, full-time",
            "percentile_25": low, "median": median, "percentile_75": high,
            "sample_size": 120 + _digest(title, city, "n") % 900, "as_of": REFERENCE_DATE.isoformat()}


# ---------------------------------------------------------------- dates and times

_SYNODIC_MONTH = 29.530588853
_KNOWN_NEW_MOON = datetime(2000, 1, 6, 18, 14, tzinfo=UTC)
_MOON_PHASES = [(1.84566, "new moon"), (5.53699, "waxing crescent"), (9.22831, "first quarter"),
                (12.91963, "waxing gibbous"), (16.61096, "full moon"), (20.30228, "waning gibbous"),
                (23.99361, "last quarter"), (27.68493, "waning crescent"), (_SYNODIC_MONTH, "new moon")]


@tool("get_moon_phase")
def get_moon_phase(a: dict) -> dict:
    day = parse_date(a["date"], "date") if a.get("date") else REFERENCE_DATE
    moment = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    age = ((moment - _KNOWN_NEW_MOON).total_seconds() / 86400) % _SYNODIC_MONTH
    phase = next(name for limit, name in _MOON_PHASES if age < limit)
    illumination = (1 - math.cos(2 * math.pi * age / _SYNODIC_MONTH)) / 2
    to_full = (_SYNODIC_MONTH / 2 - age) % _SYNODIC_MONTH
    to_new = (_SYNODIC_MONTH - age) % _SYNODIC_MONTH
    return {"date": day.isoformat(), "phase": phase, "illumination_percent": round(illumination * 100, 1),
            "moon_age_days": round(age, 2), "waxing": age < _SYNODIC_MONTH / 2,
            "next_full_moon": (moment + timedelta(days=to_full)).date().isoformat(),
            "next_new_moon": (moment + timedelta(days=to_new)).date().isoformat()}


def _parse_moment(value: Any, name: str) -> datetime:
    text = str(value).strip().replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    match = re.fullmatch(r"(.+?)[ T,]+(\d{1,2}(?::\d{2})?\s*(?:am|pm)?)", text, re.IGNORECASE)
    if match:
        try:
            day = parse_date(match[1], name)
        except BadInput:
            day = None
        if day is not None:
            hour, minute = _clock(match[2])
            return datetime(day.year, day.month, day.day, hour, minute)
    day = parse_date(text, name)
    return datetime(day.year, day.month, day.day)


@tool("unix_timestamp_convert")
def unix_timestamp_convert(a: dict) -> dict:
    raw = _text(a["value"], "value")
    zone = _zone(a.get("timezone") or "UTC")
    if re.fullmatch(r"-?\d+(\.\d+)?", raw):
        seconds = float(raw)
        unit = "seconds"
        if abs(seconds) >= 1e11:  # 13-digit values are milliseconds
            seconds, unit = seconds / 1000, "milliseconds"
        moment = datetime.fromtimestamp(seconds, tz=UTC)
        local = moment.astimezone(zone)
        return {"direction": "timestamp_to_date", "timestamp": int(seconds) if seconds.is_integer() else seconds,
                "input_unit": unit, "utc": moment.isoformat(), "local": local.isoformat(), "timezone": zone.key,
                "weekday": local.strftime("%A")}
    moment = _parse_moment(raw, "value")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    stamp = moment.timestamp()
    return {"direction": "date_to_timestamp", "input": raw, "timezone": zone.key,
            "timestamp": int(stamp) if float(stamp).is_integer() else stamp, "timestamp_ms": int(stamp * 1000),
            "utc": moment.astimezone(UTC).isoformat()}


_CRON_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 6))
_CRON_NAMES = {"month": {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m},
               "day of week": {d.lower(): (i + 1) % 7 for i, d in enumerate(calendar.day_abbr)}}
_CRON_MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
_DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def _cron_field(text: str, name: str, low: int, high: int) -> list[int]:
    names = _CRON_NAMES.get(name, {})
    top = 7 if name == "day of week" else high  # 7 is Sunday too

    def value(token: str) -> int:
        token = token.lower()
        if token in names:
            return names[token]
        if not token.isdigit() or not low <= int(token) <= top:
            raise BadInput(f"bad {name} value {token!r} in the cron expression (allowed {low}-{top})")
        return int(token)

    found: set[int] = set()
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if step_text and step is None:
            raise BadInput(f"bad step {step_text!r} in the {name} field")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = value(first), value(last)
            if start > end:
                raise BadInput(f"bad range {base!r} in the {name} field")
        else:
            start = value(base)
            end = high if step else start
        found.update(range(start, end + 1, step or 1))
    return sorted({v % 7 if name == "day of week" else v for v in found})


def _runs(values: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _describe_days(values: list[int], label: Any) -> str:
    parts = [f"{label(a)} through {label(b)}" if b - a >= 2 else _join([label(v) for v in range(a, b + 1)])
             for a, b in _runs(values)]
    return _join(parts)


def _describe_cron(fields: list[str], sets: list[list[int]]) -> str:
    minutes, hours, doms, months, dows = sets
    m_text, h_text = fields[0], fields[1]
    if len(minutes) * len(hours) <= 6 and "*" not in m_text and "*" not in h_text:
        when = "at " + _join([f"{h:02d}:{m:02d}" for h in hours for m in minutes])
    else:
        if m_text == "*":
            when = "every minute"
        elif re.fullmatch(r"\*/\d+", m_text):
            when = f"every {m_text[2:]} minutes"
        else:
            when = "at minute " + _join([str(m) for m in minutes]) + " past"
        if h_text == "*":
            when += " of every hour" if when.endswith("past") else ""
        elif re.fullmatch(r"\*/\d+", h_text):
            when += f"{' every' if when.endswith('past') else ', every'} {h_text[2:]} hours"
        else:
            hours_text = _join([f"{a:02d}:00–{b:02d}:59" if b > a else f"{a:02d}:00–{a:02d}:59"
                                for a, b in _runs(hours)])
            when += (" the hour, between " if when.endswith("past") else ", between ") + hours_text
    parts = [when]
    if fields[2] != "*":
        parts.append("on day " + _join([str(d) for d in doms]) + " of the month")
    if fields[4] != "*":
        parts.append(("or " if fields[2] != "*" else "") + "on " + _describe_days(dows, lambda d: _DAY_NAMES[d]))
    if fields[3] != "*":
        parts.append("in " + _describe_days(months, lambda m: calendar.month_name[m]))
    text = ", ".join(parts)
    return text[0].upper() + text[1:]


@tool("cron_explain")
def cron_explain(a: dict) -> dict:
    expression = " ".join(_text(a["expression"], "expression").split())
    expanded = _CRON_MACROS.get(expression.lower(), expression)
    fields = expanded.split()
    if len(fields) != 5:
        raise BadInput("a cron expression has five fields: minute hour day-of-month month day-of-week "
                       f"(or a macro such as @daily), got {expression!r}")
    sets = [_cron_field(text, name, low, high) for text, (name, low, high) in zip(fields, _CRON_FIELDS, strict=True)]
    minutes, hours, doms, months, dows = sets
    dom_any, dow_any = fields[2] == "*", fields[4] == "*"
    after = datetime.combine(REFERENCE_DATE, datetime.min.time())
    runs: list[str] = []
    day = REFERENCE_DATE
    while len(runs) < 5 and day < REFERENCE_DATE + timedelta(days=366 * 8):
        cron_dow = (day.weekday() + 1) % 7
        dom_ok, dow_ok = day.day in doms, cron_dow in dows
        matches = (dom_ok and dow_ok) if dom_any or dow_any else (dom_ok or dow_ok)  # cron's OR rule
        if day.month in months and matches:
            for h in hours:
                for m in minutes:
                    moment = datetime(day.year, day.month, day.day, h, m)
                    if moment >= after and len(runs) < 5:
                        runs.append(moment.strftime("%Y-%m-%d %H:%M (%a)"))
        day += timedelta(days=1)
    return {"expression": expression, "fields": dict(zip([f[0] for f in _CRON_FIELDS], fields, strict=True)),
            "description": _describe_cron(fields, sets), "next_runs": runs,
            "next_runs_from": f"{after:%Y-%m-%d %H:%M} (server time)"}


# ---------------------------------------------------------------- maths


@tool("unit_circle_values")
def unit_circle_values(a: dict) -> dict:
    angle = _number(a["angle"], "angle")
    unit = a.get("unit") or "deg"
    degrees = angle if unit == "deg" else math.degrees(angle)
    radians = math.radians(angle) if unit == "deg" else angle
    norm = degrees % 360
    sin, cos = round(math.sin(radians), 10) + 0.0, round(math.cos(radians), 10) + 0.0  # + 0.0: no -0.0
    quadrant = None if norm % 90 == 0 else int(norm // 90) + 1
    reference = min(norm % 180, 180 - norm % 180)
    return {"angle": angle, "unit": unit, "degrees": round(degrees, 10), "radians": round(radians, 10),
            "sin": sin, "cos": cos, "tan": None if cos == 0 else round(sin / cos, 10),
            "quadrant": quadrant, "reference_angle_degrees": round(reference, 10)}


@tool("random_number")
def random_number(a: dict) -> dict:
    low, high, count = int(a["low"]), int(a["high"]), int(a.get("count") or 1)
    if low > high:
        raise BadInput("low must not be greater than high")
    if not 1 <= count <= 1000:
        raise BadInput("count must be between 1 and 1000")
    seed = _seed("random_number", low, high, count)
    rng = random.Random(seed)  # noqa: S311 - a repeatable demo draw, not a secret
    return {"low": low, "high": high, "count": count, "numbers": [rng.randint(low, high) for _ in range(count)],
            "seed": seed, "method": "pseudo-random, seeded from the arguments (same call, same numbers)"}


@tool("linear_regression")
def linear_regression(a: dict) -> dict:
    xs = [_number(v, "x") for v in a["x"]]
    ys = [_number(v, "y") for v in a["y"]]
    if len(xs) != len(ys):
        raise BadInput(f"x and y must have the same length ({len(xs)} vs {len(ys)})")
    if len(xs) < 2:
        raise BadInput("at least two points are needed")
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise BadInput("x values must not all be equal")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    r2 = 1.0 if ss_tot == 0 else 1 - ss_res / ss_tot
    slope, intercept = round(slope, 10), round(intercept, 10)
    sign = "-" if intercept < 0 else "+"
    return {"n": n, "slope": slope, "intercept": intercept, "r_squared": round(r2, 10),
            "equation": f"y = {slope:g}x {sign} {abs(intercept):g}",
            "residuals": [round(y - (slope * x + intercept), 10) for x, y in zip(xs, ys, strict=True)]}


# ---------------------------------------------------------------- developer tools

_ISSUERS = [("Let's Encrypt", "R11", 90), ("Let's Encrypt", "E6", 90), ("Google Trust Services", "WR2", 90),
            ("DigiCert Inc", "DigiCert Global G2 TLS RSA SHA256 2020 CA1", 396),
            ("Sectigo Limited", "Sectigo RSA Domain Validation Secure Server CA", 365),
            ("Amazon", "Amazon RSA 2048 M02", 395)]


@tool("ssl_certificate_check")
def ssl_certificate_check(a: dict) -> dict:
    domain = re.sub(r"^[a-z]+://", "", _text(a["domain"], "domain").lower()).split("/")[0].split(":")[0]
    if not re.fullmatch(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}", domain):
        raise BadInput(f"{a['domain']!r} is not a domain name such as example.org")
    organisation, issuer, validity = _ISSUERS[_digest("issuer", domain) % len(_ISSUERS)]
    issued = REFERENCE_DATE - timedelta(days=_digest("issued", domain) % (validity - 10))
    expires = issued + timedelta(days=validity)
    return {"domain": domain, "subject": f"CN={domain}", "subject_alt_names": [domain, f"www.{domain}"],
            "issuer": f"{issuer} ({organisation})", "issuer_organisation": organisation,
            "valid_from": issued.isoformat(), "valid_until": expires.isoformat(),
            "days_remaining": (expires - REFERENCE_DATE).days, "valid": True, "protocol": "TLS 1.3",
            "checked_on": REFERENCE_DATE.isoformat()}


@tool("diff_text")
def diff_text(a: dict) -> dict:
    old, new = str(a["old"]).splitlines(), str(a["new"]).splitlines()
    changes: list[dict[str, Any]] = []
    counts = {"added": 0, "removed": 0, "unchanged": 0}
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            counts["unchanged"] += i2 - i1
            continue
        for i in range(i1, i2):
            changes.append({"type": "removed", "old_line": i + 1, "text": old[i]})
            counts["removed"] += 1
        for j in range(j1, j2):
            changes.append({"type": "added", "new_line": j + 1, "text": new[j]})
            counts["added"] += 1
    unified = "\n".join(difflib.unified_diff(old, new, "old", "new", lineterm=""))
    return {**counts, "identical": not changes, "similarity": round(matcher.ratio(), 4), "changes": changes,
            "unified_diff": unified}


@tool("generate_password")
def generate_password(a: dict) -> dict:
    length = int(a.get("length") or 16)
    symbols = a.get("symbols", True) is not False
    if not 8 <= length <= 128:
        raise BadInput("length must be between 8 and 128")
    pools = [string.ascii_lowercase, string.ascii_uppercase, string.digits] + (["!@#$%^&*()-_=+[]{};:,.?"] if symbols else [])
    alphabet = "".join(pools)
    rng = random.Random(_seed("generate_password", length, symbols))  # noqa: S311 - repeatable demo output
    chars = [rng.choice(pool) for pool in pools] + [rng.choice(alphabet) for _ in range(length - len(pools))]
    rng.shuffle(chars)
    return {"password": "".join(chars), "length": length, "symbols": symbols,
            "character_classes": len(pools), "entropy_bits": round(length * math.log2(len(alphabet)), 1)}


# ---------------------------------------------------------------- weather

# city: (coldest-month high, low), (warmest-month high, low), warmest month, annual rain mm, wettest month,
# rainy days a year, how seasonal the rain is (0 even – 1 all in one season)
_CLIMATE: dict[str, tuple] = {
    "lisbon": ((15, 8), (28, 18), 8, 725, 12, 100, 0.85), "oslo": ((0, -6), (22, 13), 7, 760, 8, 115, 0.35),
    "paris": ((7, 3), (25, 15), 7, 640, 5, 110, 0.15), "berlin": ((3, -2), (24, 14), 7, 570, 7, 106, 0.3),
    "london": ((8, 3), (24, 14), 7, 620, 10, 110, 0.2), "new york": ((4, -3), (29, 22), 7, 1270, 7, 122, 0.1),
    "tokyo": ((10, 1), (31, 24), 7.5, 1530, 9, 105, 0.6), "kyoto": ((9, 1), (33, 24), 7.5, 1520, 6, 115, 0.6),
    "delhi": ((20, 8), (40, 27), 5, 790, 8, 40, 0.95), "sydney": ((17, 8), (26, 19), 1, 1210, 6, 140, 0.3),
    "madrid": ((10, 3), (33, 19), 7, 420, 11, 60, 0.6), "rome": ((12, 3), (31, 18), 7, 800, 11, 75, 0.7),
    "vienna": ((3, -2), (26, 16), 7, 650, 7, 100, 0.35), "amsterdam": ((6, 1), (22, 13), 7, 840, 10, 130, 0.25),
    "barcelona": ((14, 5), (29, 21), 8, 600, 10, 55, 0.5), "singapore": ((30, 23), (32, 25), 5, 2340, 12, 167, 0.35),
    "san francisco": ((14, 8), (22, 13), 9, 600, 1, 67, 0.95), "phoenix": ((19, 7), (41, 29), 7, 200, 8, 35, 0.5),
    "toronto": ((-1, -8), (27, 17), 7, 830, 6, 140, 0.1), "dublin": ((8, 2), (20, 12), 7, 760, 10, 130, 0.2),
    "chicago": ((0, -8), (29, 19), 7, 940, 6, 125, 0.4), "valencia": ((16, 7), (30, 22), 8, 450, 10, 45, 0.7),
    "prague": ((1, -4), (24, 13), 7, 500, 7, 100, 0.45), "bangkok": ((32, 21), (35, 27), 4, 1650, 9, 115, 0.9),
}
_CLIMATE_ALIASES = {**_CITY_ALIASES, "praha": "prague", "krung thep": "bangkok", "kioto": "kyoto"}


def _climate(value: Any) -> tuple[str, tuple]:
    return _lookup(_CLIMATE, _CLIMATE_ALIASES, value, "climate")


def _month_normals(row: tuple, month: int) -> dict[str, Any]:
    (cold_hi, cold_lo), (warm_hi, warm_lo), warm_month, rain, wet_month, rainy_days, seasonality = row
    season = math.cos(2 * math.pi * (month - warm_month) / 12)  # 1 in the warmest month, -1 six months later
    wet = 1 + seasonality * math.cos(2 * math.pi * (month - wet_month) / 12)
    hi = (warm_hi + cold_hi) / 2 + (warm_hi - cold_hi) / 2 * season
    lo = (warm_lo + cold_lo) / 2 + (warm_lo - cold_lo) / 2 * season
    return {"month": month, "month_name": calendar.month_name[month], "avg_high_c": round(hi, 1),
            "avg_low_c": round(lo, 1), "rainfall_mm": round(rain / 12 * wet), "rainy_days": round(rainy_days / 12 * wet)}


@tool("climate_normals")
def climate_normals(a: dict) -> dict:
    city, row = _climate(a["city"])
    if a.get("month") is None:
        return {"city": city.title(), "period": "1991–2020 normals (rounded)",
                "months": [_month_normals(row, m) for m in range(1, 13)]}
    month = int(a["month"])
    if not 1 <= month <= 12:
        raise BadInput("month must be between 1 and 12")
    return {"city": city.title(), "period": "1991–2020 normals (rounded)", **_month_normals(row, month)}


@tool("hourly_forecast")
def hourly_forecast(a: dict) -> dict:
    city, row = _climate(a["location"])
    hours = int(a.get("hours") or 24)
    if not 1 <= hours <= 48:
        raise BadInput("hours must be between 1 and 48")
    june = _month_normals(row, REFERENCE_DATE.month)
    # Anchor on the current-weather table where the city has one, so both tools agree at noon.
    noon = _WEATHER[city][0] if city in _WEATHER else june["avg_high_c"] - 1
    swing = max(june["avg_high_c"] - june["avg_low_c"], 4)
    wetness = june["rainy_days"] / 30
    out = []
    for i in range(1, hours + 1):
        moment = REFERENCE_NOON + timedelta(hours=i)
        daily = math.cos(2 * math.pi * (moment.hour - 15) / 24)  # warmest mid-afternoon
        wobble = (_digest(city, "t", i) % 11 - 5) / 10
        chance = min(95, round(wetness * 100 * (0.4 + (_digest(city, "p", i // 3) % 120) / 100)))
        rain = round((_digest(city, "mm", i) % 30) / 10 * (chance / 60), 1) if chance >= 50 else 0.0
        out.append({"time": moment.strftime("%Y-%m-%dT%H:00"), "temperature_c": round(noon + swing / 2 * (daily - 0.7) + wobble, 1),
                    "precipitation_probability": chance, "precipitation_mm": rain})
    return {"location": city.title(), "issued": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M"), "timezone": "local time",
            "hours": out}


# ---------------------------------------------------------------- places, travel and food

_RENTAL_KINDS = (("Studio near the old town", 2, 0.7), ("Loft with a terrace", 3, 1.0),
                 ("Two-bedroom apartment", 4, 1.25), ("Family house with a garden", 6, 1.8),
                 ("Townhouse with a roof deck", 8, 2.4))


@tool("search_vacation_rentals")
def search_vacation_rentals(a: dict) -> dict:
    place = _text(a["location"], "location").split(",")[0].strip()
    city = place.title() if place.lower() == place else place
    check_in, check_out = parse_date(a["check_in"], "check_in"), parse_date(a["check_out"], "check_out")
    nights, guests = (check_out - check_in).days, int(a["guests"])
    if nights <= 0:
        raise BadInput("check_out must be after check_in")
    if not 1 <= guests <= 16:
        raise BadInput("guests must be between 1 and 16")
    level = 60 + _digest("rental level", _key(place)) % 60  # a city's price level, fixed per place
    rentals = []
    for kind, capacity, factor in _RENTAL_KINDS:
        if capacity < guests:
            continue
        rid = f"VR-{_digest(_key(place), kind) % 900000 + 100000}"
        nightly = round(level * factor + _digest(rid, "price") % 25)
        cleaning = 30 + _digest(rid, "cleaning") % 40
        rentals.append({"rental_id": rid, "title": f"{kind} in {city}", "max_guests": capacity,
                        "bedrooms": max(capacity // 2, 1) if capacity > 2 else 0,
                        "price_per_night": nightly, "cleaning_fee": cleaning, "currency": "EUR",
                        "total_price": nightly * nights + cleaning, "rating": round(4.2 + (_digest(rid) % 8) / 10, 1),
                        "km_to_centre": round(0.3 + (_digest(rid, "km") % 50) / 10, 1)})
    return {"location": city, "check_in": check_in.isoformat(), "check_out": check_out.isoformat(),
            "nights": nights, "guests": guests, "rentals": rentals}


_STOP_DESTINATIONS = ("Airport", "Harbour", "University", "Old Town", "Central Station", "Stadium", "Hospital",
                      "North Terminal", "Riverside", "Exhibition Centre", "Zoo", "Business Park")


@tool("public_transit_departures")
def public_transit_departures(a: dict) -> dict:
    stop = _text(a["stop_name"], "stop_name")
    limit = int(a.get("limit") or 10)
    if not 1 <= limit <= 50:
        raise BadInput("limit must be between 1 and 50")
    key = _key(stop)
    modes = ["tram", "bus", "train"] if "station" in key else ["tram", "bus"]
    lines = []
    for i in range(3 + _digest(key, "lines") % 3):
        mode = modes[_digest(key, "mode", i) % len(modes)]
        number = (f"S{1 + _digest(key, i) % 9}" if mode == "train" else str(1 + _digest(key, i) % 28) if mode == "tram"
                  else str(100 + _digest(key, i) % 800))
        destination = _STOP_DESTINATIONS[_digest(key, "dest", i) % len(_STOP_DESTINATIONS)]
        headway = {"tram": 8, "bus": 12, "train": 20}[mode] + _digest(key, "h", i) % 6
        lines.append((mode, number, destination, headway, _digest(key, "offset", i) % headway))
    now = REFERENCE_NOON.replace(hour=8)
    upcoming = []
    for mode, number, destination, headway, offset in lines:
        for k in range(limit):
            minutes = offset + k * headway
            delay = 2 if _digest(key, number, k) % 9 == 0 else 0
            upcoming.append((minutes, {"line": number, "mode": mode, "destination": destination,
                                       "scheduled": (now + timedelta(minutes=minutes)).strftime("%H:%M"),
                                       "minutes_until": minutes + delay, "delay_minutes": delay,
                                       "platform": str(1 + _digest(key, number) % 4)}))
    upcoming.sort(key=lambda pair: (pair[0], pair[1]["line"]))
    return {"stop": stop, "as_of": now.strftime("%Y-%m-%dT%H:%M") + " local",
            "departures": [d for _, d in upcoming[:limit]]}


_GROCERS = (("FreshMart", "06:00", "22:00"), ("Green Basket", "08:00", "20:00"), ("City Grocer Express", "07:00", "23:00"),
            ("Corner Market 24/7", "00:00", "24:00"), ("Organic Pantry", "09:00", "19:00"),
            ("Family Foods", "07:30", "21:30"))
_STREETS = ("Market Street", "Station Road", "High Street", "Park Avenue", "Church Lane", "Harbour Road", "Elm Street")


def _minutes(hhmm: str) -> int:
    hour, minute = hhmm.split(":")
    return int(hour) * 60 + int(minute)


@tool("find_grocery_stores")
def find_grocery_stores(a: dict) -> dict:
    place = _text(a["location"], "location")
    key = _key(place)
    at = None
    if a.get("open_at"):
        text = str(a["open_at"]).strip().lower()
        if text in ("now", "right now"):
            text = "12:00"
        if re.match(r"\d{4}-\d{2}-\d{2}t", text):
            text = text[11:16]
        at = _clock(text)
    stores = []
    for i, (chain, opens, closes) in enumerate(_GROCERS):
        if _digest(key, chain) % 5 == 0:
            continue  # not every chain has a shop near every place
        sid = f"GRC-{_digest(key, chain) % 900000 + 100000}"
        store = {"store_id": sid, "name": chain,
                 "address": f"{1 + _digest(sid) % 180} {_STREETS[_digest(sid, 's') % len(_STREETS)]}",
                 "distance_km": round(0.2 + (_digest(sid, "d") % 30) / 10 + i * 0.1, 1),
                 "opening_hours": f"{opens}–{closes}"}
        if at is not None:
            moment = at[0] * 60 + at[1]
            if not _minutes(opens) <= moment < _minutes(closes):
                continue
            store["open_at_requested_time"] = True
        stores.append(store)
    stores.sort(key=lambda s: s["distance_km"])
    return {"location": place, "open_at": f"{at[0]:02d}:{at[1]:02d}" if at else None, "stores": stores}


# dish: typical ingredients, allergens (EU list of 14) with the ingredient that brings each
_DISHES = {
    "pad thai": (["rice noodles", "egg", "peanuts", "fish sauce", "shrimp", "tamarind", "bean sprouts"],
                 {"peanuts": "peanuts", "eggs": "egg", "fish": "fish sauce", "crustaceans": "shrimp"},
                 ["soy (if soy sauce is added)"]),
    "spaghetti carbonara": (["spaghetti", "eggs", "pancetta", "pecorino", "black pepper"],
                            {"gluten": "spaghetti (wheat)", "eggs": "eggs", "milk": "pecorino"}, []),
    "pizza margherita": (["wheat dough", "tomato", "mozzarella", "basil", "olive oil"],
                         {"gluten": "wheat dough", "milk": "mozzarella"}, []),
    "sushi": (["rice", "raw fish", "nori", "rice vinegar", "soy sauce", "wasabi"],
              {"fish": "raw fish", "soybeans": "soy sauce", "gluten": "soy sauce (wheat)"},
              ["crustaceans", "sesame", "eggs (tamago)"]),
    "caesar salad": (["romaine", "croutons", "parmesan", "anchovies", "egg yolk", "lemon", "mustard"],
                     {"gluten": "croutons", "milk": "parmesan", "fish": "anchovies", "eggs": "egg yolk",
                      "mustard": "mustard"}, []),
    "pesto pasta": (["pasta", "basil", "pine nuts", "parmesan", "garlic", "olive oil"],
                    {"gluten": "pasta (wheat)", "tree nuts": "pine nuts", "milk": "parmesan"}, []),
    "chicken tikka masala": (["chicken", "yogurt", "cream", "tomato", "garam masala", "butter"],
                             {"milk": "yogurt, cream, butter"}, ["tree nuts (cashew paste in some recipes)"]),
    "falafel": (["chickpeas", "herbs", "onion", "garlic", "cumin", "tahini sauce", "pita"],
                {"sesame": "tahini", "gluten": "pita (wheat)"}, []),
    "hummus": (["chickpeas", "tahini", "lemon", "garlic", "olive oil"], {"sesame": "tahini"}, []),
    "paella": (["rice", "saffron", "prawns", "mussels", "chicken", "peas"],
               {"crustaceans": "prawns", "molluscs": "mussels"}, ["fish (stock)"]),
    "pancakes": (["flour", "milk", "eggs", "butter", "sugar"], {"gluten": "flour (wheat)", "milk": "milk, butter",
                                                                 "eggs": "eggs"}, []),
    "ramen": (["wheat noodles", "pork broth", "soy sauce", "egg", "nori", "sesame oil"],
              {"gluten": "wheat noodles", "soybeans": "soy sauce", "eggs": "egg", "sesame": "sesame oil"}, ["fish"]),
    "tiramisu": (["ladyfingers", "mascarpone", "eggs", "coffee", "cocoa", "marsala"],
                 {"gluten": "ladyfingers", "milk": "mascarpone", "eggs": "eggs"}, []),
    "satay": (["chicken skewers", "peanut sauce", "soy sauce", "coconut milk"],
              {"peanuts": "peanut sauce", "soybeans": "soy sauce", "gluten": "soy sauce (wheat)"}, []),
    "waldorf salad": (["apple", "celery", "walnuts", "mayonnaise", "grapes"],
                      {"celery": "celery", "tree nuts": "walnuts", "eggs": "mayonnaise"}, ["mustard"]),
    "fish and chips": (["cod", "batter", "potatoes", "frying oil"], {"fish": "cod", "gluten": "batter (wheat)"},
                       ["milk (in some batters)"]),
}
_DISH_ALIASES = {"carbonara": "spaghetti carbonara", "margherita": "pizza margherita", "pizza": "pizza margherita",
                 "tikka masala": "chicken tikka masala", "sushi roll": "sushi", "pad thai noodles": "pad thai",
                 "pesto": "pesto pasta", "pasta al pesto": "pesto pasta", "chicken satay": "satay"}
# ingredient word → allergen, for dishes not in the table
_ALLERGEN_WORDS = {"peanut": "peanuts", "wheat": "gluten", "bread": "gluten", "pasta": "gluten", "noodle": "gluten",
                   "flour": "gluten", "cake": "gluten", "egg": "eggs", "mayonnaise": "eggs", "milk": "milk",
                   "cheese": "milk", "cream": "milk", "butter": "milk", "yogurt": "milk", "fish": "fish",
                   "salmon": "fish", "tuna": "fish", "shrimp": "crustaceans", "prawn": "crustaceans",
                   "crab": "crustaceans", "lobster": "crustaceans", "mussel": "molluscs", "clam": "molluscs",
                   "squid": "molluscs", "soy": "soybeans", "tofu": "soybeans", "sesame": "sesame", "tahini": "sesame",
                   "almond": "tree nuts", "walnut": "tree nuts", "cashew": "tree nuts", "hazelnut": "tree nuts",
                   "pistachio": "tree nuts", "celery": "celery", "mustard": "mustard", "lupin": "lupin"}


@tool("food_allergen_check")
def food_allergen_check(a: dict) -> dict:
    dish = _text(a["dish"], "dish")
    key = _key(dish)
    found = _DISH_ALIASES.get(key, key)
    if found not in _DISHES:
        found = next((d for d in _DISHES if d in key), None) or next(
            (v for k, v in _DISH_ALIASES.items() if k in key), None)
    if found is not None:
        ingredients, allergens, maybe = _DISHES[found]
        return {"dish": dish, "matched_recipe": found, "typical_ingredients": ingredients,
                "allergens": [{"allergen": k, "source": v} for k, v in allergens.items()], "may_contain": maybe,
                "note": "typical recipe; ask the kitchen, recipes vary"}
    hits: dict[str, str] = {}
    for word, allergen in _ALLERGEN_WORDS.items():
        if re.search(rf"\b{word}", key):
            hits.setdefault(allergen, word)
    return {"dish": dish, "matched_recipe": None, "typical_ingredients": [],
            "allergens": [{"allergen": k, "source": v} for k, v in hits.items()], "may_contain": [],
            "note": "dish not in the recipe table: allergens read from the words of its name only"}


# activity: MET value (Compendium of Physical Activities, rounded)
_METS = {"walking": 3.5, "brisk walking": 4.3, "hiking": 6.0, "running": 9.8, "jogging": 7.0, "cycling": 7.5,
         "swimming": 7.0, "yoga": 2.5, "pilates": 3.0, "weightlifting": 5.0, "rowing": 7.0, "dancing": 5.0,
         "tennis": 7.3, "football": 7.0, "basketball": 6.5, "skiing": 7.0, "climbing": 8.0, "elliptical": 5.0,
         "jump rope": 11.0, "gardening": 3.8, "housework": 3.3}
_ACTIVITY_ALIASES = {"swim": "swimming", "run": "running", "jog": "jogging", "bike": "cycling", "biking": "cycling",
                     "walk": "walking", "hike": "hiking", "soccer": "football", "weights": "weightlifting",
                     "lifting": "weightlifting", "skipping": "jump rope", "cleaning": "housework", "row": "rowing",
                     "dance": "dancing", "cross trainer": "elliptical"}


@tool("calorie_burn_estimate")
def calorie_burn_estimate(a: dict) -> dict:
    key = _key(a["activity"])
    activity = _ACTIVITY_ALIASES.get(key, key)
    if activity not in _METS:
        activity = next((k for k in sorted(_METS, key=len, reverse=True) if k in key), None) or next(
            (v for k, v in _ACTIVITY_ALIASES.items() if re.search(rf"\b{k}", key)), None)
    if activity is None:
        raise BadInput(f"unknown activity {a['activity']!r}; known: {', '.join(sorted(_METS))}")
    minutes, weight = int(a["minutes"]), _number(a["weight_kg"], "weight_kg")
    if not 0 < minutes <= 24 * 60:
        raise BadInput("minutes must be between 1 and 1440")
    if not 20 <= weight <= 300:
        raise BadInput("weight_kg must be between 20 and 300")
    met = _METS[activity]
    kcal = met * weight * minutes / 60
    return {"activity": activity, "minutes": minutes, "weight_kg": weight, "met": met,
            "calories_kcal": round(kcal), "kcal_per_minute": round(kcal / minutes, 2),
            "formula": "MET × body weight (kg) × hours"}


# ---------------------------------------------------------------- shopping and accounts

_ORDERS = [
    ("2025-05-29", "Nordic Books", ["The Left Hand of Darkness (paperback)"], 12.99, "delivered"),
    ("2025-05-24", "HomeGoods Online", ["Cast-iron skillet 26 cm", "Silicone spatula"], 46.40, "delivered"),
    ("2025-05-18", "TechHub", ["USB-C charger 65 W"], 39.90, "delivered"),
    ("2025-05-11", "GreenLeaf Grocery", ["Weekly vegetable box", "Oat milk x6", "Coffee beans 1 kg"], 58.75, "delivered"),
    ("2025-05-03", "RunFast", ["Trail running shoes"], 119.00, "returned"),
    ("2025-04-26", "TechHub", ["Wireless mouse", "Mouse pad"], 34.80, "delivered"),
    ("2025-04-15", "PetWorld", ["Dry cat food 4 kg"], 27.49, "delivered"),
    ("2025-04-02", "Nordic Books", ["Atlas of Remote Islands", "Notebook A5"], 31.50, "delivered"),
    ("2025-03-21", "HomeGoods Online", ["LED desk lamp"], 44.00, "delivered"),
    ("2025-03-09", "GreenLeaf Grocery", ["Weekly vegetable box", "Olive oil 1 l"], 41.20, "delivered"),
    ("2025-02-27", "StyleCo", ["Wool scarf"], 29.95, "delivered"),
    ("2025-02-14", "FlowerPost", ["Bouquet of tulips"], 35.00, "delivered"),
    ("2025-01-30", "TechHub", ["Noise-cancelling headphones"], 249.00, "delivered"),
    ("2025-01-12", "PetWorld", ["Cat scratching post"], 54.99, "cancelled"),
    ("2024-12-20", "Nordic Books", ["Gift card"], 50.00, "delivered"),
]


@tool("get_order_history")
def get_order_history(a: dict) -> dict:
    limit = int(a.get("limit") or 10)
    if not 1 <= limit <= 100:
        raise BadInput("limit must be between 1 and 100")
    orders = [{"order_id": f"ORD-{_digest('order', day, shop) % 9000000 + 1000000}", "date": day, "merchant": shop,
               "items": items, "total": total, "currency": "EUR", "status": status}
              for day, shop, items, total, status in _ORDERS[:limit]]
    return {"orders": orders, "returned": len(orders), "total_orders_on_account": len(_ORDERS),
            "sum_of_returned_orders": round(sum(o["total"] for o in orders), 2), "currency": "EUR"}


# ---------------------------------------------------------------- messaging, calendar and files

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", re.IGNORECASE)


@tool("start_video_call")
def start_video_call(a: dict) -> dict:
    people = [str(p).strip() for p in a["participants"] if str(p).strip()]
    if not people:
        raise BadInput("participants must name at least one person")
    title = str(a.get("title") or "Video call").strip()
    code = hashlib.sha256("|".join([title, *people]).encode()).hexdigest()
    room = f"{code[:3]}-{code[3:7]}-{code[7:10]}"
    return {"call_id": f"call-{code[:10]}", "title": title, "join_url": f"https://meet.toolatlas.example/{room}",
            "dial_in": f"+1 555 01{int(code[10:14], 16) % 100:02d} PIN {int(code[14:20], 16) % 1000000:06d}",
            "status": "created", "starts": "now", "host": "you",
            "invitations": [{"participant": p, "status": "invited",
                             "via": "email" if _EMAIL.fullmatch(p) else "contact"} for p in people]}


@tool("send_push_notification")
def send_push_notification(a: dict) -> dict:
    title, body = _text(a["title"], "title"), _text(a["body"], "body")
    if len(title) > 120 or len(body) > 1000:
        raise BadInput("title must be at most 120 characters and body at most 1000")
    return {"notification_id": _ident("push", title, body), "status": "delivered", "title": title, "body": body,
            "devices": [{"device": "Phone (iOS)", "status": "delivered"},
                        {"device": "Laptop (browser)", "status": "delivered"}],
            "sent_at": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M")}


@tool("reply_to_email")
def reply_to_email(a: dict) -> dict:
    message_id, body = _text(a["message_id"], "message_id"), _text(a["body"], "body")
    reply_all = bool(a.get("reply_all", False))
    thread = ["sender"] + (["2 other recipients"] if reply_all else [])
    return {"reply_id": _ident("msg", message_id, body, reply_all), "in_reply_to": message_id, "status": "sent",
            "reply_all": reply_all, "recipients": thread, "subject_prefix": "Re:",
            "body_preview": body[:140], "body_characters": len(body),
            "sent_at": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M")}


@tool("update_calendar_event")
def update_calendar_event(a: dict) -> dict:
    event_id = _text(a["event_id"], "event_id")
    changes: dict[str, Any] = {}
    start = _parse_moment(a["start"], "start") if a.get("start") else None
    end = _parse_moment(a["end"], "end") if a.get("end") else None
    if start is not None:
        changes["start"] = start.isoformat(timespec="minutes")
    if end is not None:
        changes["end"] = end.isoformat(timespec="minutes")
    if start is not None and end is not None and end <= start:
        raise BadInput("end must be after start")
    if start is not None and end is None:
        end = start + timedelta(minutes=30 * (1 + _digest(event_id) % 4))  # keeps the event's length
        changes["end"] = end.isoformat(timespec="minutes")
    if a.get("title"):
        changes["title"] = str(a["title"]).strip()
    if not changes:
        raise BadInput("nothing to update: give a new start, end or title")
    return {"event_id": event_id, "status": "updated", "changes": changes,
            "updated_fields": sorted(changes), "attendees_notified": 1 + _digest(event_id, "att") % 4,
            "updated_at": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M")}


@tool("share_calendar")
def share_calendar(a: dict) -> dict:
    email = _text(a["email"], "email")
    if not _EMAIL.fullmatch(email):
        raise BadInput(f"{email!r} is not an email address")
    permission = a.get("permission") or "view"
    rights = (["see events and details"] if permission == "view"
              else ["see events and details", "create, edit and delete events"])
    return {"share_id": _ident("share", email.lower(), permission), "calendar": "primary",
            "shared_with": email.lower(), "permission": permission, "grants": rights, "status": "invitation_sent",
            "shared_at": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M")}


_EDITORS = ("Ana Silva", "Tom Becker", "Priya Nair", "you", "Maria Rossi", "Kenji Sato")
_EDIT_NOTES = ("created the file", "updated figures", "fixed typos", "added a section", "restored formatting",
               "updated totals", "added comments", "renamed headings")


@tool("file_version_history")
def file_version_history(a: dict) -> dict:
    file_id = _text(a["file_id"], "file_id")
    count = 3 + _digest(file_id, "count") % 4
    when = REFERENCE_NOON - timedelta(days=2 + _digest(file_id, "age") % 60 + 6 * count)
    size = 8_000 + _digest(file_id, "size") % 200_000
    versions = []
    for n in range(1, count + 1):
        when += timedelta(days=1 + _digest(file_id, n, "gap") % 9, minutes=_digest(file_id, n, "min") % 600)
        size += (_digest(file_id, n, "grow") % 9000) - 2000 if n > 1 else 0
        versions.append({"version": n, "modified_at": when.strftime("%Y-%m-%dT%H:%M"),
                         "modified_by": _EDITORS[_digest(file_id, n, "who") % len(_EDITORS)],
                         "size_bytes": size,
                         "change": _EDIT_NOTES[0] if n == 1 else _EDIT_NOTES[1 + _digest(file_id, n) % (len(_EDIT_NOTES) - 1)]})
    versions.reverse()
    return {"file_id": file_id, "current_version": count, "last_modified_by": versions[0]["modified_by"],
            "last_modified_at": versions[0]["modified_at"], "versions": versions}


@tool("upload_file")
def upload_file(a: dict) -> dict:
    path = _text(a["path"], "path")
    name = re.split(r"[\\/]", path.rstrip("/\\"))[-1]
    if not name:
        raise BadInput(f"{path!r} does not name a file")
    folder = "/" + str(a.get("folder") or "").strip().strip("/")
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    file_id = _ident("file", path, folder)
    return {"file_id": file_id, "name": name, "folder": folder, "source_path": path, "mime_type": mime,
            "size_bytes": 2_000 + _digest(path, "size") % 4_000_000, "status": "uploaded",
            "url": f"https://files.toolatlas.example/{file_id}", "uploaded_at": REFERENCE_NOON.strftime("%Y-%m-%dT%H:%M")}


# ---------------------------------------------------------------- text and media

_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


def _syllables(word: str) -> int:
    word = word.lower().strip("'’")
    if len(word) <= 3:
        return 1
    word = re.sub(r"(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$", lambda m: m[0][0], word)
    return max(1, len(_VOWEL_GROUPS.findall(word)))


@tool("readability_score")
def readability_score(a: dict) -> dict:
    text = _text(a["text"], "text")
    words = re.findall(r"[A-Za-zÀ-ÿ'’]+", text)
    if not words:
        raise BadInput("text has no words")
    sentences = max(1, len([s for s in re.split(r"[.!?]+", text) if re.search(r"\w", s)]))
    syllables = sum(_syllables(w) for w in words)
    wps, spw = len(words) / sentences, syllables / len(words)
    ease = 206.835 - 1.015 * wps - 84.6 * spw
    grade = 0.39 * wps + 11.8 * spw - 15.59
    level = ("very easy" if ease >= 90 else "easy" if ease >= 80 else "fairly easy" if ease >= 70 else "plain English"
             if ease >= 60 else "fairly difficult" if ease >= 50 else "difficult" if ease >= 30 else "very difficult")
    return {"flesch_kincaid_grade": round(grade, 1), "flesch_reading_ease": round(ease, 1), "level": level,
            "words": len(words), "sentences": sentences, "syllables": syllables,
            "avg_words_per_sentence": round(wps, 2), "avg_syllables_per_word": round(spw, 2)}


_CONTRACTIONS = {"don't": "do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot", "won't": "will not",
                 "isn't": "is not", "aren't": "are not", "wasn't": "was not", "weren't": "were not", "i'm": "I am",
                 "it's": "it is", "that's": "that is", "we're": "we are", "you're": "you are", "they're": "they are",
                 "i'll": "I will", "we'll": "we will", "i've": "I have", "we've": "we have", "couldn't": "could not",
                 "shouldn't": "should not", "wouldn't": "would not", "let's": "let us", "there's": "there is"}
_INFORMAL = {"hi": "Hello", "hey": "Hello", "thanks": "thank you", "thx": "thank you", "gonna": "going to",
             "wanna": "want to", "gotta": "have to", "yeah": "yes", "yep": "yes", "nope": "no", "ok": "agreed",
             "okay": "agreed", "asap": "as soon as possible", "fyi": "for your information", "stuff": "material",
             "a lot of": "many", "get back to": "respond to", "check out": "review", "kids": "children",
             "pretty": "quite", "awesome": "excellent", "cool": "good"}
_FILLERS = (r"\bi think that\b\s*", r"\bi just wanted to\b\s*", r"\bbasically\b,?\s*", r"\bactually\b,?\s*",
            r"\breally\b\s*", r"\bvery\b\s*", r"\bjust\b\s*", r"\bquite\b\s*", r"\bkind of\b\s*", r"\bsort of\b\s*",
            r"\bplease note that\b\s*", r"\bit is important to note that\b\s*")
_WORDY = {"in order to": "to", "at this point in time": "now", "due to the fact that": "because",
          "in the event that": "if", "a large number of": "many", "at the present time": "now",
          "for the purpose of": "for", "with regard to": "about", "in spite of the fact that": "although"}


def _sub_words(text: str, table: dict[str, str]) -> tuple[str, int]:
    count = 0
    for old, new in table.items():
        pattern = re.compile(rf"\b{re.escape(old)}\b", re.IGNORECASE)

        def repl(m: re.Match, new: str = new) -> str:
            return new[0].upper() + new[1:] if m[0][0].isupper() else new

        text, n = pattern.subn(repl, text)
        count += n
    return text, count


def _sentences_tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.!?;:])", r"\1", text)
    text = re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m[1] + m[2].upper(), text)
    return text if not text or text[-1] in ".!?" else text + "."


@tool("rewrite_text")
def rewrite_text(a: dict) -> dict:
    text, tone = _text(a["text"], "text"), a["tone"]
    if tone == "formal":
        out, n1 = _sub_words(text.replace("’", "'"), _CONTRACTIONS)
        out, n2 = _sub_words(out, _INFORMAL)
        out = re.sub(r"!+", ".", out)
        out, changes = _sentences_tidy(out), n1 + n2
    elif tone == "friendly":
        reverse = {v.lower(): k for k, v in _CONTRACTIONS.items() if not v.startswith("I ")}
        out, changes = _sub_words(text, reverse)
        out = _sentences_tidy(out)
        if not re.match(r"(hi|hello|hey)\b", out, re.IGNORECASE):
            out, changes = "Hi! " + out, changes + 1
        if not re.search(r"thanks|thank you", out, re.IGNORECASE):
            out, changes = out + " Thanks so much!", changes + 1
    else:
        out, changes = _sub_words(text, _WORDY)
        for pattern in _FILLERS:
            out, n = re.subn(pattern, "", out, flags=re.IGNORECASE)
            changes += n
        out = _sentences_tidy(out)
    return {"tone": tone, "original": text, "rewritten": out, "edits": changes,
            "words_before": len(text.split()), "words_after": len(out.split())}


# name: biography, genres, top tracks, active years, origin
_ARTISTS = {
    "nina simone": ("American singer, songwriter, pianist and civil-rights activist (1933–2003), born Eunice "
                    "Kathleen Waymon in Tryon, North Carolina. Classically trained, she blended jazz, blues, gospel "
                    "and folk, and recorded protest songs such as 'Mississippi Goddam'.",
                    ["jazz", "blues", "soul", "gospel", "folk"],
                    ["Feeling Good", "I Put a Spell on You", "My Baby Just Cares for Me", "Sinnerman",
                     "Ain't Got No, I Got Life"], "1954–2003", "United States"),
    "miles davis": ("American trumpeter, bandleader and composer (1926–1991), central to bebop, cool jazz, hard bop, "
                    "modal jazz and jazz fusion; 'Kind of Blue' (1959) is among the best-selling jazz albums.",
                    ["jazz", "cool jazz", "modal jazz", "jazz fusion"],
                    ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Bitches Brew"], "1944–1991",
                    "United States"),
    "the beatles": ("English rock band formed in Liverpool in 1960: John Lennon, Paul McCartney, George Harrison and "
                    "Ringo Starr; the best-selling music act of all time.", ["rock", "pop", "psychedelic rock"],
                    ["Hey Jude", "Let It Be", "Yesterday", "Come Together", "Here Comes the Sun"], "1960–1970",
                    "United Kingdom"),
    "queen": ("British rock band formed in London in 1970: Freddie Mercury, Brian May, Roger Taylor and John Deacon.",
              ["rock", "glam rock", "hard rock"],
              ["Bohemian Rhapsody", "Don't Stop Me Now", "Another One Bites the Dust", "Somebody to Love",
               "We Will Rock You"], "1970–present", "United Kingdom"),
    "david bowie": ("English singer-songwriter and actor (1947–2016), known for reinvention through personas such as "
                    "Ziggy Stardust.", ["rock", "art rock", "glam rock", "pop"],
                    ["Heroes", "Space Oddity", "Life on Mars?", "Starman", "Let's Dance"], "1962–2016",
                    "United Kingdom"),
    "bob dylan": ("American singer-songwriter (born 1941), awarded the 2016 Nobel Prize in Literature.",
                  ["folk", "rock", "country", "blues"],
                  ["Like a Rolling Stone", "Blowin' in the Wind", "The Times They Are a-Changin'",
                   "Knockin' on Heaven's Door", "Mr. Tambourine Man"], "1959–present", "United States"),
    "radiohead": ("English rock band formed in Abingdon in 1985, led by Thom Yorke; albums include 'OK Computer' "
                  "and 'Kid A'.", ["alternative rock", "art rock", "electronica"],
                  ["Creep", "Karma Police", "No Surprises", "Paranoid Android", "Everything in Its Right Place"],
                  "1985–present", "United Kingdom"),
    "abba": ("Swedish pop group formed in Stockholm in 1972: Agnetha Fältskog, Björn Ulvaeus, Benny Andersson and "
             "Anni-Frid Lyngstad; won Eurovision 1974 with 'Waterloo'.", ["pop", "europop", "disco"],
             ["Dancing Queen", "Mamma Mia", "Waterloo", "The Winner Takes It All", "Take a Chance on Me"],
             "1972–1982, 2016–present", "Sweden"),
    "taylor swift": ("American singer-songwriter (born 1989) whose music moved from country to pop and indie folk.",
                     ["pop", "country", "indie folk"],
                     ["Shake It Off", "Blank Space", "Anti-Hero", "Love Story", "Cruel Summer"], "2004–present",
                     "United States"),
    "beyoncé": ("American singer, songwriter and producer (born 1981), first famous with Destiny's Child.",
                ["R&B", "pop", "hip hop", "country"],
                ["Crazy in Love", "Halo", "Single Ladies (Put a Ring on It)", "Formation", "Texas Hold 'Em"],
                "1990–present", "United States"),
    "adele": ("English singer-songwriter (born 1988) known for the albums '19', '21', '25' and '30'.",
              ["pop", "soul", "pop ballads"],
              ["Rolling in the Deep", "Someone like You", "Hello", "Skyfall", "Easy on Me"], "2006–present",
              "United Kingdom"),
    "daft punk": ("French electronic duo formed in Paris in 1993: Thomas Bangalter and Guy-Manuel de Homem-Christo; "
                  "split in 2021.", ["house", "French house", "electronic", "disco"],
                  ["Get Lucky", "One More Time", "Around the World", "Harder, Better, Faster, Stronger",
                   "Instant Crush"], "1993–2021", "France"),
    "amália rodrigues": ("Portuguese fadista and actress (1920–1999), the 'Queen of Fado'.", ["fado"],
                         ["Estranha Forma de Vida", "Barco Negro", "Uma Casa Portuguesa", "Povo Que Lavas no Rio",
                          "Lágrima"], "1939–1999", "Portugal"),
}
_ARTIST_ALIASES = {"beatles": "the beatles", "beyonce": "beyoncé", "amalia rodrigues": "amália rodrigues",
                   "bowie": "david bowie", "dylan": "bob dylan", "swift": "taylor swift"}


@tool("get_artist_info")
def get_artist_info(a: dict) -> dict:
    key = _key(a["artist"]).replace("’", "'")
    name = _ARTIST_ALIASES.get(key, key)
    if name not in _ARTISTS:
        name = next((n for n in _ARTISTS if n in key or (len(key) > 3 and key in n)), None)
    if name is None:
        raise BadInput(f"no artist data for {a['artist']!r}; this offline demo knows: {', '.join(sorted(_ARTISTS))}")
    bio, genres, tracks, years, origin = _ARTISTS[name]
    display = "ABBA" if name == "abba" else " ".join(w if w == "the" and i else w.capitalize()
                                                      for i, w in enumerate(name.split()))
    return {"artist": display, "biography": bio, "genres": genres, "top_tracks": tracks,
            "years_active": years, "origin": origin}


# name, country code, country, genres, homepage
_STATIONS = [
    ("FIP", "FR", "France", ["eclectic", "jazz", "world", "rock"], "https://www.radiofrance.fr/fip"),
    ("FIP Jazz", "FR", "France", ["jazz"], "https://www.radiofrance.fr/fip/radio-jazz"),
    ("TSF Jazz", "FR", "France", ["jazz"], "https://www.tsfjazz.com"),
    ("Radio Nova", "FR", "France", ["hip hop", "electronic", "world"], "https://www.nova.fr"),
    ("France Musique", "FR", "France", ["classical", "jazz"], "https://www.radiofrance.fr/francemusique"),
    ("WBGO", "US", "United States", ["jazz"], "https://www.wbgo.org"),
    ("KEXP", "US", "United States", ["indie", "alternative", "rock"], "https://www.kexp.org"),
    ("Radio Paradise", "US", "United States", ["eclectic", "rock", "indie"], "https://radioparadise.com"),
    ("SomaFM Groove Salad", "US", "United States", ["ambient", "electronic", "chillout"], "https://somafm.com/groovesalad/"),
    ("BBC Radio 3", "GB", "United Kingdom", ["classical", "jazz"], "https://www.bbc.co.uk/sounds/play/live:bbc_radio_three"),
    ("Jazz FM", "GB", "United Kingdom", ["jazz", "soul", "blues"], "https://www.jazzfm.com"),
    ("NTS Radio", "GB", "United Kingdom", ["eclectic", "electronic", "experimental"], "https://www.nts.live"),
    ("Radio Swiss Jazz", "CH", "Switzerland", ["jazz"], "https://www.radioswissjazz.ch"),
    ("Radio Swiss Classic", "CH", "Switzerland", ["classical"], "https://www.radioswissclassic.ch"),
    ("Antena 2", "PT", "Portugal", ["classical", "jazz"], "https://www.rtp.pt/antena2"),
    ("Radio Eins", "DE", "Germany", ["rock", "pop", "indie"], "https://www.radioeins.de"),
    ("Klassik Radio", "DE", "Germany", ["classical", "film scores"], "https://www.klassikradio.de"),
    ("Radio 3 (RNE)", "ES", "Spain", ["indie", "alternative", "rock"], "https://www.rtve.es/radio/radio3/"),
]
_COUNTRY_CODES = {"france": "FR", "united states": "US", "usa": "US", "us": "US", "america": "US",
                  "united kingdom": "GB", "uk": "GB", "britain": "GB", "england": "GB", "switzerland": "CH",
                  "portugal": "PT", "germany": "DE", "spain": "ES", "french": "FR", "german": "DE", "british": "GB"}


@tool("radio_station_search")
def radio_station_search(a: dict) -> dict:
    genre = _key(a.get("genre") or "")
    country_text = _key(a.get("country") or "")
    code = _COUNTRY_CODES.get(country_text, country_text.upper()) if country_text else None
    hits = [{"name": name, "country": country, "country_code": cc, "genres": genres, "homepage": url,
             "bitrate_kbps": 128 if _digest(name) % 2 else 192, "codec": "MP3" if _digest(name) % 3 else "AAC"}
            for name, cc, country, genres, url in _STATIONS
            if (not genre or any(genre.rstrip("s") in g or g in genre for g in genres)) and (not code or cc == code)]
    return {"genre": a.get("genre"), "country": a.get("country"), "stations": hits, "count": len(hits)}
