"""Roles answered by a chat model: our prompts, tolerant parsing, every call in the ledger."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.llm import prompts
from core.llm.base import CallRecord, ChatBackend, LLMBadResponse, LLMError, RoleCall
from core.llm.ledger import Ledger, request_hash
from core.llm.parsing import parse_blocks, parse_bool, parse_json_object, parse_score, parse_single

DEFAULT_TEMPERATURES = {"judge_sufficiency": 0.0, "score_retrieval": 0.0, "extract_intents": 0.0,
                        "select_tools": 0.0}


class PromptedOperators:
    def __init__(self, backend: ChatBackend, ledger: Ledger | None = None, *, seed: int | None = None,
                 temperatures: Mapping[str, float] | None = None, max_tokens: int = 600) -> None:
        self.backend = backend
        self.ledger = ledger
        self.seed = seed
        self.temperatures = {**DEFAULT_TEMPERATURES, **(temperatures or {})}
        self.max_tokens = max_tokens
        self.name = backend.name
        self.model = backend.model

    def _call(self, role: str, prompt: str, parse: Callable[[str], Any], temperature: float, nonce: int = 0) -> RoleCall:
        temperature = self.temperatures.get(role, temperature)
        messages = [{"role": "system", "content": prompts.SYSTEM}, {"role": "user", "content": prompt}]
        seed = None if self.seed is None else self.seed * 100_003 + nonce
        start = time.perf_counter()
        text, error, value, tokens = "", None, None, (0, 0)
        try:
            chat_for = getattr(self.backend, "chat_for", None)  # replay needs the role to find the request
            if chat_for is not None:
                reply = chat_for(role, messages, temperature=temperature, max_tokens=self.max_tokens, seed=seed)
            else:
                reply = self.backend.chat(messages, temperature=temperature, max_tokens=self.max_tokens, seed=seed)
            text, tokens = reply.text, (reply.tokens_in, reply.tokens_out)
            value = parse(text)
        except LLMError as exc:
            error = f"{type(exc).__name__}: {exc}"
        call_id = None
        if self.ledger is not None:
            call_id = self.ledger.record(CallRecord(
                role=role, backend=self.backend.name, model=self.backend.model, temperature=temperature,
                request_hash=request_hash(self.backend.name, self.backend.model, role, temperature, seed, messages),
                prompt=json.dumps(messages, ensure_ascii=False), response=text, tokens_in=tokens[0],
                tokens_out=tokens[1], latency_s=time.perf_counter() - start, error=error))
        return RoleCall(role, value, call_id, error is None, error)

    @staticmethod
    def _some_blocks(text: str) -> list[str]:
        blocks = parse_blocks(text)
        if not blocks:
            raise LLMBadResponse("no {BEGIN}…{END} block in the answer")
        return blocks

    @staticmethod
    def _one_block(text: str) -> str:
        single = parse_single(text)
        if not single:
            raise LLMBadResponse("empty answer")
        return single

    def pseudo_tools(self, query, *, max_tools=3, temperature=0.7):
        return self._call("pseudo_tools", prompts.pseudo_tools(query, max_tools),
                          lambda t: self._some_blocks(t)[:max_tools], temperature)

    def refine(self, ancestor, current, exemplars, query, *, temperature=0.7):
        return self._call("refine", prompts.refine(ancestor, current, exemplars, query), self._one_block, temperature)

    def refine_all(self, descriptions, exemplars, query, *, temperature=0.7):
        return self._call("refine_all", prompts.refine_all(descriptions, exemplars, query), self._some_blocks,
                          temperature)

    def judge_sufficiency(self, query, exemplars):
        return self._call("judge_sufficiency", prompts.judge_sufficiency(query, exemplars), parse_bool, 0.0)

    def scatter(self, ancestor, exemplars, *, temperature=1.5, nonce=0):
        return self._call("scatter", prompts.scatter(ancestor, exemplars), self._one_block, temperature, nonce)

    def seed_population(self, ancestor, exemplars, n, *, temperature=1.5):
        return self._call("seed_population", prompts.seed_population(ancestor, exemplars, n),
                          lambda t: self._some_blocks(t)[:n], temperature)

    def crossover(self, a, b, ancestor, *, temperature=1.5, nonce=0):
        return self._call("crossover", prompts.crossover(a, b, ancestor), self._one_block, temperature, nonce)

    def mutate(self, description, ancestor, *, temperature=1.5, nonce=0):
        return self._call("mutate", prompts.mutate(description, ancestor), self._one_block, temperature, nonce)

    def guided_mutate(self, description, low_tools, *, temperature=1.5, nonce=0):
        return self._call("guided_mutate", prompts.guided_mutate(description, low_tools), self._one_block,
                          temperature, nonce)

    def score_retrieval(self, query, blurbs):
        return self._call("score_retrieval", prompts.score_retrieval(query, blurbs), parse_score, 0.0)

    def synthetic_queries(self, tool_doc, m, *, temperature=0.7):
        return self._call("synthetic_queries", prompts.synthetic_queries(tool_doc, m),
                          lambda t: self._some_blocks(t)[:m], temperature)

    def extract_intents(self, query):
        def parse(text):
            intents = parse_json_object(text, {"intents": list})["intents"]
            intents = [i.strip() for i in intents if isinstance(i, str) and i.strip()]
            if not intents:
                raise LLMBadResponse("no intents in the answer")
            return intents
        return self._call("extract_intents", prompts.extract_intents(query), parse, 0.0)

    def select_tools(self, query, candidates: Sequence[tuple[str, str]]):
        known = {k for k, _ in candidates}

        def parse(text):
            picked = parse_json_object(text, {"tools": list})["tools"]
            return [k for k in dict.fromkeys(picked) if isinstance(k, str) and k in known]
        return self._call("select_tools", prompts.select_tools(query, candidates), parse, 0.0)
