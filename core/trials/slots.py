"""Offline argument planning: fill a tool's parameters from the words of a query, no model.

The offline stand-in for GRETEL's Planner (§3.2.1 step 1, Alg. 1 line 1). It takes the typed values
:mod:`core.trials.query_values` reads out of the query (numbers, dates, times, places, codes,
currencies, units, quoted text) and hands them to parameters by schema type, enum, and what the
parameter's name and description say it holds. A required parameter it cannot fill is a planning
failure with a reason: exactly the signal GRETEL uses to demote a tool whose inputs the query cannot
supply. It is a heuristic and says so in the UI; a real planner is the ``plan_call`` role of a chat model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from core.models import Tool
from core.trials.query_values import BASES, HEX_LITERAL, NOT_PLACES, Found, after_number, read_query


@dataclass(frozen=True)
class PlanResult:
    """Arguments for one call, the required parameters left empty, and how each value was found."""

    arguments: Mapping[str, Any]
    missing: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.missing


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
        bases = [BASES[u] for u in found.units if u in BASES]
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
        named = m.group(1) if m and m.group(1).lower() not in NOT_PLACES else None
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
            if HEX_LITERAL.fullmatch(token) or re.fullmatch(r"[MDCLXVI]{2,}", token) or re.fullmatch(r"\d+", token):
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
