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
    invite join publish print scan resize crop compress encrypt decrypt sign retrieve provide explore obtain
    determine evaluate assess display suggest gather assist""".split())
# Words that mark a sentence as a request even without an action verb ("I need …", "please …").
REQUEST_CUES = frozenset({"please", "need", "want"})
_MODAL_YOU = re.compile(r"\b(?:can|could|would|will)\s+you\b", re.IGNORECASE)

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


# Auxiliaries ask only when they open a sentence ("Is it raining?"), not in "today is Monday".
_AUX = QUESTION - {"what", "what's", "whats", "how", "which", "who", "where", "when", "any", "whether"}
# Words that point back at an earlier sentence ("which ones", "on that day", "the weather there").
ANAPHORA = frozenset({"it", "its", "them", "they", "there", "that", "this", "these", "those", "ones", "such",
                      "same", "above"})
# Words that ask without saying what for: a sentence made of these needs the sentences before it.
GENERIC = frozenset("""option options one ones available suggestion suggestions suggest something anything some any
    help search find check look get show tell give info information detail details possible recommend
    recommendation recommendations please thanks thank know let see like want need could would can fit
    description place places thing things kind sort good best nice""".split())
# Words that only link requests ("Additionally, …", "After that, …"): a piece made of them is dropped.
CONNECTIVES = frozenset("""additionally finally lastly afterward afterwards after that then also next first firstly
    second secondly third moreover furthermore besides meanwhile and so plus""".split())
# A period after these does not end a sentence ("Mr. X", "e.g. a list").
_ABBREV = re.compile(r"\b(?:mr|mrs|ms|dr|st|vs|etc|e\.g|i\.e|no|approx|jr|sr|inc|ltd|co)\.$", re.IGNORECASE)


def _asks(text: str) -> bool:
    words = [w.lower() for w in _WORD.findall(text)]
    if "?" in text or (set(words) & (ACTION_VERBS | REQUEST_CUES | (QUESTION - _AUX))) or _MODAL_YOU.search(text):
        return True
    return bool(words) and words[0] in _AUX


def _needs_context(text: str) -> bool:
    """A request that names nothing by itself ("Could you search for some options?")."""
    words = {w.lower() for w in _WORD.findall(text)}
    content = [t for t in terms(text) if t not in GENERIC and t not in ACTION_VERBS]
    return bool(words & ANAPHORA) or len(content) < 2


def _strip_lead(part: str) -> str:
    words = part.split()
    while len(words) > 1 and words[0].lower().strip(",") in {"then", "also", "and", "so", "plus", "finally"}:
        words.pop(0)
    return " ".join(words).strip(STRIP)


def sentences_of(text: str) -> list[str]:
    """Sentences, without breaking after abbreviations such as "Mr." or "e.g."."""
    out: list[str] = []
    for piece in _SENTENCE.split(text):
        if out and _ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return [x.strip() for x in out if x and x.strip(STRIP)]


def _requests(sentence_text: str) -> list[str]:
    """A sentence cut where a new request starts; a piece that asks for nothing ("…, and rat hemoglobin")
    continues the list before it and is glued back."""
    pieces: list[str] = []
    last = 0
    for m in _SPLIT.finditer(sentence_text):
        pieces.append(sentence_text[last:m.start()])
        pieces.append(m.group(0))
        last = m.end()
    pieces.append(sentence_text[last:])
    parts: list[str] = []
    for i in range(0, len(pieces), 2):
        text = pieces[i]
        if not text.strip(STRIP) or {w.lower() for w in _WORD.findall(text)} <= CONNECTIVES:
            continue
        if parts and not _asks(text):
            parts[-1] = parts[-1] + pieces[i - 1] + text
        else:
            parts.append(text)
    return [_strip_lead(p) for p in parts if p.strip(STRIP)]


def split_intents(query: str) -> list[str]:
    """Re-Invoke §3.2 by rule. Sentences that ask for something are kept and background sentences dropped
    (when any sentence asks), except that a request naming nothing by itself ("Which ones are available?",
    "the weather there") keeps the background sentences just before it. Kept sentences are split where a new
    request starts ("and find …", "then …", ";"); list continuations stay with their request."""
    sentences = sentences_of(query)
    asking = [_asks(x) for x in sentences]
    parts: list[str] = []
    background: list[str] = []
    for text, asks in zip(sentences, asking, strict=True):
        if any(asking) and not asks:
            background.append(text.strip(STRIP))
            continue
        requests = _requests(text)
        if background and requests and _needs_context(requests[0]):
            requests[0] = ". ".join([*background, requests[0]])
        parts.extend(requests)
        background = []
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
