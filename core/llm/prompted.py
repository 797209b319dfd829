"""Roles answered by a chat model: our prompts (``prompts.py``), tolerant parsing, every call in the ledger.

A role never raises: a transport error, a refusal or an unreadable answer is recorded in the ledger
with its error and returned as ``RoleCall(ok=False)``, so the strategy keeps the parent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.llm import prompts
from core.llm.base import ChatBackend, ChatReply, LLMBadResponse, RoleCall
from core.llm.framework import check_seed, failure_text, record_role_call
from core.llm.ledger import Ledger
from core.llm.parsing import parse_blocks, parse_bool, parse_json_object, parse_score, parse_single
from core.llm.roles import ROLES

# Verdicts, scores and extraction should not vary between identical requests.
DEFAULT_TEMPERATURES = {"judge_sufficiency": 0.0, "score_retrieval": 0.0, "extract_intents": 0.0,
                        "select_tools": 0.0}
_SEED_STRIDE = 100_003  # keeps (seed, nonce) pairs from colliding for any nonce a strategy uses


def _some_blocks(text: str) -> list[str]:
    blocks = parse_blocks(text)
    if not blocks:
        raise LLMBadResponse("no {BEGIN}…{END} block in the answer")
    return blocks


def _one_block(text: str) -> str:
    single = parse_single(text)
    if not single:
        raise LLMBadResponse("empty answer")
    return single


def _strings(items: list[Any], field: str) -> list[str]:
    out = [i.strip() for i in items if isinstance(i, str) and i.strip()]
    if not out:
        raise LLMBadResponse(f"field {field!r} holds no non-empty strings")
    return list(dict.fromkeys(out))


class PromptedOperators:
    """The :class:`core.llm.roles.Operators` roles, each one chat call to ``backend``."""

    def __init__(self, backend: ChatBackend, ledger: Ledger | None = None, *, seed: int | None = None,
                 temperatures: Mapping[str, float] | None = None, max_tokens: int = 600) -> None:
        seed = None if seed is None else check_seed(seed)
        for role, t in (temperatures or {}).items():
            if role not in ROLES:
                raise ValueError(f"temperatures names an unknown role {role!r}; roles: {', '.join(ROLES)}")
            if isinstance(t, bool) or not isinstance(t, int | float) or not 0.0 <= t <= 2.0:
                raise ValueError(f"temperatures[{role!r}] must be a number in [0, 2], not {t!r}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, not {max_tokens!r}")
        self.backend = backend
        self.ledger = ledger
        self.seed = seed
        self.temperatures = {**DEFAULT_TEMPERATURES, **(temperatures or {})}
        self.max_tokens = max_tokens
        self.name = backend.name
        self.model = backend.model

    def __repr__(self) -> str:
        return f"PromptedOperators({self.backend!r}, seed={self.seed!r})"

    def _chat(self, role: str, messages: list[dict[str, str]], temperature: float, seed: int | None) -> ChatReply:
        chat_for = getattr(self.backend, "chat_for", None)  # a replaying backend needs the role for the hash
        if chat_for is not None:
            return chat_for(role, messages, temperature=temperature, max_tokens=self.max_tokens, seed=seed)
        return self.backend.chat(messages, temperature=temperature, max_tokens=self.max_tokens, seed=seed)

    def ask(self, role: str, prompt: str, parse: Callable[[str], Any], temperature: float,
            nonce: int = 0, system: str | None = None) -> RoleCall:
        """One recorded chat call for ``role``: ``parse`` turns the answer into the role's value. ``system``
        replaces the role's default system message (the other role families, through
        :class:`core.llm.framework.PromptedRoles`, bring their own)."""
        temperature = float(self.temperatures.get(role, temperature))
        messages = [{"role": "system", "content": system or prompts.system_for(role)},
                    {"role": "user", "content": prompt}]
        seed = None if self.seed is None else self.seed * _SEED_STRIDE + int(nonce)
        started = time.perf_counter()
        text, error, value, tokens = "", None, None, (0, 0)
        try:
            reply = self._chat(role, messages, temperature, seed)
            text = reply.text
            # A replayed answer cost nothing; its tokens were counted when it was first bought.
            tokens = (0, 0) if reply.cached else (reply.tokens_in, reply.tokens_out)
            value = parse(text)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a recorded, non-fatal RoleCall
            error = failure_text(exc)
        call_id = record_role_call(self.ledger, role=role, backend=self.backend.name, model=self.backend.model,
                                   temperature=temperature, seed=seed, request=messages, response=text,
                                   started=started, tokens=tokens, error=error)
        return RoleCall(value=value, call_id=call_id, ok=error is None, error=error, role=role)

    # -- roles (docstrings of the contract: core.llm.roles.Operators) -----------------------------

    def pseudo_tools(self, query: str, *, max_tools: int = 3, temperature: float = 0.7) -> RoleCall:
        """FitText §4.2: pseudo-tool descriptions in {BEGIN}…{END} blocks, at most ``max_tools``."""
        return self.ask("pseudo_tools", prompts.pseudo_tools(query, max_tools),
                        lambda t: _some_blocks(t)[:max_tools], temperature)

    def refine(self, ancestor: str, current: str, exemplars: Sequence[str], query: str, *,
               temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 3 step 7 / Eq. 11 (PARSE SINGLE of LLM_refine); also Alg. 1 step 14."""
        return self.ask("refine", prompts.refine(ancestor, current, exemplars, query), _one_block, temperature)

    def refine_all(self, descriptions: Sequence[str], exemplars: Sequence[str], query: str, *,
                   temperature: float = 0.7) -> RoleCall:
        """FitText Alg. 4 steps 10–11 / Eq. 13 (PARSE BLOCKS of LLM_refine)."""
        return self.ask("refine_all", prompts.refine_all(descriptions, exemplars, query), _some_blocks,
                        temperature)

    def judge_sufficiency(self, query: str, exemplars: Sequence[str]) -> RoleCall:
        """FitText Alg. 4 step 7 (LLM_judge)."""
        return self.ask("judge_sufficiency", prompts.judge_sufficiency(query, exemplars), parse_bool, 0.0)

    def scatter(self, ancestor: str, exemplars: Sequence[str], *, temperature: float = 1.5,
                nonce: int = 0) -> RoleCall:
        """FitText Eq. 14 (LLM_scatter), one child per call; ``nonce`` varies the seed per child."""
        return self.ask("scatter", prompts.scatter(ancestor, exemplars), _one_block, temperature, nonce)

    def seed_population(self, ancestor: str, exemplars: Sequence[str], n: int, *,
                        temperature: float = 1.5) -> RoleCall:
        """FitText Alg. 6 step 3 (LLM_seed): up to ``n`` descriptions in one call."""
        return self.ask("seed_population", prompts.seed_population(ancestor, exemplars, n),
                        lambda t: _some_blocks(t)[:n], temperature)

    def crossover(self, a: str, b: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
                  temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """FitText Alg. 1 step 9 (LLM_cross), shown the request, the ancestor and the seed exemplars."""
        return self.ask("crossover", prompts.crossover(a, b, ancestor, query, exemplars), _one_block, temperature,
                        nonce)

    def mutate(self, description: str, ancestor: str, *, query: str = "", exemplars: Sequence[str] = (),
               temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """FitText Alg. 1 step 10 (LLM_mut), shown the request, the ancestor and the seed exemplars."""
        return self.ask("mutate", prompts.mutate(description, ancestor, query, exemplars), _one_block, temperature,
                        nonce)

    def guided_mutate(self, description: str, low_tools: Sequence[str], *, ancestor: str = "", query: str = "",
                      exemplars: Sequence[str] = (), temperature: float = 1.5, nonce: int = 0) -> RoleCall:
        """FitText Eq. 21 (LLM_guided), shown the request, the ancestor and the seed exemplars as well."""
        return self.ask("guided_mutate", prompts.guided_mutate(description, low_tools, ancestor, query, exemplars),
                        _one_block, temperature, nonce)

    def score_retrieval(self, query: str, blurbs: Sequence[str]) -> RoleCall:
        """LLM_score of FitText Eq. 15, read as a number in [0, 1]."""
        return self.ask("score_retrieval", prompts.score_retrieval(query, blurbs), parse_score, 0.0)

    def synthetic_queries(self, tool_doc: str, m: int, *, temperature: float = 0.7) -> RoleCall:
        """Re-Invoke §3.1 query generator. One call asks for all ``m`` requests (the paper samples one per
        call); the blocks are de-duplicated, so fewer than ``m`` may come back."""
        return self.ask("synthetic_queries", prompts.synthetic_queries(tool_doc, m),
                        lambda t: _some_blocks(t)[:m], temperature)

    def extract_intents(self, query: str) -> RoleCall:
        """Re-Invoke §3.2 intent extractor, as JSON ``{"intents": [...]}``."""
        def parse(text: str) -> list[str]:
            return _strings(parse_json_object(text, {"intents": list})["intents"], "intents")
        return self.ask("extract_intents", prompts.extract_intents(query), parse, 0.0)

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The selector of CSR@k (ToolScope Eq. 6): keys picked from the candidates; unknown keys are dropped."""
        known = {k for k, _ in candidates}

        def parse(text: str) -> list[str]:
            picked = parse_json_object(text, {"tools": list})["tools"]
            return [k for k in dict.fromkeys(p for p in picked if isinstance(p, str)) if k in known]
        return self.ask("select_tools", prompts.select_tools(query, candidates), parse, 0.0)

    def doc_quality(self, tool_doc: str) -> RoleCall:
        """A 1–5 rating of a tool's documentation and the problems found; the score is clamped to 1–5."""
        def parse(text: str) -> dict:
            data = parse_json_object(text, {"score": (int, float), "issues": list})
            issues = [" ".join(str(i).split()) for i in data["issues"] if str(i).strip()]
            return {"score": int(min(5, max(1, round(float(data["score"]))))), "issues": issues}
        return self.ask("doc_quality", prompts.doc_quality(tool_doc), parse, 0.0)
