"""Scattershot: S diverse children per ancestor generated in parallel, then VOTE (FitText Alg. 5, Eq. 14)."""

from __future__ import annotations

from core.strategies.base import TraceEvent
from core.strategies.pseudo import PseudoToolStrategy, interleave
from core.strategies.vote import vote


class ScattershotStrategy(PseudoToolStrategy):
    name = "scattershot"

    def __init__(self, search_engine, *, fan_out: int = 5, temperature: float = 1.5, budget: int = 5, **kw):
        super().__init__(search_engine, **kw)
        if fan_out < 1:
            raise ValueError(f"fan_out must be at least 1, got {fan_out}")
        self.fan_out = int(fan_out)
        self.temperature = float(temperature)
        self.budget = int(budget)

    def _lineage(self, k: int, ai: int, ancestor: str, trace: list[TraceEvent], memory) -> list[tuple[str, float]]:
        seed = self.ret(ancestor, trace, ancestor=ai, seed=True)  # Alg. 5 step 3
        exemplars = self.blurbs(seed.keys)
        calls = self.parallel(
            lambda i, a=ancestor, e=exemplars: self.ops.scatter(a, e, temperature=self.temperature, nonce=i),
            list(range(self.fan_out)),
        )
        children = []
        for ci, c in enumerate(calls):
            text = self.call(trace, c, ancestor=ai, child=ci)
            if text:
                children.append(text)
                trace.append(TraceEvent("description", {"id": f"a{ai}c{ci}", "text": text, "origin": "scatter",
                                                        "parents": [f"a{ai}"], "generation": 1}))
        population = self.ret_many(children, trace, ancestor=ai) if children else [seed]
        # keep at least k so a larger k is not cut to the budget B
        votes = vote(population, max(self.budget, k))
        trace.append(TraceEvent("vote", {"ancestor": ai, "votes": [v.__dict__ for v in votes]}))
        return [(v.key, v.mean_similarity) for v in votes]

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        lineage = lambda ai, a, tr, mem: self._lineage(k, ai, a, tr, mem)  # noqa: E731
        return interleave(self.run_lineages(self.ancestors(query, trace), lineage, trace))
