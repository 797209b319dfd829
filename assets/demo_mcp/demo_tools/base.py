"""Shared pieces of the demo tools: the registry, the reference date and lenient parsing of arguments."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

REFERENCE_DATE = date(2025, 6, 2)  # a Monday; the demo's "today"


class BadInput(ValueError):
    """An argument the tool cannot work with (reported as invalid parameters)."""


Handler = Callable[[dict[str, Any]], dict[str, Any]]
WORKING: dict[str, Handler] = {}


def tool(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        WORKING[name] = fn
        return fn

    return register

# ---------------------------------------------------------------- lenient parsing helpers


def _key(text: Any) -> str:
    return re.sub(r"[\s_\-.]+", " ", str(text).strip().lower()).strip()


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise BadInput(f"{name} must be a number")
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).replace(",", "").strip())
    except ValueError:
        raise BadInput(f"{name} must be a number, got {value!r}") from None


_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y", "%d.%m.%Y")


def parse_date(value: Any, name: str) -> date:
    """ISO dates first; also '14 March 1990', 'March 14, 1990', and a day and month without a year
    (read in the reference year)."""
    text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", str(value).strip()).replace(",", "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T.*", text):
        text = text[:10]
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            pass
    for fmt in ("%d %B", "%d %b", "%B %d", "%b %d"):
        try:
            parsed = datetime.strptime(text, fmt)
            return date(REFERENCE_DATE.year, parsed.month, parsed.day)
        except ValueError:
            pass
    if text.lower() == "today":
        return REFERENCE_DATE
    raise BadInput(f"{name} must be a date such as 2025-03-14, got {value!r}")


def _lookup(table: dict[str, Any], aliases: dict[str, str], value: Any, what: str) -> tuple[str, Any]:
    """Case-insensitive lookup that ignores a ', country' suffix."""
    key = _key(value)
    for candidate in (key, key.split(",")[0].strip(), _key(str(value).split(",")[0])):
        candidate = aliases.get(candidate, candidate)
        if candidate in table:
            return candidate, table[candidate]
    raise BadInput(f"no {what} data for {value!r}; this offline demo knows: {', '.join(sorted(table))}")


def _digest(*parts: Any) -> int:
    """A stable small hash: fixed pseudo-random details (prices, ids) that never change between runs."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:4], "big")
