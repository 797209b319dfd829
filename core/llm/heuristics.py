"""Text rules behind the offline operators: content terms, intent splitting, pseudo-tool phrasing,
clauses and tool-document parsing. Plain Python, no model."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.search.tokenize import tokenize

QUESTION = frozenset({"what", "what's", "whats", "how", "which", "who", "where", "when", "is", "are", "do", "does",
                      "did", "any", "was", "were", "whether"})
# Openers that carry no action: "please", "can you", "I need to", "then", "also"…
LEAD_FILLER = frozenset({"please", "can", "could", "would", "will", "you", "i", "we", "need", "want", "like", "to",
                         "me", "us", "help", "let", "just", "then", "also", "and", "so", "now", "kindly", "i'd",
                         "i'm", "id", "im", "hey", "hi", "ok", "okay", "quickly", "quick", "go", "ahead", "after",
                         "that", "finally", "first", "next", "plus"})
# Auxiliaries and pronouns dropped from the object of a question or request.
OBJECT_FILLER = frozenset({"is", "are", "it", "it's", "there", "there's", "my", "our", "your", "me", "us", "i",
                           "we", "you", "please", "be", "was", "were", "do", "does", "did", "will", "would",
                           "can", "could", "should", "right", "now"})
ACTION_VERBS = frozenset("""find give show book send make set put add convert translate tell check search get log
    play order remind schedule compute calculate solve estimate track create draft email text post cancel share
    summarise summarize read pull turn combine split recommend mark claim list look fetch download upload delete
    remove update edit write generate plan call buy sell pay transfer reserve start stop open close run analyse
    analyze compare count detect extract parse rename move copy sort filter notify subscribe lookup locate
    identify predict forecast measure monitor record save store sync validate verify rate review rank
    invite join publish print scan resize crop compress encrypt decrypt sign""".split())

# Words that are as often nouns ("weather and forecast", "price and rate"): never a split point.
_NOUN_TOO = frozenset("""forecast record rate review sign print store plan call post text order log list count sort
    filter scan run close open split mark turn play set make put start stop save move copy transfer email
    pay search check""".split())
_LEADS = r"(?:" + "|".join(sorted((ACTION_VERBS - _NOUN_TOO) | (QUESTION - {"is", "are", "do", "does", "did", "was",
                                  "were"}), key=len, reverse=True)) + r")\b"
_SPLIT = re.compile(r"(?:[.;?!]\s+|\s+—\s+|,?\s+and also\s+|,?\s+and then\s+|,?\s+then\s+|,\s+and\s+|,\s+also\s+|"
                    r"\s+and\s+(?=" + _LEADS + r")|,\s+(?=" + _LEADS + r"))", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.;?!])\s+|\s+—\s+")
_BACKGROUND = re.compile(r"^(?:i|i'm|i am|i've|i have|i'd|we|we're|we are|we've|my|our|it's|it is|there's|"
                         r"just|so|well|ok|okay|hi|hello|hey)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
STRIP = " ,.;:?!—-"


def terms(text: str) -> list[str]:
    """Content terms: tokenize's words without stray letters ("what's" → "s") or bare numbers."""
    return [t for t in tokenize(text) if len(t) > 1 and not t.isdigit()]


def sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    return (text[0].upper() + text[1:]) if text else text


def _asks(text: str) -> bool:
    words = {w.lower() for w in _WORD.findall(text)}
    return "?" in text or bool(words & (ACTION_VERBS | QUESTION))


def _strip_lead(part: str) -> str:
    words = part.split()
    while len(words) > 1 and words[0].lower().strip(",") in {"then", "also", "and", "so", "plus", "finally"}:
        words.pop(0)
    return " ".join(words).strip(STRIP)


def split_intents(query: str) -> list[str]:
    """Re-Invoke §3.2 by rule: sentences that ask for something are kept and background sentences dropped
    (when any sentence asks); kept sentences are split on conjunctions that start a new request ("and",
    "then", "also", ";"); leading connectives and fragments of pure background chatter are dropped."""
    sentences = [x.strip() for x in _SENTENCE.split(query) if x and x.strip(STRIP)]
    asking = [x for x in sentences if _asks(x)]
    parts: list[str] = []
    for piece in asking or sentences:
        parts.extend(_strip_lead(p) for p in _SPLIT.split(piece) if p and p.strip(STRIP))
    parts = [p for p in parts if terms(p)]
    if not parts:
        return [query.strip()] if query.strip() else []
    kept = [p for p in parts if _asks(p) or not _BACKGROUND.match(p)]
    return list(dict.fromkeys(kept or parts))


def third_person(verb: str) -> str:
    if verb in {"have", "be"}:
        return {"have": "has", "be": "is"}[verb]
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def describe(intent: str) -> str:
    """A pseudo-tool description from one intent's action and object words (FitText §4.2 by rule):
    "Tool that converts dollars to euros. Example request: convert 100 dollars to euros."."""
    words = _WORD.findall(intent)
    i = 0
    while i < len(words) - 1 and words[i].lower() in LEAD_FILLER:
        i += 1
    rest = words[i:]
    if not rest:
        return sentence(intent)
    head = rest[0].lower()
    if head in QUESTION:
        verb, obj = "looks up", rest[1:]
    elif head in ACTION_VERBS:
        verb, obj = third_person(head), rest[1:]
    else:
        verb, obj = "provides", rest
    obj_words = [w for w in obj if w.lower() not in OBJECT_FILLER and not w.isdigit()]
    while obj_words and obj_words[0].lower() in QUESTION:
        obj_words.pop(0)
    phrase = " ".join(obj_words) or " ".join(terms(intent)) or intent
    request = re.sub(r"\s+", " ", intent).strip(STRIP)
    return f"Tool that {verb} {phrase}. Example request: {request}."


def verb_phrase(clause: str) -> str:
    """A clause usable after "I need to": kept when it starts with an action verb ("Convert money" →
    "convert money", "Converts money" → "convert money"), else made the object of "get"."""
    words = clause.strip(STRIP).split()
    if not words:
        return "use this tool"
    head = words[0].lower()
    # "converts" / "searches" / "applies" back to the base form the templates need
    for base in (head, head[:-1], head[:-2], head[:-3] + "y"):
        if base in ACTION_VERBS:
            return " ".join([base, *words[1:]])
    return "get " + " ".join([head, *words[1:]])


def clauses(text: str) -> list[str]:
    return [c.strip(STRIP) for c in re.split(r"[.;:]\s+|,\s+|\s+and\s+", text) if c.strip(STRIP)]


def blurb_body(blurb: str) -> str:
    """The description part of a ``name: description`` blurb."""
    name, sep, rest = blurb.partition(":")
    return rest.strip() if sep and rest.strip() and " " not in name.strip() else blurb.strip()


@dataclass(frozen=True)
class ToolDoc:
    name: str
    description: str
    parameters: tuple[str, ...]
    enums: Mapping[str, tuple[str, ...]]


def parse_tool_doc(tool_doc: str) -> ToolDoc:
    """A tool document as OpenAI tool JSON (parameters and enum values read from the schema) or as the
    ``name: description Parameters: a, b`` text of ``core.models.tool_text``."""
    text = tool_doc.strip()
    if text.startswith("{"):
        try:
            obj: Any = json.loads(text)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            fn = obj.get("function") if isinstance(obj.get("function"), dict) else obj
            schema = fn.get("parameters") if isinstance(fn.get("parameters"), dict) else {}
            props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            enums = {p: tuple(str(v) for v in spec["enum"]) for p, spec in props.items()
                     if isinstance(spec, dict) and isinstance(spec.get("enum"), list) and spec["enum"]}
            return ToolDoc(str(fn.get("name", "")), str(fn.get("description", "")), tuple(map(str, props)), enums)
    head, _, params = text.partition(" Parameters:")
    name, sep, desc = head.partition(":")
    if not sep or " " in name.strip():
        name, desc = "", head
    return ToolDoc(name.strip(), desc.strip(), tuple(p.strip() for p in params.split(",") if p.strip()), {})
