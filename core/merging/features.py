"""Plain-text evidence about two tools, used by the offline judge and shown to reviewers: how their names
compare, which actions and objects each names that the other never mentions, how their required
parameters line up, and, for HTTP operations, whether they address different endpoints of one API. No
model involved. None of these rules comes from ToolScope (its pair classifier is an LLM, §3.2 Eq. 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.models import Tool

# Verbs that only say "give me something": names differing only in these still do the same job.
GENERIC_VERBS = frozenset("""get fetch find search retrieve lookup look query read show list view obtain return
    calculate calc compute estimate determine check""".split())
# Verbs that change the world or transform data: two names with different ones do different jobs.
ACTIONS = frozenset("""add create insert new make post put set update edit modify patch delete remove clear cancel
    send schedule draft save store upload download reverse forward encode decode encrypt decrypt convert
    translate compress decompress book reserve buy sell pay transfer start stop pause resume open close lock
    unlock enable disable follow unfollow subscribe unsubscribe archive restore rename move copy sort filter
    merge split join leave invite approve reject sign verify validate generate summarize summarise play
    track""".split())
_NOISE = frozenset({"the", "a", "an", "of", "for", "to", "by", "in", "on", "and", "or", "with", "from", "api",
                    "tool", "func", "function", "v1", "v2", "info", "data", "details", "detail"})
# Two-letter name words that carry no subject; any other two-letter word does ("tv", "fx", "ip").
_SHORT_NOISE = frozenset({"is", "it", "me", "my", "up", "at", "as", "be", "do", "go", "if", "no", "so", "we",
                          "us", "id", "ok"})


def name_tokens(name: str) -> list[str]:
    """``fetchCurrentWeather`` / ``weather.current`` / ``get_weather`` → lower-case word tokens."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name))
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t and t not in _NOISE]


_INVARIANT = frozenset({"news", "series", "species", "status", "analysis", "this", "gas"})
# Plurals of nouns ending in "ie", which the "-ies → -y" rule would get wrong (movies → movy).
_IE_PLURALS = frozenset("""movies cookies calories zombies selfies smoothies brownies rookies hoodies pies ties
    lies genies""".split())
_DERIVED = ("ization", "isation", "ation", "ition", "ion", "ize", "ise", "ing", "ed", "er", "or")


@lru_cache(maxsize=131_072)
def _stem(word: str) -> str:
    """Crude folding of plurals, tenses and derived nouns onto one root, enough to match "recipes" with
    "recipe", "converter" with "convert", "factorization" with "factorize" and "definition" with "define".
    Both sides of every comparison go through it, so an odd root ("weath") still matches itself."""
    if word.isdigit() or word in _INVARIANT:
        return word
    if word in _IE_PLURALS:
        word = word[:-1]
    elif len(word) > 4 and word.endswith("ies"):
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


_VERB_ROOTS = frozenset(_stem(v) for v in GENERIC_VERBS | ACTIONS)
_ACTION_ROOTS = frozenset(_stem(v) for v in ACTIONS)


def _mentioned(verb: str, words: set[str]) -> bool:
    group = next((g for g in SYNONYMS if verb in g), {verb})
    return any(_stem(v) in words or v in words for v in group)


def _words(tool: Tool) -> frozenset[str]:
    """Every word root of the tool's name, description and parameter names."""
    return _text_words(" ".join([tool.name, tool.description, *tool.parameter_names]))


@lru_cache(maxsize=65_536)
def _text_words(text: str) -> frozenset[str]:
    # cached: a tool meets many candidate partners, and each pair asks several rules about its words
    return frozenset({_stem(t) for t in name_tokens(text)} | {_stem(t) for t in re.findall(r"[a-z0-9]+", text.lower())})


def _said(root: str, words: frozenset[str] | set[str]) -> bool:
    """``root`` (a stemmed name word) appears among ``words``, also as the start of a longer word when it
    has four letters or more ("crypto" in "cryptocurrency")."""
    return root in words or (len(root) >= 4 and any(w.startswith(root) for w in words))


def _subject_word(token: str) -> bool:
    """A name word that can name what a tool is about: longer than two letters, or a two-letter word such
    as "tv" (a bare number or a filler like "my" names nothing)."""
    return not token.isdigit() and (len(token) > 2 or (len(token) == 2 and token.isalpha()
                                                        and token not in _SHORT_NOISE))


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


# Name words that say when: "current" in get_current_time and "now" in time.now name the same moment.
_WHEN = frozenset("current latest now today live recent".split())
# Name words that say which or when, not what ("popular" in movie_popular), and prepositions
# ("days_between"): they never head a name.
_QUALIFIERS = _WHEN | frozenset("top popular rated trending new all upcoming daily between about into per via".split())


def head_noun(tool: Tool) -> str | None:
    """The word a tool's name is about, as a root: its last word that is not a verb, an action, a qualifier
    or a filler (``get_3_movie_popular`` → movie, ``bmi_calculator`` → bmi, ``tv-series-images`` → image).
    ``None`` when the name has no such word."""
    words = _subjects(tool)
    return words[-1] if words else None


def _acronym(tool: Tool) -> str:
    """Initials of the name's words other than verbs (compute_body_mass_index → "bmi")."""
    return "".join(t[0] for t in name_tokens(tool.name) if t not in GENERIC_VERBS and t not in ACTIONS
                   and not t.isdigit())


def _same_head(x: str, y: str, a: Tool, b: Tool) -> bool:
    """Two head words name one thing: equal roots, one ending the other ("email" / "mail"), or one the
    initials of the other name (bmi / body_mass_index)."""
    return (x == y or (min(len(x), len(y)) >= 4 and (x.endswith(y) or y.endswith(x)))
            or (len(x) >= 2 and x in _acronym(b)) or (len(y) >= 2 and y in _acronym(a)))


def different_heads(a: Tool, b: Tool) -> tuple[str, str] | None:
    """The names are about different things (movie vs tv, user vs playlist, units vs size): their head
    nouns differ, at least one head is absent from the other tool's name and parameters, and the two do not
    both appear in each other's descriptions (two names for one subject usually do). Returns the heads as
    the names spell them. Ours, not ToolScope's."""
    ha, hb = head_noun(a), head_noun(b)
    if not ha or not hb or _same_head(ha, hb, a, b):
        return None

    def names(t: Tool) -> set[str]:
        return {_stem(x) for x in name_tokens(" ".join([t.name, *t.parameter_names]))}

    if _said(ha, names(b)) and _said(hb, names(a)):
        return None
    if _said(ha, _words(b)) and _said(hb, _words(a)):
        return None
    return _spelled(a, ha), _spelled(b, hb)


def _subjects(tool: Tool) -> tuple[str, ...]:
    """The roots of the name's words that can name what the tool is about, in order."""
    return _name_subjects(tool.name)


@lru_cache(maxsize=65_536)
def _name_subjects(name: str) -> tuple[str, ...]:
    return tuple(_stem(t) for t in name_tokens(name) if t not in GENERIC_VERBS and t not in ACTIONS
                 and t not in _QUALIFIERS and _subject_word(t) and _stem(t) not in _VERB_ROOTS)


def different_kinds(a: Tool, b: Tool) -> tuple[str, str] | None:
    """Same head noun, different kinds of it (get_marine_forecast / get_wind_forecast): each name qualifies
    the head with a word the other name lacks, and one of those words appears nowhere in the other tool.
    Returns the two qualifying words as the names spell them. Ours, not ToolScope's."""
    ha, hb = head_noun(a), head_noun(b)
    if not ha or ha != hb:
        return None
    sa, sb = set(_subjects(a)), set(_subjects(b))
    # a word naming the tool's own category is a namespace ("math" in math_factorize), not a kind
    mod_a = sorted(sa - sb - {ha} - {_stem(t) for t in name_tokens(a.category or "")})
    mod_b = sorted(sb - sa - {hb} - {_stem(t) for t in name_tokens(b.category or "")})
    if not mod_a or not mod_b:
        return None
    unsaid_a = [m for m in mod_a if not _said(m, _words(b))]
    unsaid_b = [m for m in mod_b if not _said(m, _words(a))]
    if not unsaid_a and not unsaid_b:
        return None
    return _spelled(a, (unsaid_a or mod_a)[0]), _spelled(b, (unsaid_b or mod_b)[0])


def _spelled(tool: Tool, root: str) -> str:
    return next((t for t in reversed(name_tokens(tool.name)) if _stem(t) == root), root)


_VERSION_SEGMENT = re.compile(r"v?\d+(\.\d+)*$")
_PLACEHOLDER = re.compile(r"^\{[^}]*\}$")
# HTTP methods grouped by what they do to the resource: reading, writing, deleting.
_METHOD_EFFECT = {"GET": "read", "HEAD": "read", "OPTIONS": "read", "POST": "write", "PUT": "write",
                  "PATCH": "write", "DELETE": "delete"}


@dataclass(frozen=True)
class Endpoint:
    """Where an HTTP operation lives, as the OpenAPI importer records it (``extra``: method, path, server)."""

    method: str
    path: str
    server: str
    words: tuple[str, ...]  # the path's literal words in order, lower case; versions ("3", "v1") left out

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def resource(self) -> frozenset[str]:
        """The path's words as roots: ``/movies/popular`` and ``/movie/popular`` name one resource."""
        return frozenset(_stem(w) for w in self.words)


def endpoint(tool: Tool) -> Endpoint | None:
    """The tool's HTTP endpoint when it has one (tools imported from OpenAPI), else ``None``."""
    extra = tool.extra or {}
    method, path = extra.get("method"), extra.get("path")
    if not isinstance(method, str) or not isinstance(path, str) or not path.strip():
        return None
    words: list[str] = []
    for seg in path.strip("/").split("/"):
        if not seg or _PLACEHOLDER.match(seg) or _VERSION_SEGMENT.match(seg.lower()):
            continue
        words += [t for t in name_tokens(seg) if not t.isdigit()]
    return Endpoint(method.upper(), path, str(extra.get("server") or ""), tuple(words))


def different_endpoints(a: Tool, b: Tool) -> str | None:
    """Two operations of one API (same server) that address different resources or act differently on
    them: ``GET /movie/popular`` and ``GET /tv/popular`` are two lists, not one list under two names. Within
    one API a different path is a different resource, whatever the descriptions say; across APIs path
    conventions differ, so this rule is silent there. Ours, not ToolScope's."""
    ea, eb = endpoint(a), endpoint(b)
    if ea is None or eb is None or ea.server != eb.server:
        return None
    effect_a, effect_b = _METHOD_EFFECT.get(ea.method, ea.method), _METHOD_EFFECT.get(eb.method, eb.method)
    if effect_a != effect_b:
        return f"{ea.label} {effect_a}s and {eb.label} {effect_b}s"
    if ea.resource != eb.resource:
        only_a = list(dict.fromkeys(w for w in ea.words if _stem(w) not in eb.resource))
        only_b = list(dict.fromkeys(w for w in eb.words if _stem(w) not in ea.resource))
        what = f" ({', '.join(only_a) or '—'} vs {', '.join(only_b) or '—'})"
        return f"different endpoints of one API: {ea.label} and {eb.label}{what}"
    return None


def conflicting_ids(a: Tool, b: Tool) -> tuple[str, str] | None:
    """Each tool requires the identifier of a different kind of thing (``movie_id`` / ``series_id``,
    ``user_id`` / ``playlist_id``), and neither can take the other's: they act on different resources.
    Returns one such pair of parameter names. Ours, not ToolScope's."""
    def own_ids(x: Tool, y: Tool) -> list[str]:
        return [p for p in x.required if _is_id(p) and (_param_roots(p) - _REF_WORDS)
                and not _matches(p, y.parameter_names)]

    ids_a, ids_b = own_ids(a, b), own_ids(b, a)
    for p in ids_a:
        for q in ids_b:
            if not (_param_roots(p) - _REF_WORDS) & (_param_roots(q) - _REF_WORDS):
                return p, q
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
    endpoints: str | None = None  # how two operations of one API differ (path or method), when they do
    id_conflict: tuple[str, str] | None = None  # required identifiers of different things, one per tool
    heads: tuple[str, str] | None = None  # the names' head nouns, when they name different things
    kinds: tuple[str, str] | None = None  # words making one head noun two different things (marine / wind)

    @property
    def conflicting_actions(self) -> bool:
        """One name carries an action the other tool never mentions (add_task vs list_tasks)."""
        return bool(self.actions[0] or self.actions[1])

    @property
    def different_objects(self) -> bool:
        """Each name carries a subject word the other tool never mentions (movie vs tv, simple vs compound)."""
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
    subject_a = {_stem(t) for t in ta if t not in GENERIC_VERBS and t not in _WHEN and _subject_word(t)}
    subject_b = {_stem(t) for t in tb if t not in GENERIC_VERBS and t not in _WHEN and _subject_word(t)}
    lost_a = {t for t in subject_a if not _said(t, wb) and t not in _ACTION_ROOTS}
    lost_b = {t for t in subject_b if not _said(t, wa) and t not in _ACTION_ROOTS}
    # reported as the names spell them (``simple``), not as roots (``simpl``)
    un_a = tuple(sorted({t for t in ta if t not in GENERIC_VERBS and _stem(t) in lost_a}))
    un_b = tuple(sorted({t for t in tb if t not in GENERIC_VERBS and _stem(t) in lost_b}))
    return PairEvidence(same, round(overlap, 4), (acts_a, acts_b), (un_a, un_b), (len(a.required), len(b.required)),
                        extra_inputs(a, b), chained(a, b), different_endpoints(a, b), conflicting_ids(a, b),
                        different_heads(a, b), different_kinds(a, b))
