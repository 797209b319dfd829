"""Tolerant parsing of model answers: ``{BEGIN} … {END}`` blocks, JSON objects, booleans, scores.

Every malformed answer raises :class:`LLMBadResponse` (and nothing else), so callers can
record it and carry on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from core.llm.base import LLMBadResponse

_BLOCK = re.compile(r"\{\s*BEGIN\s*\}(.*?)(?:\{\s*END\s*\}|\Z)", re.IGNORECASE | re.DOTALL)
_LABEL = re.compile(r"^\s*(?:pseudo-?tool\s+)?(?:description|tool)\s*\d*\s*[:\-]\s*", re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*[ \t]*\n|^```|```$")


def _clean(text: str) -> str:
    text = _FENCE.sub("", text.strip()).strip()
    text = _LABEL.sub("", text)
    return re.sub(r"\s+", " ", text).strip().strip('"').strip()


def parse_blocks(text: str) -> list[str]:
    """All non-empty ``{BEGIN}…{END}`` blocks, cleaned and de-duplicated (a missing final END is tolerated)."""
    if not isinstance(text, str):
        raise LLMBadResponse("answer is not text")
    out: list[str] = []
    for match in _BLOCK.finditer(text):
        block = _clean(match.group(1))
        if block and block not in out:
            out.append(block)
    return out


def parse_single(text: str) -> str | None:
    """The first block, or — when the model forgot the markers — the whole cleaned answer."""
    blocks = parse_blocks(text)
    if blocks:
        return blocks[0]
    cleaned = _clean(text)
    return cleaned or None


def _first_object(text: str) -> str:
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    raise LLMBadResponse("no JSON object in the answer")


def parse_json_object(text: str, required_fields: Mapping[str, type | tuple[type, ...]] | None = None) -> dict[str, Any]:
    """The first JSON object in the answer (fences and prose around it are ignored), with field checks."""
    if not isinstance(text, str):
        raise LLMBadResponse("answer is not text")
    try:
        obj = json.loads(_first_object(text))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise LLMBadResponse(f"invalid JSON in the answer: {exc}") from None
    if not isinstance(obj, dict):
        raise LLMBadResponse("the JSON answer is not an object")
    for name, kind in (required_fields or {}).items():
        if name not in obj:
            raise LLMBadResponse(f"the JSON answer lacks field {name!r}")
        if not isinstance(obj[name], kind):
            raise LLMBadResponse(f"field {name!r} has the wrong type ({type(obj[name]).__name__})")
    return obj


def parse_bool(text: str) -> bool:
    if not isinstance(text, str):
        raise LLMBadResponse("answer is not text")
    words = re.findall(r"[a-z]+", text.lower())
    for w in words[:20]:
        if w in {"yes", "true", "sufficient", "enough"}:
            return True
        if w in {"no", "false", "insufficient", "not"}:
            return False
    raise LLMBadResponse("no yes/no verdict in the answer")


def parse_score(text: str, lo: float = 0.0, hi: float = 1.0) -> float:
    """The first number in the answer, clamped to [lo, hi]; a 1–10 style score is rescaled when hi is 1."""
    if not isinstance(text, str):
        raise LLMBadResponse("answer is not text")
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    if not m:
        raise LLMBadResponse("no number in the answer")
    value = float(m.group())
    if hi == 1.0 and 1.0 < value <= 10.0:
        value /= 10.0
    return min(hi, max(lo, value))
