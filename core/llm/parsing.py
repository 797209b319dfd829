"""Tolerant parsing of model answers: ``{BEGIN} … {END}`` blocks, JSON objects, yes/no verdicts, scores.

Small models wrap answers in markdown, forget the closing marker, add labels and prose. Everything
that can be read is read; everything that cannot raises :class:`LLMBadResponse` (and nothing else),
so a caller records the failure and keeps the parent (SPEC "The LLM layer": parsing is tolerant).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from core.llm.base import LLMBadResponse

_BLOCK = re.compile(r"\{\s*BEGIN\s*\}(.*?)(?=\{\s*(?:END|BEGIN)\s*\}|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_MARKER = re.compile(r"\{\s*(?:BEGIN|END)\s*\}", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(?:\*\*)?(?:pseudo[- ]?tool\s+)?(?:tool\s+)?(?:description|tool)\s*#?\d*\s*(?:\*\*)?"
                    r"\s*[:\-–]\s*(?:\*\*)?", re.IGNORECASE)
_FENCE = re.compile(r"```[\w+-]*[ \t]*(?=\r?\n)|```")  # a language tag only before a newline
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MAX_CHARS = 200_000  # far beyond any answer we ask for; bounds the work on a runaway reply

_TRUE = {"yes", "true", "sufficient", "enough", "y"}
_FALSE = {"no", "false", "insufficient", "not", "n"}


def _text(text: Any) -> str:
    if not isinstance(text, str):
        raise LLMBadResponse(f"the answer is not text ({type(text).__name__})")
    return text[:_MAX_CHARS]


def _clean(text: str) -> str:
    text = _FENCE.sub(" ", text)
    text = _BULLET.sub("", text.strip())
    text = _LABEL.sub("", text)
    return re.sub(r"\s+", " ", text).strip().strip("\"'`*").strip()


def parse_blocks(text: str) -> list[str]:
    """Every non-empty ``{BEGIN}…{END}`` block, cleaned, in order, without duplicates.

    Markers are case-insensitive; a block left open (no ``{END}``) runs to the next ``{BEGIN}`` or the
    end of the answer; markdown fences and leading "Description:" labels are removed.
    """
    text = _text(text)
    out: list[str] = []
    for match in _BLOCK.finditer(text):
        block = _clean(match.group(1))
        if block and block not in out:
            out.append(block)
    return out


def parse_single(text: str) -> str | None:
    """The first block, or — when the model forgot the markers — the whole cleaned answer; None if empty."""
    blocks = parse_blocks(text)
    if blocks:
        return blocks[0]
    cleaned = _clean(_STRAY_MARKER.sub(" ", _text(text)))
    return cleaned or None


def _objects(text: str):
    """Candidate JSON objects: each ``{`` decoded in turn; the first that parses is the answer's object."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            yield obj
        start = text.find("{", start + 1)


def _relaxed(text: str) -> str:
    # The two slips small models make most: trailing commas and Python-style quotes.
    text = re.sub(r",\s*([}\]])", r"\1", text)
    return text.replace("'", '"') if '"' not in text else text


def _type_ok(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False  # True is an int to Python, never to a JSON schema
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, kinds)


def parse_json_object(text: str, required_fields: Mapping[str, type | tuple[type, ...]] | None = None
                      ) -> dict[str, Any]:
    """The first JSON object in the answer, with ``required_fields`` present and of the given types.

    JSON inside ```json fences or surrounded by prose is found; an int is accepted for a float field.
    Raises :class:`LLMBadResponse` naming the missing or invalid field.
    """
    text = _text(text)
    obj = next(_objects(text), None)
    if obj is None:
        obj = next(_objects(_relaxed(text)), None)
    if obj is None:
        raise LLMBadResponse("no JSON object in the answer")
    for name, kind in (required_fields or {}).items():
        if name not in obj:
            raise LLMBadResponse(f"the JSON answer lacks field {name!r}")
        if not _type_ok(obj[name], kind):
            expected = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise LLMBadResponse(f"field {name!r} should be {expected}, not {type(obj[name]).__name__}")
        if isinstance(obj[name], int) and not isinstance(obj[name], bool) and kind is float:
            obj[name] = float(obj[name])
    return obj


def parse_bool(text: str) -> bool:
    """A yes/no verdict: the first yes-like or no-like word among the answer's first 30 words."""
    words = re.findall(r"[a-z]+", _text(text).lower())
    for w in words[:30]:
        if w in _TRUE:
            return True
        if w in _FALSE:
            return False
    raise LLMBadResponse("no yes/no verdict in the answer")


_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_FRACTION = re.compile(rf"({_NUMBER})\s*(?:/|out of)\s*({_NUMBER})", re.IGNORECASE)
_PERCENT = re.compile(rf"({_NUMBER})\s*%")
_PLAIN = re.compile(_NUMBER)


def parse_score(text: str, lo: float = 0.0, hi: float = 1.0) -> float:
    """A score in [lo, hi] from the answer's first number, clamped.

    For the unit range, "7/10", "7 out of 10" and "70%" are rescaled, and a bare number in (1, 10]
    is read as a ten-point score, since models often ignore the requested range.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise ValueError(f"lo must be below hi (got lo={lo!r}, hi={hi!r})")
    text = _text(text)
    unit = (lo, hi) == (0.0, 1.0)
    frac, pct, plain = _FRACTION.search(text), _PERCENT.search(text), _PLAIN.search(text)
    if plain is None:
        raise LLMBadResponse("no number in the answer")
    try:
        if unit and frac is not None and frac.start() == plain.start() and float(frac.group(2)) > 0:
            value = float(frac.group(1)) / float(frac.group(2))
        elif unit and pct is not None and pct.start() == plain.start():
            value = float(pct.group(1)) / 100.0
        else:
            value = float(plain.group())
            if unit and 1.0 < value <= 10.0:
                value /= 10.0
    except (ValueError, OverflowError):
        raise LLMBadResponse("unreadable number in the answer") from None
    if not math.isfinite(value):
        raise LLMBadResponse("the score is not a finite number")
    return min(hi, max(lo, value))
