"""A scripted operator set for checking the strategies' mechanics (the LLM is the one part
we cannot run here; the offline operators get their own tests in tests/core/llm)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

import pytest

from core.search.engine import SearchEngine


@dataclass(frozen=True)
class Call:
    value: object
    call_id: int | None
    ok: bool
    error: str | None
    role: str


class ScriptedOperators:
    """Answers every role from the inputs it gets; roles named in ``fail`` always fail."""

    def __init__(self, fail: set[str] | None = None, pseudo: list[str] | None = None):
        self.fail = fail or set()
        self.pseudo = pseudo
        self.calls: list[str] = []
        self.context: list[tuple[str, dict]] = []  # (role, the query / exemplars / ancestor it was given)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def _ret(self, role, value):
        with self._lock:
            self.calls.append(role)
            cid = next(self._ids)
        if role in self.fail:
            return Call(None, cid, False, f"{role} failed on purpose", role)
        return Call(value, cid, True, None, role)

    def pseudo_tools(self, query, *, max_tools=3, temperature=0.7):
        return self._ret("pseudo_tools", self.pseudo if self.pseudo is not None else [f"Tool that helps: {query}"])

    def refine(self, ancestor, current, exemplars, query, *, temperature=0.7):
        return self._ret("refine", f"{current} {exemplars[0] if exemplars else ''}".strip())

    def refine_all(self, descriptions, exemplars, query, *, temperature=0.7):
        return self._ret("refine_all", [f"{d} {exemplars[0]}" for d in descriptions])

    def judge_sufficiency(self, query, exemplars):
        return self._ret("judge_sufficiency", False)

    def scatter(self, ancestor, exemplars, *, temperature=1.5, nonce=0):
        return self._ret("scatter", f"{ancestor} like {exemplars[nonce % len(exemplars)]}")

    def seed_population(self, ancestor, exemplars, n, *, temperature=1.5):
        return self._ret("seed_population", [f"{ancestor} variant {i} {exemplars[i % len(exemplars)]}" for i in range(n)])

    def _given(self, role, **context):
        with self._lock:
            self.context.append((role, {k: v for k, v in context.items() if v is not None}))

    def crossover(self, a, b, ancestor, *, query=None, exemplars=None, temperature=1.5, nonce=0):
        self._given("crossover", query=query, exemplars=exemplars, ancestor=ancestor)
        return self._ret("crossover", f"{a.split(' ')[0]} {b}")

    def mutate(self, description, ancestor, *, query=None, exemplars=None, temperature=1.5, nonce=0):
        self._given("mutate", query=query, exemplars=exemplars, ancestor=ancestor)
        return self._ret("mutate", f"{description} changed")

    def guided_mutate(self, description, low_tools, *, ancestor=None, query=None, exemplars=None, temperature=1.5,
                      nonce=0):
        self._given("guided_mutate", query=query, exemplars=exemplars, ancestor=ancestor)
        return self._ret("guided_mutate", f"{description} not {len(low_tools)}")

    def score_retrieval(self, query, blurbs):
        return self._ret("score_retrieval", 0.5)

    def synthetic_queries(self, tool_doc, m, *, temperature=0.7):
        return self._ret("synthetic_queries", [f"how do I use {tool_doc.split(':')[0]} {i}" for i in range(m)])

    def extract_intents(self, query):
        return self._ret("extract_intents", [p.strip() for p in query.split(" and ") if p.strip()])


@pytest.fixture
def ops():
    return ScriptedOperators()


@pytest.fixture
def engine(tiny_tools, hashing_embedder):
    return SearchEngine.build(tiny_tools, hashing_embedder)
