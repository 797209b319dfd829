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


def _stem(word: str) -> str:
    """Crude plural / tense folding, enough to match "recipes" with "recipe" and "tracking" with "track"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


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


@dataclass(frozen=True)
class PairEvidence:
    same_name: bool  # names equal once case and separators are ignored (math.gcd / math_gcd)
    name_overlap: float  # Jaccard of the name tokens without generic verbs
    actions: tuple[tuple[str, ...], tuple[str, ...]]  # change-the-world verbs each name carries
    unshared: tuple[tuple[str, ...], tuple[str, ...]]  # name words the other tool never mentions
    required: tuple[int, int]

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
    un_a = tuple(sorted(t for t in ca if t not in wb and len(t) > 2 and t not in {_stem(x) for x in ACTIONS}))
    un_b = tuple(sorted(t for t in cb if t not in wa and len(t) > 2 and t not in {_stem(x) for x in ACTIONS}))
    return PairEvidence(same, round(overlap, 4), (acts_a, acts_b), (un_a, un_b), (len(a.required), len(b.required)))
