"""The role-level interface strategies call: one method per role, each returning a :class:`RoleCall`.

Two implementations: :class:`core.llm.prompted.PromptedOperators` (a chat model answers our prompts)
and :class:`core.llm.offline.OfflineOperators` (deterministic heuristics, no model), built by
:func:`core.llm.framework.make_roles` (the ``strategy`` family). A failed role
returns ``RoleCall(ok=False, value=None, error=...)`` and never raises, so the caller keeps the parent.

``nonce`` (population roles) tells identical requests apart reproducibly: two children of the same
parents must differ, and a rerun with the same seed must give the same children.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from core.llm.base import RoleCall

ROLES = (
    "pseudo_tools", "refine", "refine_all", "judge_sufficiency", "scatter", "seed_population", "crossover",
    "mutate", "guided_mutate", "score_retrieval", "synthetic_queries", "extract_intents", "select_tools", "doc_quality",
)


@runtime_checkable
class Operators(Protocol):
    name: str
    model: str

    def pseudo_tools(self, query: str, *, max_tools: int = 3, temperature: float = 0.7) -> RoleCall[list[str]]:
        """FitText §4.2 (Single-Pass; the ancestors D_0 of Algs. 3–8): descriptions of tools that would answer the query."""
        ...

    def refine(self, ancestor: str, current: str, exemplars: Sequence[str], query: str, *,
               temperature: float = 0.7) -> RoleCall[str]:
        """FitText Alg. 3 step 7 (DBD, Eq. 11) and Alg. 1 step 14 (memetic local search): the current
        description rewritten toward the exemplar blurbs while keeping the ancestor's intent."""
        ...

    def refine_all(self, descriptions: Sequence[str], exemplars: Sequence[str], query: str, *,
                   temperature: float = 0.7) -> RoleCall[list[str]]:
        """FitText Alg. 4 step 10 (IBI, Eq. 13): the whole description set refined against all exemplars."""
        ...

    def judge_sufficiency(self, query: str, exemplars: Sequence[str]) -> RoleCall[bool]:
        """FitText Alg. 4 step 7: do the tools found so far cover the query (stop IBI early)?"""
        ...

    def scatter(self, ancestor: str, exemplars: Sequence[str], *, temperature: float = 1.5,
                nonce: int = 0) -> RoleCall[str]:
        """FitText Eq. 14 (Scattershot, Alg. 5): one diverse child of the ancestor at high temperature."""
        ...

    def seed_population(self, ancestor: str, exemplars: Sequence[str], n: int, *,
                        temperature: float = 1.5) -> RoleCall[list[str]]:
        """FitText Alg. 6: n initial population members around the ancestor."""
        ...

    def crossover(self, a: str, b: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
                  temperature: float = 1.5, nonce: int = 0) -> RoleCall[str]:
        """FitText Alg. 1 step 9 (LLM_cross) and Alg. 8: one child combining parents a and b. ``query`` (the
        user's request) and ``exemplars`` (blurbs of the ancestor's seed retrieval, Alg. 6) are what FitText's
        public code also gives the operator, so the child keeps serving the request."""
        ...

    def mutate(self, description: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
               temperature: float = 1.5, nonce: int = 0) -> RoleCall[str]:
        """FitText Alg. 1 step 10 (LLM_mut) and Eq. 21's second case: one varied child of a description that
        still serves ``query`` (``exemplars``: as for :meth:`crossover`)."""
        ...

    def guided_mutate(self, description: str, low_tools: Sequence[str], *, ancestor: str = "", query: str = "",
                      exemplars: Sequence[str] = (), temperature: float = 1.5, nonce: int = 0) -> RoleCall[str]:
        """FitText Eq. 21: a child steered away from the bottom-m retrieved tools, keeping the ancestor's
        intent and the request (``exemplars``: as for :meth:`crossover`)."""
        ...

    def score_retrieval(self, query: str, blurbs: Sequence[str]) -> RoleCall[float]:
        """The LLM_score of FitText Eq. 15: how well the retrieved tools serve the query, in [0, 1]."""
        ...

    def synthetic_queries(self, tool_doc: str, m: int, *, temperature: float = 0.7) -> RoleCall[list[str]]:
        """Re-Invoke §3.1: m user requests the tool answers (document expansion)."""
        ...

    def extract_intents(self, query: str) -> RoleCall[list[str]]:
        """Re-Invoke §3.2: the query's separate tool-related intents, background removed."""
        ...

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall[list[str]]:
        """The keys an agent would pick from (key, blurb) candidates (the selector of CSR@k, ToolScope Eq. 6)."""
        ...

    def doc_quality(self, tool_doc: str) -> RoleCall[dict]:
        """A rating of one tool's documentation (``core.doc_quality.render_doc``) for an agent that must find
        and call it: ``{"score": 1..5, "issues": [concrete problems a maintainer can fix]}``."""
        ...
