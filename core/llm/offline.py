"""Offline operators: deterministic, seeded heuristics that stand in for an LLM.

They are not an LLM and are never presented as one (``name = "offline"``). They make every strategy
runnable with no network and no cost: pseudo-tools from the query's action and object words,
Rocchio-style refinement toward exemplar vocabulary, mutation by catalog-vocabulary neighbours at a rate
set by temperature, clause crossover, intent splitting on conjunctions and sentences, synthetic queries
from parameter schemas.

**Keeping the request** (``keep_request=True``, the default; our rule, not the paper's): FitText's LLM
operators are given the user's request and keep its intent while they vary the wording. A word-level rule
does not understand intent, so by default the population operators behave like an operator that was
given the request: they never drop or replace the request's content words (:func:`request_terms`), and
take catalog words only as *additions* (the ``Related:`` tail of a description), which later variation
may swap or drop again. Seeding and refinement add exemplar *terms* gated by their overlap with the
request instead of copying an exemplar's clause. ``keep_request=False`` gives the free rules (words of
the request swapped for catalog neighbours, clauses of exemplars copied in), which drift off the request. Each call draws from its own ``random.Random``
seeded by (seed, role, inputs), so results do not depend on the order concurrent calls run in.
Every call is recorded in the ledger like a model call (backend ``offline``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from core.llm.base import RoleCall
from core.llm.framework import OfflineRoles
from core.llm.heuristics import (
    blurb_body,
    clauses,
    describe,
    parse_tool_doc,
    sentence,
    split_intents,
    terms,
)
from core.llm.ledger import Ledger
from core.llm.vocabulary import CatalogVocabulary

__all__ = ["OfflineOperators", "mutation_rate", "split_intents"]

MODEL = "heuristics-v3"  # bump when a rule changes: stored synthetic queries are keyed by it
JUDGE_COVERAGE = 0.6  # share of the query's terms the exemplars must contain to call them sufficient
MAX_WORDS = 60  # refined descriptions stop growing here (embedders truncate long inputs anyway)
MAX_RELATED = 8  # catalog words a kept-request description carries as additions, at most (our choice)
RELATED = " Related:"

# Request templates in our own words; {action} is the tool name's words ("convert currency"), {clause} the
# first clause of its description, {p}/{p2} parameter names,
# {v} an enum value (templates with {v} are used only when the schema has enums).
_SYNTHETIC_TEMPLATES = (
    "I need to {action}", "Can you {action} for me?", "Please {clause}", "How do I {action}?", "{Clause}",
    "I want something that {clause}", "Help me {action} given a {p}", "Which tool would {action} with my {p}?",
    "{Action} — I have the {p} ready", "Quick: {clause}", "Is there a way to {action}?",
    "I'd like to {action} using {p} and {p2}", "{Action} with {p} set to {v}", "{Clause} for {v}",
)
# Words of our own description frame: never treated as drift by refinement.
_FRAME = frozenset({"tool", "example", "request", "related"})


def request_terms(ancestor: str, query: str = "") -> frozenset[str]:
    """The request's content words a lineage must keep (our definition): the ancestor's terms that the user's
    query also uses (background the query adds, and the ancestor's own frame words such as "provides", are not
    in both); the ancestor's terms, frame words aside, when no query is given or the two share none."""
    own = set(terms(ancestor.split(RELATED)[0])) - _FRAME
    shared = own & set(terms(query)) if query else set()
    return frozenset(shared or own)


def split_related(text: str) -> tuple[str, list[str]]:
    """A description as its core text and its added catalog words (the ``Related:`` tail, if any)."""
    core, sep, tail = text.partition(RELATED)
    extra = [w.strip(" .") for w in tail.split(",") if w.strip(" .")] if sep else []
    return core.strip().rstrip("."), list(dict.fromkeys(extra))


def join_related(core: str, extra: Sequence[str]) -> str:
    core = sentence(core.strip().rstrip(". ")) or core
    extra = list(dict.fromkeys(e for e in extra if e))[-MAX_RELATED:]
    return f"{core}." + (f"{RELATED} {', '.join(extra)}." if extra else "")


def mutation_rate(temperature: float) -> float:
    """Share of content words swapped for a catalog neighbour: 0.15 per unit of temperature, at most 0.9
    (τ = 1.5, FitText's scatter and memetic temperature, swaps about a fifth of the words)."""
    return min(0.9, max(0.0, 0.15 * float(temperature)))


class OfflineOperators(OfflineRoles):
    """The :class:`core.llm.roles.Operators` roles by rule; instant, deterministic for a given seed.
    ``vocabulary`` None: an empty one (no catalog neighbours to swap words for)."""

    model = MODEL

    def __init__(self, vocabulary: CatalogVocabulary | None = None, *, seed: int = 0,
                 ledger: Ledger | None = None, keep_request: bool = True) -> None:
        vocabulary = CatalogVocabulary.from_texts([]) if vocabulary is None else vocabulary
        if not isinstance(vocabulary, CatalogVocabulary):
            raise TypeError(f"vocabulary must be a CatalogVocabulary, not {type(vocabulary).__name__}")
        if not isinstance(keep_request, bool):
            raise ValueError(f"keep_request must be True or False, not {keep_request!r}")
        super().__init__(ledger=ledger, seed=seed)
        self.vocab = vocabulary
        self.keep_request = keep_request
        # the ledger tells the two rule sets apart (MODEL itself keys stored synthetic queries, which do not change)
        self.model = MODEL if keep_request else f"{MODEL}-free"

    def __repr__(self) -> str:
        return (f"OfflineOperators(seed={self.seed}, vocabulary={self.vocab.n_docs} docs, "
                f"keep_request={self.keep_request})")

    def keeping_request(self, keep: bool) -> OfflineOperators:
        """These rules with ``keep_request`` set to ``keep``: ``self`` when it already is, else a twin with the
        same vocabulary, seed and ledger (how a strategy's ``keep_request`` parameter reaches its operators)."""
        if keep is self.keep_request:
            return self
        return OfflineOperators(self.vocab, seed=self.seed, ledger=self.ledger, keep_request=keep)

    # -- term helpers -----------------------------------------------------------------------------

    def _distinctive(self, texts: Sequence[str], exclude: set[str], limit: int,
                     weights: Sequence[float] | None = None) -> list[str]:
        score: dict[str, float] = {}
        for i, text in enumerate(texts):
            w = weights[i] if weights else 1.0
            for term in set(terms(text)):
                if term not in exclude:
                    score[term] = score.get(term, 0.0) + w * self.vocab.idf(term)
        return [t for t, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]

    def _swap(self, text: str, rng: random.Random, rate: float, avoid: frozenset[str] = frozenset(),
              force: bool = False) -> str:
        """Content words swapped for catalog neighbours with probability ``rate``; with ``force`` at
        least one swap when any word can be swapped, so a child never silently equals its parent."""
        words = re.findall(r"[A-Za-z]+|[^A-Za-z]+", text)
        slots = [i for i, w in enumerate(words) if terms(w) and self._options(w, avoid)]
        chosen = {i for i in slots if rng.random() < rate}
        if force and rate > 0 and slots and not chosen:
            chosen = {rng.choice(slots)}
        for i in sorted(chosen):
            words[i] = rng.choice(self._options(words[i], avoid)[:4])
        return "".join(words)

    def _options(self, word: str, avoid: frozenset[str]) -> list[str]:
        return [n for n in self.vocab.neighbours.get(word.lower(), ()) if n not in avoid]

    @staticmethod
    def _kept(ancestor: str, query: str, description: str) -> frozenset[str]:
        """The request words a child keeps: the ancestor's (:func:`request_terms`), or the description's own when
        the ancestor has none (then the description is all there is of the request)."""
        return request_terms(ancestor, query) or request_terms(description, query)

    def _additions(self, keep: frozenset[str], present: set[str], rng: random.Random, rate: float,
                   avoid: frozenset[str] = frozenset(), force: bool = False) -> list[str]:
        """Catalog neighbours of the request's words, each request word lending one with probability ``rate``
        (with ``force``, at least one when any neighbour is new)."""
        out: list[str] = []
        options = {w: [n for n in self._options(w, avoid)[:4] if n not in present and n not in keep]
                   for w in sorted(keep)}
        for opts in options.values():
            if opts and rng.random() < rate:
                out.append(rng.choice(opts))
        if force and not out:
            lenders = [w for w, opts in options.items() if opts]
            if lenders:
                out.append(rng.choice(options[rng.choice(lenders)]))
        return list(dict.fromkeys(out))

    def _vary_kept(self, text: str, keep: frozenset[str], rng: random.Random, rate: float,
                   avoid: frozenset[str] = frozenset(), force: bool = True) -> str:
        """Mutation that keeps the request: the core text stays; each earlier addition is swapped for one of
        its own neighbours (or dropped when it has none, or when ``avoid`` holds it) with probability
        ``rate``; request words lend new neighbours as additions."""
        core, extra = split_related(text)
        present = set(terms(core)) | set(extra)
        kept: list[str] = []
        for e in extra:
            if e in avoid:
                continue
            if rng.random() < rate:
                opts = [n for n in self._options(e, avoid)[:4] if n not in present and n not in keep]
                if opts:
                    kept.append(rng.choice(opts))
                continue
            kept.append(e)
        new = self._additions(keep, present | set(kept), rng, rate, avoid, force=force and kept == extra)
        return join_related(core, kept + new)

    def _restore(self, child: str, ancestor: str, keep: frozenset[str]) -> str:
        """``child`` with the request's words it lost put back: the ancestor's core replaces a core that
        dropped any of them (the child's additions stay)."""
        core, extra = split_related(child)
        if keep <= set(terms(core)):
            return join_related(core, extra)
        a_core, a_extra = split_related(ancestor)
        return join_related(a_core, [*a_extra, *extra])

    def _exemplar_terms(self, exemplar: str, keep: frozenset[str], present: set[str], limit: int) -> list[str]:
        """An exemplar's rarest terms, only when it shares a request word (else it says nothing about the
        request: Rocchio's relevance gate)."""
        words = set(terms(exemplar))
        if keep and not words & keep:
            return []
        return self._distinctive([exemplar], present | set(keep) | _FRAME, limit)

    def _refined(self, ancestor: str, current: str, exemplars: Sequence[str], query: str,
                 temperature: float) -> str:
        q = set(terms(query)) | set(terms(ancestor))
        weights = [len(q & set(terms(e))) / (len(q) or 1) for e in exemplars]
        relevant = [(e, w) for e, w in zip(exemplars, weights, strict=True) if w > 0]
        if not relevant:
            return current
        known = q | _FRAME | {t for e in exemplars for t in terms(e)}
        core = current.split(" Related:")[0]
        # Rocchio's negative side: words neither the request nor any real tool uses are drift.
        core = re.sub(r"[A-Za-z]+", lambda m: m.group(0) if not terms(m.group(0)) or terms(m.group(0))[0] in known
                      else "", core)
        core = re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", core))
        core = re.sub(r"([.;:,])(?:\s*[.;:,])+", r"\1", core).strip(" ,;:.") or ancestor.rstrip(". ")
        if self.keep_request:
            # No exemplar clause copied in. Exemplars count by the words they share with this description's
            # request; additions they support are kept, their distinctive terms added.
            keep = self._kept(ancestor, query, current)
            relevant = [(e, len(keep & set(terms(e))) / (len(keep) or 1)) for e, _ in relevant]
            relevant = [(e, w) for e, w in relevant if w > 0]
            supported = {t for e, _ in relevant for t in terms(e)}
            _, extra = split_related(current)
            add = [e for e in extra if e in supported]
            add += self._distinctive([e for e, _ in relevant], set(terms(core)) | set(add) | _FRAME,
                                     2 + int(2 * temperature), [w for _, w in relevant])
            return join_related(core, add)
        best = max(relevant, key=lambda ew: ew[1])[0]
        borrowed = (clauses(blurb_body(best)) or [""])[0]
        if borrowed and not set(terms(borrowed)) <= set(terms(core)):
            core = f"{core}; {borrowed[:1].lower() + borrowed[1:]}"
        add = self._distinctive([e for e, _ in relevant], set(terms(core)), 2 + int(2 * temperature),
                                [w for _, w in relevant])
        text = sentence(core) + "." + (f" Related: {', '.join(add)}." if add else "")
        words = text.split()
        return text if len(words) <= MAX_WORDS else " ".join(words[:MAX_WORDS]).rstrip(",;") + "."

    # -- roles ------------------------------------------------------------------------------------

    def pseudo_tools(self, query: str, *, max_tools: int = 3, temperature: float = 0.7) -> RoleCall:
        """FitText §4.2 by rule: one "Tool that <verb>s <object>" description per intent of the query."""
        return self._call("pseudo_tools", {"query": query, "max_tools": max_tools},
                          lambda rng: [describe(i) for i in split_intents(query)[:max_tools]], temperature)

    def refine(self, ancestor: str, current: str, exemplars: Sequence[str], query: str, *,
               temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 3 step 7 (Eq. 11) and Alg. 1 step 14, Rocchio-style: drop words found in neither
        the request nor the exemplars, borrow the leading clause of the exemplar closest to the request,
        add the exemplars' distinctive terms weighted by their overlap with the request. Unchanged when
        no exemplar shares a word with the request."""
        return self._call("refine", {"ancestor": ancestor, "current": current, "exemplars": list(exemplars),
                                     "query": query},
                          lambda rng: self._refined(ancestor, current, exemplars, query, temperature), temperature)

    def refine_all(self, descriptions: Sequence[str], exemplars: Sequence[str], query: str, *,
                   temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 4 step 10 (Eq. 13): every description refined against the shared exemplar pool."""
        def run(rng: random.Random) -> list[str]:
            out = [self._refined(d, d, exemplars, query, temperature) for d in descriptions]
            return list(dict.fromkeys(d for d in out if d))
        return self._call("refine_all", {"descriptions": list(descriptions), "exemplars": list(exemplars),
                                         "query": query}, run, temperature)

    def judge_sufficiency(self, query: str, exemplars: Sequence[str]) -> RoleCall:
        """FitText Alg. 4 step 7 by rule: sufficient when the exemplars contain ≥ 60 % of the query's terms."""
        def run(rng: random.Random) -> bool:
            q = set(terms(query))
            covered = q & {t for e in exemplars for t in terms(e)}
            return bool(q) and len(covered) / len(q) >= JUDGE_COVERAGE
        return self._call("judge_sufficiency", {"query": query, "exemplars": list(exemplars)}, run)

    def scatter(self, ancestor: str, exemplars: Sequence[str], *, temperature: float = 1.5,
                nonce: int = 0) -> RoleCall:
        """FitText Eq. 14 by rule. Keeping the request: the ancestor with catalog neighbours of its words and the
        rarest terms of a randomly drawn exemplar that shares a request word added; free rules: the ancestor
        with words swapped at ``mutation_rate(τ)``, joined with one clause of a randomly drawn exemplar."""
        def run(rng: random.Random) -> str:
            if self.keep_request:
                keep = request_terms(ancestor)
                core, extra = split_related(ancestor)
                present = set(terms(core)) | set(extra)
                borrowed = (self._exemplar_terms(rng.choice(list(exemplars)), keep, present, 2)
                            if exemplars else [])
                new = self._additions(keep, present | set(borrowed), rng, mutation_rate(temperature),
                                      force=not borrowed)
                return join_related(core, [*extra, *borrowed, *new])
            base = self._swap(ancestor, rng, mutation_rate(temperature), force=True).rstrip(". ")
            if exemplars:
                clause = rng.choice(clauses(blurb_body(rng.choice(list(exemplars)))) or [""])
                if clause and clause.lower() not in base.lower():
                    base = f"{base}; {clause[:1].lower() + clause[1:]}"
            return sentence(base) + "."
        return self._call("scatter", {"ancestor": ancestor, "exemplars": list(exemplars), "nonce": nonce}, run,
                          temperature)

    def seed_population(self, ancestor: str, exemplars: Sequence[str], n: int, *,
                        temperature: float = 1.5) -> RoleCall:
        """FitText Alg. 6 by rule: the ancestor plus n − 1 distinct variants, each steered toward a different
        exemplar (fewer only when no variant is left). Keeping the request: a variant is the ancestor with
        that exemplar's rarest terms (when it shares a request word) and catalog neighbours of the request's
        words added; free rules: the ancestor mutated, joined with the exemplar's leading clause."""
        def run(rng: random.Random) -> list[str]:
            out = [ancestor]
            keep = request_terms(ancestor)
            for attempt in range(1, 4 * max(n, 1)):
                if len(out) >= n:
                    break
                exemplar = exemplars[attempt % len(exemplars)] if exemplars else ""
                if self.keep_request:
                    core, extra = split_related(ancestor)
                    present = set(terms(core)) | set(extra)
                    borrowed = self._exemplar_terms(exemplar, keep, present, 2) if exemplar else []
                    new = self._additions(keep, present | set(borrowed), rng, mutation_rate(temperature),
                                          force=not borrowed)
                    variant = join_related(core, [*extra, *borrowed, *new])
                else:
                    variant = self._swap(ancestor, rng, mutation_rate(temperature), force=True).rstrip(". ")
                    clause = (clauses(blurb_body(exemplar)) or [""])[0] if exemplar else ""
                    variant = f"{variant}; {clause[:1].lower() + clause[1:]}" if clause else variant
                    variant = sentence(variant) + "."
                if variant not in out:
                    out.append(variant)
            return out[:n]
        return self._call("seed_population", {"ancestor": ancestor, "exemplars": list(exemplars), "n": n}, run,
                          temperature)

    @staticmethod
    def _context(query: str, exemplars: Sequence[str]) -> dict:
        """The optional inputs of the population roles, in their payload only when given (a call without them
        draws the same numbers as before they existed)."""
        return {**({"query": query} if query else {}), **({"exemplars": list(exemplars)} if exemplars else {})}

    def crossover(self, a: str, b: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
                  temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """Clause crossover: one parent's text joined with clauses drawn from the other (two of them above
        τ = 1). Keeping the request: one parent's core, the other's clauses that carry request words, and
        additions drawn from both parents (at least one from the other); a child that lost a request word
        gets the ancestor's core back. Free rules: the first clause of one parent and clauses of the other."""
        def run(rng: random.Random) -> str:
            if self.keep_request:
                keep = self._kept(ancestor, query, a)
                (core_a, extra_a), (core_b, extra_b) = split_related(a), split_related(b)
                if rng.random() >= 0.5:
                    (core_a, extra_a), (core_b, extra_b) = (core_b, extra_b), (core_a, extra_a)
                mine = clauses(core_a)
                theirs = [c for c in clauses(core_b) if c not in mine and set(terms(c)) & keep]
                picked = rng.sample(theirs, min(len(theirs), 1 + int(temperature > 1.0)))
                core = "; ".join([core_a, *picked]) if picked else core_a
                extra = [e for e in extra_a if rng.random() < 0.5]
                other = [e for e in extra_b if rng.random() < 0.5] or extra_b[:1]
                return self._restore(join_related(core, [*extra, *other]), ancestor, keep)
            ca, cb = clauses(a), clauses(b)
            if not ca or not cb:
                return a or b
            first, second = (ca, cb) if rng.random() < 0.5 else (cb, ca)
            picked = [first[0]] + rng.sample(second, min(len(second), 1 + int(temperature > 1.0)))
            return sentence("; ".join(dict.fromkeys(picked))) + "."
        return self._call("crossover", {"a": a, "b": b, "ancestor": ancestor, "nonce": nonce,
                                        **self._context(query, exemplars)}, run, temperature)

    def mutate(self, description: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
               temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """Variation by catalog-vocabulary neighbours at ``mutation_rate(τ)`` (at least one change when τ > 0).
        Keeping the request: the request's words stay; earlier additions are swapped for neighbours, and the
        request's words lend neighbours as new additions. Free rules: words swapped for neighbours."""
        def run(rng: random.Random) -> str:
            rate = mutation_rate(temperature)
            if self.keep_request:
                keep = self._kept(ancestor, query, description)
                return self._restore(self._vary_kept(description, keep, rng, rate, force=rate > 0), ancestor, keep)
            return self._swap(description, rng, rate, force=True)
        return self._call("mutate", {"description": description, "ancestor": ancestor, "nonce": nonce,
                                     **self._context(query, exemplars)}, run, temperature)

    def guided_mutate(self, description: str, low_tools: Sequence[str], *, ancestor: str = "", query: str = "",
                      exemplars: Sequence[str] = (), temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """FitText Eq. 21 by rule: words the description shares with the weak retrieved tools are what
        pulled them in. Keeping the request: additions the weak tools use are dropped, others vary, and new
        neighbours of the request's words are added, none of them a word of the weak tools (the request's own
        words stay even when the weak tools share them). Free rules: shared words are swapped for neighbours
        the weak tools do not use (more eagerly than plain mutation), other words at the usual rate."""
        def run(rng: random.Random) -> str:
            weak = frozenset(t for blurb in low_tools for t in terms(blurb))
            eager = min(0.9, 0.3 + mutation_rate(temperature))
            if self.keep_request:
                keep = self._kept(ancestor, query, description)
                child = self._vary_kept(description, keep, rng, mutation_rate(temperature), avoid=weak - keep)
                return self._restore(child, ancestor, keep) if ancestor else child
            words = re.findall(r"[A-Za-z]+|[^A-Za-z]+", description)
            for i, w in enumerate(words):
                options = self._options(w, weak)
                shared = bool(terms(w)) and terms(w)[0] in weak
                if options and rng.random() < (eager if shared else mutation_rate(temperature)):
                    words[i] = rng.choice(options[:4])
            child = "".join(words)
            if child == description:
                # No neighbour to move to: drop the shared word most specific to the weak tools instead.
                shared = [i for i, w in enumerate(words) if terms(w) and terms(w)[0] in weak]
                if len(shared) > 1:
                    drop = max(shared, key=lambda i: (self.vocab.idf(terms(words[i])[0]), -i))
                    child = re.sub(r"\s{2,}", " ", "".join(w for i, w in enumerate(words) if i != drop)).strip()
            return child
        return self._call("guided_mutate", {"description": description, "low_tools": list(low_tools),
                                            "nonce": nonce, **({"ancestor": ancestor} if ancestor else {}),
                                            **self._context(query, exemplars)}, run, temperature)

    def score_retrieval(self, query: str, blurbs: Sequence[str]) -> RoleCall:
        """The LLM_score of FitText Eq. 15 by rule: mean share of the query's terms covered by each of the
        (up to) three best-covering tools, in [0, 1]."""
        def run(rng: random.Random) -> float:
            q = set(terms(query))
            if not q or not blurbs:
                return 0.0
            covers = sorted((len(q & set(terms(b))) / len(q) for b in blurbs), reverse=True)[:3]
            return round(sum(covers) / len(covers), 4)
        return self._call("score_retrieval", {"query": query, "blurbs": list(blurbs)}, run)

    def synthetic_queries(self, tool_doc: str, m: int, *, temperature: float = 0.7) -> RoleCall:
        """Re-Invoke §3.1 by template: requests that name the action the way the tool's name does ("get
        weather forecast") or repeat its first description clause, with parameter names and enum values
        (from OpenAI tool JSON, or ``name: description Parameters: …``). Up to ``m`` distinct requests;
        fewer only when the templates run out."""
        def run(rng: random.Random) -> list[str]:
            doc = parse_tool_doc(tool_doc)
            action = " ".join(terms(doc.name)) or "use this tool"
            clause = (clauses(doc.description) or [action])[0]
            clause = clause[:1].lower() + clause[1:]
            params = [p.replace("_", " ") for p in doc.parameters] or ["details"]
            values = [v for vs in doc.enums.values() for v in vs]
            templates = [t for t in _SYNTHETIC_TEMPLATES if values or "{v}" not in t]
            out: list[str] = []
            for _ in range(3):  # a few passes with fresh fillings, until m distinct requests exist
                for template in rng.sample(templates, len(templates)):
                    p, p2 = rng.sample(params, 2) if len(params) > 1 else (params[0], "options")
                    text = template.format(action=action, Action=sentence(action), clause=clause,
                                           Clause=sentence(clause), p=p, p2=p2, v=rng.choice(values or params))
                    if text not in out:
                        out.append(text)
                    if len(out) >= m:
                        return out
            return out
        return self._call("synthetic_queries", {"tool_doc": tool_doc, "m": m}, run, temperature)

    def extract_intents(self, query: str) -> RoleCall:
        """Re-Invoke §3.2 by rule: :func:`core.llm.heuristics.split_intents`."""
        return self._call("extract_intents", {"query": query}, lambda rng: split_intents(query))

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """Per intent, the candidate whose text shares the most terms with it (ties: retrieval order);
        the first candidate when no intent shares a term with any of them."""
        def run(rng: random.Random) -> list[str]:
            picked: list[str] = []
            for intent in split_intents(query):
                words = set(terms(intent))
                scored = [(len(words & set(terms(f"{k} {blurb}"))), -i) for i, (k, blurb) in enumerate(candidates)]
                if scored and max(scored)[0] > 0:
                    key = candidates[-max(scored)[1]][0]
                    if key not in picked:
                        picked.append(key)
            return picked or ([candidates[0][0]] if candidates else [])
        return self._call("select_tools", {"query": query, "candidates": [list(c) for c in candidates]}, run)

    def doc_quality(self, tool_doc: str) -> RoleCall:
        """The rules of ``core.doc_quality`` over the rendered documentation (no model involved)."""
        from core.doc_quality import issues_of_doc, score_of

        def run(_rng: random.Random) -> dict:
            found = issues_of_doc(tool_doc)
            return {"score": score_of(found), "issues": found}
        return self._call("doc_quality", {"doc": tool_doc}, run)
