"""Plain-text evidence about two tools, used by the offline judge and shown to reviewers: how their names
compare, which actions and objects each names that the other never mentions, and how their required
parameters line up. No model involved."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.models import Tool

# Verbs that only say "give me something": names differing only in these still do the same job.
GENERIC_VERBS = frozenset("""get fetch find search retrieve lookup look query read show list view obtain return
    calculate calc compute estimate determine check""".split())
# Verbs that change the world or transform data: two names with different ones do different jobs.
ACTIONS = frozenset("""add create insert new make post put set update edit modify patch delete remove clear cancel
    send schedule draft save store upload download reverse forward encode decode encrypt decrypt convert
    translate compress decompress book reserve buy sell pay transfer start stop pause resume open close lock
    unlock enable disable follow unfollow subscribe unsubscribe archive restore rename move copy sort filter
    merge split join leave invite approve reject sign verify validate generate summarize summarise""".split())
_NOISE = frozenset({"the", "a", "an", "of", "for", "to", "by", "in", "on", "and", "or", "with", "from", "api",
                    "tool", "func", "function", "v1", "v2", "info", "data", "details", "detail"})


def name_tokens(name: str) -> list[str]:
    """``fetchCurrentWeather`` / ``weather.current`` / ``get_weather`` → lower-case word tokens."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name))
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t and t not in _NOISE]


_INVARIANT = frozenset({"news", "series", "species", "status", "analysis", "this", "gas"})
_DERIVED = ("ization", "isation", "ation", "ition", "ion", "ize", "ise", "ing", "ed", "er", "or")


def _stem(word: str) -> str:
    """Crude folding of plurals, tenses and derived nouns onto one root, enough to match "recipes" with
    "recipe", "converter" with "convert", "factorization" with "factorize" and "definition" with "define".
    Both sides of every comparison go through it, so an odd root ("weath") still matches itself."""
    if word.isdigit() or word in _INVARIANT:
        return word
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith(("sses", "xes", "ches", "shes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    changed = True
    while changed:
        changed = False
        for suffix in _DERIVED:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word, changed = word[: -len(suffix)], True
                break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


# Verbs with the same effect: a name saying "create" and a text saying "add" do not conflict.
SYNONYMS = ({"add", "create", "new", "insert", "make", "post"}, {"update", "edit", "modify", "patch", "set"},
            {"delete", "remove", "clear", "cancel"}, {"send", "post", "email"}, {"schedule", "book", "reserve"},
            {"convert", "translate"})


def _mentioned(verb: str, words: set[str]) -> bool:
    group = next((g for g in SYNONYMS if verb in g), {verb})
    return any(_stem(v) in words or v in words for v in group)


def _words(tool: Tool) -> set[str]:
    text = " ".join([tool.name, tool.description, *tool.parameter_names])
    return {_stem(t) for t in name_tokens(text)} | {_stem(t) for t in re.findall(r"[a-z0-9]+", text.lower())}


_ID_WORDS = frozenset({"id", "ids", "uid", "uuid", "key", "slug"})
_REF_WORDS = _ID_WORDS | {"number", "num", "no", "code", "ref", "reference"}  # words an identifier may carry


def _param_roots(name: str) -> frozenset[str]:
    return frozenset(_stem(t) for t in name_tokens(name))


def _matches(param: str, others: tuple[str, ...]) -> bool:
    """Two parameter names mean the same input: equal once separators and case are ignored, or sharing a
    word root that is not an id word (``city`` / ``city_name``)."""
    flat = "".join(name_tokens(param)) or param.lower()
    roots = _param_roots(param) - _ID_WORDS
    return any(flat == ("".join(name_tokens(o)) or o.lower()) or roots & (_param_roots(o) - _ID_WORDS)
               for o in others)


def _is_id(param: str) -> bool:
    toks = name_tokens(param) or [param.lower()]
    return toks[-1] in _ID_WORDS or toks[-1].endswith("id")


def extra_inputs(a: Tool, b: Tool) -> tuple[str, ...]:
    """Required inputs of the tool that requires more which the other tool cannot take at all, beyond what
    renaming explains: ``get_forecast(city, days)`` needs ``days``, which ``get_weather(city)`` lacks."""
    big, small = (a, b) if len(a.required) >= len(b.required) else (b, a)
    if len(big.required) == len(small.required):
        return ()
    lost_big = [p for p in big.required if not _matches(p, small.parameter_names)]
    lost_small = [p for p in small.required if not _matches(p, big.parameter_names)]
    return tuple(lost_big) if len(lost_big) > len(lost_small) else ()


def chained(a: Tool, b: Tool) -> str | None:
    """One tool consumes what the other produces, so they are steps of one task, not duplicates: a required
    input named after the other tool's subject (``get_current_time(timezone)`` / ``get_timezone``), or a
    required id of the things the other tool finds by other inputs (``get_details(recipe_id)`` /
    ``search_recipes(query)``)."""
    for x, y in ((a, b), (b, a)):
        x_name = {_stem(t) for t in name_tokens(x.name) if t not in GENERIC_VERBS}
        y_name = {_stem(t) for t in name_tokens(y.name) if t not in GENERIC_VERBS}
        for p in x.required:
            roots = _param_roots(p)
            if roots and y_name and roots == y_name and not y_name <= x_name:
                return f"{x.name} takes {p!r} as input, which is what {y.name} looks up"
            if (_is_id(p) and (roots - _ID_WORDS) and (roots - _ID_WORDS) <= y_name and y.required
                    and not any(_is_id(q) or set(name_tokens(q)) & _REF_WORDS for q in y.required)
                    and not _matches(p, y.parameter_names)):
                return f"{x.name} needs the {p!r} of an item, {y.name} finds items from other inputs"
    return None


@dataclass(frozen=True)
class PairEvidence:
    same_name: bool  # names equal once case and separators are ignored (math.gcd / math_gcd)
    name_overlap: float  # Jaccard of the name tokens without generic verbs
    actions: tuple[tuple[str, ...], tuple[str, ...]]  # change-the-world verbs each name carries
    unshared: tuple[tuple[str, ...], tuple[str, ...]]  # name words the other tool never mentions
    required: tuple[int, int]
    extra_inputs: tuple[str, ...] = ()  # required inputs one tool needs that the other cannot take
    chain: str | None = None  # how one tool feeds the other, when it does

    @property
    def conflicting_actions(self) -> bool:
        """One name carries an action the other tool never mentions (add_task vs list_tasks)."""
        return bool(self.actions[0] or self.actions[1])

    @property
    def different_objects(self) -> bool:
        return bool(self.unshared[0] and self.unshared[1])


def evidence(a: Tool, b: Tool) -> PairEvidence:
    ta, tb = name_tokens(a.name), name_tokens(b.name)
    same = "".join(ta) == "".join(tb) and bool(ta)
    ca = {_stem(t) for t in ta if t not in GENERIC_VERBS}
    cb = {_stem(t) for t in tb if t not in GENERIC_VERBS}
    overlap = len(ca & cb) / len(ca | cb) if ca | cb else 1.0
    wa, wb = _words(a), _words(b)
    acts_a = tuple(sorted({t for t in ta if t in ACTIONS}))
    acts_b = tuple(sorted({t for t in tb if t in ACTIONS}))
    # an action the other tool's text names anyway ("converts" in its description) is not a conflict
    acts_a = tuple(x for x in acts_a if not _mentioned(x, wb))
    acts_b = tuple(x for x in acts_b if not _mentioned(x, wa))
    action_roots = {_stem(x) for x in ACTIONS}
    lost_a = {t for t in ca if t not in wb and len(t) > 2 and t not in action_roots}
    lost_b = {t for t in cb if t not in wa and len(t) > 2 and t not in action_roots}
    # reported as the names spell them (``simple``), not as roots (``simpl``)
    un_a = tuple(sorted({t for t in ta if t not in GENERIC_VERBS and _stem(t) in lost_a}))
    un_b = tuple(sorted({t for t in tb if t not in GENERIC_VERBS and _stem(t) in lost_b}))
    return PairEvidence(same, round(overlap, 4), (acts_a, acts_b), (un_a, un_b), (len(a.required), len(b.required)),
                        extra_inputs(a, b), chained(a, b))
