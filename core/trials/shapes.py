"""What kind of value a parameter asks for, read from its schema as a person reads a form: ``format``,
``examples``, the parameter's name and its description ("IANA time-zone name", "ISO 4217 code").

Shared by the offline planner (:mod:`core.trials.slots`), which fills each shape from the request, and by
the trial verdict (:func:`core.trials.evidence.classify`), which checks that a slot asking for a name, code
or number did not get a free sentence. The shapes and the sentence test are our own definitions; GRETEL
(§3.2.1) only says the planner builds arguments from the query and the schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.trials import vocab

# Shapes whose value is prose by design: the request's own words are a fair value for them.
FREE_TEXT = "text"
SHAPES = ("timezone", "date", "datetime", "time", "month", "email", "url", "hostname", "ip", "phone", "iban",
          "currency", "language", "country", "nationality", "id", "code", "unit", "ticker", "place", "person",
          "expression", FREE_TEXT, "name")

_FORMATS = {"date": "date", "date-time": "datetime", "datetime": "datetime", "time": "time", "email": "email",
            "idn-email": "email", "uri": "url", "url": "url", "iri": "url", "uri-reference": "url",
            "hostname": "hostname", "idn-hostname": "hostname", "ipv4": "ip", "ipv6": "ip", "uuid": "id"}
_FREE_NAME = re.compile(r"(^|_)(text|texts|query|q|keywords?|search|terms|message|msg|body|content|description|desc|"
                        r"note|notes|comment|prompt|question|claim|reason|subject|task|instructions?|details|caption|"
                        r"bio|json_text|sql|html|markdown|old|new|input_text|sentence|paragraph)$")
_FREE_DESC = re.compile(r"free[- ]text|text to|the text|search terms|message body|natural[- ]language|a sentence|"
                        r"prose|paragraph", re.IGNORECASE)
# Tools that make something: a title or name they take is the user's own wording.
_CREATES = re.compile(r"^(create|add|new|post|send|schedule|draft|set|log|submit|make|write|compose|publish|start|"
                      r"book|save|record|note|remind|plan)", re.IGNORECASE)
_EG = re.compile(r"\be\.?\s?g\.?,?\s*:?\s*(.+?)(?:\)|$)", re.IGNORECASE)


def snake(name: str) -> str:
    """``targetLang`` → ``target_lang``; ``from-unit`` → ``from_unit``."""
    return re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()).strip("_")


def examples(spec: Mapping[str, Any]) -> list[str]:
    """The example values a schema gives: ``examples``, ``example``, and quoted items after "e.g." in the
    description ("IANA timezone name (e.g., 'America/New_York', 'Europe/London')")."""
    out: list[str] = []
    given = spec.get("examples")
    if isinstance(given, list):
        out += [str(v) for v in given if isinstance(v, str | int | float) and not isinstance(v, bool)]
    if isinstance(spec.get("example"), str | int | float) and not isinstance(spec.get("example"), bool):
        out.append(str(spec["example"]))
    m = _EG.search(str(spec.get("description", "")))
    if m:
        quoted = re.findall(r"['\"“‘]([^'\"”’]{1,60})['\"”’]", m.group(1))
        out += quoted or [w.strip(" .,;") for w in re.split(r",|\bor\b", m.group(1)) if 0 < len(w.strip(" .,;")) <= 40]
    return out


def _shape_of_examples(values: list[str]) -> str | None:
    """The shape every example shares, when they all share one."""
    if not values:
        return None
    tests = (
        ("timezone", lambda v: v in vocab.all_zones() and "/" in v),
        ("date", lambda v: re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)),
        ("datetime", lambda v: re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?\S*", v)),
        ("time", lambda v: re.fullmatch(r"\d{2}:\d{2}(:\d{2})?", v)),
        ("currency", lambda v: v in vocab.ISO_4217),
        ("language", lambda v: v in vocab.LANGUAGES.values() or v.lower() in vocab.LANGUAGES),
        ("email", lambda v: re.fullmatch(r"[\w.+-]+@[\w-]+\.[\w.]+", v)),
        ("url", lambda v: re.fullmatch(r"https?://\S+", v)),
    )
    for shape, test in tests:
        if all(test(v) for v in values):
            return shape
    return None


def slot_shape(name: str, spec: Mapping[str, Any], tool_name: str = "") -> str:
    """One of :data:`SHAPES` for a string parameter: its ``format`` first, then what its examples have in
    common, then its name and description; ``name`` (a short name or phrase) when nothing says more."""
    n = snake(name)
    desc = str(spec.get("description", "")).lower()
    fmt = str(spec.get("format", "")).lower()
    if fmt in _FORMATS:
        return _FORMATS[fmt]
    shown = _shape_of_examples(examples(spec))
    if shown is not None:  # the schema's own examples outrank a guess from the parameter's name
        return shown
    if re.search(r"\biana\b|time[- ]?zone|tz database|olson", desc) or re.search(r"(^|_)(timezone|time_zone|tz|zone)$", n):
        if not re.search(r"(^|_)(city|location|place)$", n):
            return "timezone"
    if re.search(r"citizen|nationality|passport", n):
        return "nationality"
    if re.search(r"(^|_)country", n) or re.search(r"iso 3166|country (name|code)", desc):
        return "country"
    if re.search(r"(^|_)(lang|language|locale)s?(_|$)|_lang$|lang$", n) or re.search(r"iso 639|language code", desc):
        return "language"
    if re.search(r"phone|mobile|(^|_)tel$|msisdn", n):
        return "phone"
    if re.search(r"(^|_)(url|uri|link|href|website|endpoint)$|_url$", n):
        return "url"
    if re.search(r"(^|_)(domain|host|hostname)$", n):
        return "hostname"
    if re.fullmatch(r"ip|ip_address|ipv4|ipv6|ip_addr", n):
        return "ip"
    if re.search(r"(^|_)iban$", n):
        return "iban"
    if re.search(r"e_?mail|(^|_)(recipients?|to|cc|bcc|addresses)$", n) and re.search(r"e-?mail|address", f"{n} {desc}"):
        return "email"
    if re.search(r"_id$|^id$|_ids$|reference|barcode|isbn|flight_number|tracking|order_number", n):
        return "id"
    if re.search(r"iso 4217|currency code", desc) or re.search(r"currency|^base$|^quote$", n):
        return "currency"
    if re.search(r"iata|airport|_code$|^code$", n):
        return "code"
    if re.search(r"unit|scale|measure|system|^from$|^to$|_base$", n):
        return "unit"
    if re.search(r"(^|_)month$", n):
        return "month"
    if re.search(r"datetime|_at$|(^|_)when$", n) or re.search(r"date and time|iso 8601", desc):
        return "datetime"
    if re.search(r"date|day$|check_in|check_out|^start|^end|birth|deadline", n):
        return "date"
    if re.search(r"time$|^time|hour|opens|closes", n) or re.search(r"\bhh:mm\b|24-hour", desc):
        return "time"
    if re.search(r"ticker|symbol|coin", n):
        return "ticker"
    if re.search(r"expr|equation|formula|^input$|expression", n):
        return "expression"
    if _CREATES.search(tool_name.split(".")[-1] if "." in tool_name else tool_name) and \
            re.fullmatch(r"title|name|summary|topic|label", n):
        return FREE_TEXT
    if _FREE_NAME.search(n) or _FREE_DESC.search(desc):
        return FREE_TEXT
    if re.search(r"city|location|place|region|resort|spot|address|destination|origin|station|port|stop|area|"
                 r"near|where|pickup|center|centre|venue", n):
        return "place"
    if re.search(r"(guest|last|first|full|user|person|contact|recipient|attendee|payee)_?name$|^name$|"
                 r"(^|_)(recipient|contact|attendee|participant|signer|assignee|invitee)s?$|^to$", n):
        return "person"
    return "name"


def wants_code(spec: Mapping[str, Any], name: str = "") -> bool:
    """Does the schema ask for a code (``fr``, ``JP``) rather than a name (``French``, ``Japan``)?"""
    desc = str(spec.get("description", "")).lower()
    if re.search(r"(^|_)code$", snake(name)) or re.search(r"\bcode\b|iso[ -]?(639|3166)|alpha-?2|two-letter", desc):
        return not re.search(r"\bname\b", desc)
    ex = examples(spec)
    if ex and all(re.fullmatch(r"[A-Za-z]{2,3}", v) for v in ex):
        return True
    pattern = str(spec.get("pattern", ""))
    return bool(pattern) and re.search(r"\{2\}|\{2,3\}|\{3\}", pattern) is not None


_SENTENCE_CUES = re.compile(r"\b(?:how|what|which|why|could you|can you|please|i'm|i am|is it|do i|should i)\b",
                            re.IGNORECASE)


def looks_like_sentence(value: Any) -> bool:
    """Is ``value`` a free sentence rather than a name, code or number? Our rule: more than six words, or a
    question mark, or four or more words with a question or request cue ("how", "could you", "I'm")."""
    if not isinstance(value, str):
        return False
    words = value.split()
    if len(words) > 6 or "?" in value:
        return True
    return len(words) >= 4 and _SENTENCE_CUES.search(value) is not None


def is_free_text(name: str, spec: Mapping[str, Any], tool_name: str = "") -> bool:
    """Does this parameter take prose (a message, a search query, text to work on)?"""
    if not isinstance(spec, Mapping):
        return True
    if spec.get("type") not in (None, "string") or spec.get("enum"):
        return False
    return slot_shape(name, spec, tool_name) == FREE_TEXT
