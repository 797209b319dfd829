"""Offline operators: deterministic, seeded heuristics that stand in for an LLM.

They are not an LLM and are never presented as one. They make every strategy runnable
with no network and no cost: pseudo-tools from the query's action and object words,
Rocchio-style refinement toward exemplar vocabulary, mutation by swapping words for
catalog-vocabulary neighbours at a rate set by temperature, clause crossover, intent
splitting on conjunctions and sentences, and synthetic queries from parameter schemas.
Every call is recorded in the ledger like a model call (backend ``offline``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Sequence
from typing import Any

from core.llm.base import CallRecord, RoleCall
from core.llm.ledger import Ledger, request_hash
from core.llm.vocabulary import CatalogVocabulary
from core.search.tokenize import tokenize

MODEL = "heuristics-v1"
QUESTION = {"what", "what's", "whats", "how", "which", "who", "where", "when", "is", "are", "do", "does", "did",
            "can", "could", "will", "would", "should", "any", "was"}
VERB_FOR_QUESTION = "get"
REQUEST_CUES = QUESTION | {"find", "give", "show", "book", "send", "make", "set", "put", "add", "convert",
                           "translate", "tell", "need", "want", "please", "check", "search", "get", "log", "play",
                           "order", "remind", "schedule", "compute", "calculate", "solve", "estimate",
                           "track", "create", "draft", "email", "text", "post", "cancel", "share", "summarise",
                           "summarize", "read", "pull", "turn", "combine", "split", "recommend", "mark", "claim"}
_LEADS = (r"(?:what|what's|how|is|are|can|could|will|would|do|does|did|which|who|where|when|any|find|give|book|"
          r"send|set|convert|translate|tell|show|get|make|add|remind|log|play|order|check|search|estimate|list|"
          r"track|create|draft|post|cancel|share|summari[sz]e|read|pull|turn|combine|split|recommend|mark|claim|"
          r"compute|calculate|solve|put|email|text)\b")
_SPLIT = re.compile(r"(?:[.;?!]\s+|\s+—\s+|,?\s+and also\s+|,?\s+and then\s+|,?\s+then\s+|,\s+and\s+|,\s+also\s+|"
                    r"\s+and\s+(?=" + _LEADS + r")|,\s+(?=" + _LEADS + r"))", re.IGNORECASE)


_BACKGROUND = re.compile(r"^(?:i|i'm|i am|i've|i have|i'd|we|we're|we are|we've|my|our|it's|it is|there's|"
                         r"just|so|well|ok|okay|hi|hello|hey)\b", re.IGNORECASE)


_SENTENCE = re.compile(r"(?<=[.;?!])\s+|\s+—\s+")


def _has_cue(text: str) -> bool:
    return "?" in text or bool(set(re.findall(r"[a-z']+", text.lower())) & REQUEST_CUES)


def split_intents(query: str) -> list[str]:
    """Re-Invoke §3.2 done by rule. Sentences that ask for something are kept and background
    sentences dropped (when any sentence asks); the kept ones are split on conjunctions that
    start a new request; fragments that are only background chatter are dropped too."""
    sentences = [x.strip() for x in _SENTENCE.split(query) if x and x.strip(" ,.;?!—-")]
    asking = [x for x in sentences if _has_cue(x)]
    parts: list[str] = []
    for sentence in asking or sentences:
        parts.extend(p.strip(" ,.;?!—-") for p in _SPLIT.split(sentence) if p and p.strip(" ,.;?!—-"))
    parts = [p for p in parts if tokenize(p)]
    if not parts:
        return [query.strip()]
    kept = [p for p in parts if _has_cue(p) or not _BACKGROUND.match(p)]
    return kept or parts


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    return (text[0].upper() + text[1:]) if text else text


class OfflineOperators:
    name = "offline"
    model = MODEL

    def __init__(self, vocabulary: CatalogVocabulary, *, seed: int = 0, ledger: Ledger | None = None) -> None:
        self.vocab = vocabulary
        self.seed = int(seed)
        self.ledger = ledger

    # -- plumbing -------------------------------------------------------------------------------

    def _rng(self, role: str, payload: Any) -> random.Random:
        blob = json.dumps([self.seed, role, payload], sort_keys=True, default=str).encode()
        return random.Random(int.from_bytes(hashlib.sha256(blob).digest()[:8], "little"))

    def _call(self, role: str, payload: dict[str, Any], fn, temperature: float = 0.0) -> RoleCall:
        start = time.perf_counter()
        error = None
        try:
            value = fn(self._rng(role, payload))
        except Exception as exc:  # noqa: BLE001 - a heuristic failure is recorded like a model failure
            value, error = None, f"{type(exc).__name__}: {exc}"
        call_id = None
        if self.ledger is not None:
            call_id = self.ledger.record(CallRecord(
                role=role, backend=self.name, model=self.model, temperature=temperature,
                request_hash=request_hash(self.name, self.model, role, temperature, self.seed, payload),
                prompt=json.dumps(payload, ensure_ascii=False, default=str),
                response=json.dumps(value, ensure_ascii=False, default=str), latency_s=time.perf_counter() - start,
                error=error))
        return RoleCall(role, value, call_id, error is None, error)

    # -- term helpers ---------------------------------------------------------------------------

    def _distinctive(self, texts: Sequence[str], exclude: set[str], limit: int, weights=None) -> list[str]:
        score: dict[str, float] = {}
        for i, text in enumerate(texts):
            w = weights[i] if weights else 1.0
            for term in set(tokenize(text)):
                if term not in exclude:
                    score[term] = score.get(term, 0.0) + w * self.vocab.idf(term)
        return [t for t, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]

    def _describe(self, intent: str) -> str:
        words = tokenize(intent)
        raw_first = (re.findall(r"[a-z']+", intent.lower()) or [""])[0]
        verb = VERB_FOR_QUESTION if raw_first in QUESTION or not words else words[0]
        objects = [w for w in words if w != verb and not w.isdigit()][:8] or words
        request = re.sub(r"\s+", " ", intent).strip(" ?.!")
        return _sentence(f"{verb} {' '.join(objects)}: {request[:1].lower() + request[1:]}") + "."

    def _mutate_text(self, text: str, rng: random.Random, rate: float, avoid: set[str] = frozenset()) -> str:
        def swap(m: re.Match) -> str:
            word = m.group(0)
            low = word.lower()
            options = [n for n in self.vocab.neighbours.get(low, ()) if n not in avoid]
            if low in tokenize(low) and options and rng.random() < rate:
                return rng.choice(options[:4])
            return word
        return re.sub(r"[A-Za-z]+", swap, text)

    @staticmethod
    def _clauses(text: str) -> list[str]:
        return [c.strip() for c in re.split(r"[.;:]\s+|,\s+|\s+and\s+", text) if c.strip()]

    # -- roles ----------------------------------------------------------------------------------

    def pseudo_tools(self, query: str, *, max_tools: int = 3, temperature: float = 0.7) -> RoleCall:
        """FitText §4.2: one pseudo-tool description per intent, from its action and object words."""
        return self._call("pseudo_tools", {"query": query, "max_tools": max_tools},
                          lambda rng: [self._describe(i) for i in split_intents(query)[:max_tools]], temperature)

    def refine(self, ancestor: str, current: str, exemplars: Sequence[str], query: str, *,
               temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 3 step 7, Rocchio-style: the lineage's anchor plus the distinctive words of the
        exemplars that share words with the query (weighted by that overlap). Anchoring on the
        ancestor, not on the last rewrite, keeps several turns from drifting away from the intent."""
        def run(rng):
            q = set(tokenize(query)) | set(tokenize(ancestor))
            weights = [len(q & set(tokenize(e))) / (len(q) or 1) for e in exemplars]
            relevant = [(e, w) for e, w in zip(exemplars, weights, strict=True) if w > 0]
            if not relevant:
                return current
            keep = set(tokenize(ancestor)) | set(tokenize(current))
            add = self._distinctive([e for e, _ in relevant], keep, 2 + int(temperature * 2),
                                    [w for _, w in relevant])
            base = ancestor.rstrip(". ")
            return _sentence(f"{base}. Related: {', '.join(add)}") + "." if add else current
        return self._call("refine", {"ancestor": ancestor, "current": current, "exemplars": list(exemplars),
                                     "query": query}, run, temperature)

    def refine_all(self, descriptions: Sequence[str], exemplars: Sequence[str], query: str, *,
                   temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 4 step 10: every description refined against the shared exemplar pool."""
        def run(rng):
            return [self.refine(d, d, exemplars, query, temperature=temperature).value for d in descriptions]
        return self._call("refine_all", {"descriptions": list(descriptions), "exemplars": list(exemplars),
                                         "query": query}, run, temperature)

    def judge_sufficiency(self, query: str, exemplars: Sequence[str]) -> RoleCall:
        """FitText Alg. 4 step 7 by rule: sufficient when the exemplars cover ≥ 60 % of the query's words."""
        def run(rng):
            q = set(tokenize(query))
            covered = q & {t for e in exemplars for t in tokenize(e)}
            return bool(q) and len(covered) / len(q) >= 0.6
        return self._call("judge_sufficiency", {"query": query, "exemplars": list(exemplars)}, run)

    def scatter(self, ancestor: str, exemplars: Sequence[str], *, temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """FitText Eq. 14: a diverse child — the ancestor mutated at τ, crossed with one exemplar's clause."""
        def run(rng):
            base = self._mutate_text(ancestor, rng, min(0.9, 0.15 * temperature))
            if exemplars:
                clause = rng.choice(self._clauses(rng.choice(list(exemplars))) or [""])
                return _sentence(f"{base.rstrip('.')}; {clause}") + "."
            return base
        return self._call("scatter", {"ancestor": ancestor, "exemplars": list(exemplars), "nonce": nonce}, run,
                          temperature)

    def seed_population(self, ancestor: str, exemplars: Sequence[str], n: int, *, temperature: float = 1.5) -> RoleCall:
        """FitText Alg. 6: n variants of the ancestor, each steered toward a different exemplar."""
        def run(rng):
            out = [ancestor]
            for i in range(1, n):
                mutated = self._mutate_text(ancestor, rng, min(0.9, 0.15 * temperature))
                if exemplars:
                    clause = (self._clauses(exemplars[i % len(exemplars)]) or [""])[0]
                    mutated = f"{mutated.rstrip('.')}; {clause}"
                out.append(_sentence(mutated) + ("" if mutated.endswith(".") else "."))
            return list(dict.fromkeys(out))[:n]
        return self._call("seed_population", {"ancestor": ancestor, "exemplars": list(exemplars), "n": n}, run,
                          temperature)

    def crossover(self, a: str, b: str, ancestor: str, *, temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """Clause crossover: the first clause of one parent joined with clauses drawn from the other."""
        def run(rng):
            ca, cb = self._clauses(a), self._clauses(b)
            if not ca or not cb:
                return a or b
            first, second = (ca, cb) if rng.random() < 0.5 else (cb, ca)
            picked = [first[0]] + rng.sample(second, min(len(second), 1 + int(temperature > 1.0)))
            return _sentence("; ".join(dict.fromkeys(picked))) + "."
        return self._call("crossover", {"a": a, "b": b, "ancestor": ancestor, "nonce": nonce}, run, temperature)

    def mutate(self, description: str, ancestor: str, *, temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """Word swaps for catalog-vocabulary neighbours; the swap rate is min(0.9, 0.15·τ)."""
        return self._call("mutate", {"description": description, "ancestor": ancestor, "nonce": nonce},
                          lambda rng: self._mutate_text(description, rng, min(0.9, 0.15 * temperature)), temperature)

    def guided_mutate(self, description: str, low_tools: Sequence[str], *, temperature: float = 1.5,
                      nonce: int = 0) -> RoleCall:
        """FitText Eq. 21 by rule: drop words the weak retrieved tools share with the description, then mutate."""
        def run(rng):
            weak = {t for blurb in low_tools for t in tokenize(blurb)}
            keep = [w for w in re.findall(r"\S+", description) if w.lower().strip(".,;:") not in weak]
            text = " ".join(keep) or description
            return self._mutate_text(text, rng, min(0.9, 0.1 * temperature), avoid=weak)
        return self._call("guided_mutate", {"description": description, "low_tools": list(low_tools),
                                            "nonce": nonce}, run, temperature)

    def score_retrieval(self, query: str, blurbs: Sequence[str]) -> RoleCall:
        """The LLM_score of FitText Eq. 15 by rule: how much of the query the top-3 tools' words cover."""
        def run(rng):
            q = set(tokenize(query))
            if not q or not blurbs:
                return 0.0
            covers = sorted((len(q & set(tokenize(b))) / len(q) for b in blurbs), reverse=True)[:3]
            return round(sum(covers) / len(covers), 4)
        return self._call("score_retrieval", {"query": query, "blurbs": list(blurbs)}, run)

    def synthetic_queries(self, tool_doc: str, m: int, *, temperature: float = 0.7) -> RoleCall:
        """Re-Invoke §3.1 by template: user requests built from the tool's name, description and parameters."""
        def run(rng):
            name, _, rest = tool_doc.partition(":")
            desc, _, params = rest.partition(" Parameters:")
            action = " ".join(tokenize(name)) or name
            clause = (self._clauses(desc) or [desc])[0].strip().rstrip(".")
            clause = clause[:1].lower() + clause[1:]
            pnames = [p.strip().replace("_", " ") for p in params.split(",") if p.strip()]
            templates = [
                "I need to {action}", "Can you {action} for me?", "Please {clause}", "How do I {action}?",
                "{Clause}", "I want something that {clause}", "Help me {action} given a {p}",
                "What tool would {action} with my {p}?", "{Action} — I have the {p} ready", "Quick: {clause}",
                "Is there a way to {action}?", "I'd like to {action} using {p} and {p2}",
            ]
            out: list[str] = []
            order = list(range(len(templates)))
            rng.shuffle(order)
            for i in order:
                p = rng.choice(pnames) if pnames else "details"
                p2 = rng.choice(pnames) if pnames else "options"
                text = templates[i].format(action=action, Action=_sentence(action), clause=clause,
                                           Clause=_sentence(clause), p=p, p2=p2)
                if text not in out:
                    out.append(text)
                if len(out) == m:
                    break
            return out
        return self._call("synthetic_queries", {"tool_doc": tool_doc, "m": m}, run, temperature)

    def extract_intents(self, query: str) -> RoleCall:
        return self._call("extract_intents", {"query": query}, lambda rng: split_intents(query))

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """Per intent, the candidate whose text covers the intent's words best (ties: retrieval order)."""
        def run(rng):
            picked: list[str] = []
            for intent in split_intents(query):
                words = set(tokenize(intent))
                if not words or not candidates:
                    continue
                best = max(range(len(candidates)),
                           key=lambda i: (len(words & set(tokenize(candidates[i][1]))), -i))
                if candidates[best][0] not in picked:
                    picked.append(candidates[best][0])
            return picked or ([candidates[0][0]] if candidates else [])
        return self._call("select_tools", {"query": query, "candidates": [list(c) for c in candidates]}, run)
