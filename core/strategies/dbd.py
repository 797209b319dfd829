"""Multi-Turn DBD: per-lineage refinement with accumulating exemplars (FitText Alg. 3, Eqs. 2–5)."""

from __future__ import annotations

from core.strategies.base import TraceEvent
from core.strategies.pseudo import PseudoToolStrategy, merge_by_max


class DBDStrategy(PseudoToolStrategy):
    name = "dbd"

    def __init__(self, search_engine, *, turns: int = 3, temperature: float = 0.7, **kw):
        super().__init__(search_engine, **kw)
        if turns < 1:
            raise ValueError(f"turns must be at least 1, got {turns}")
        if temperature > 0.7:
            raise ValueError(f"DBD refines at temperature ≤ 0.7 (FitText §4.3), got {temperature}")
        self.turns = int(turns)
        self.temperature = float(temperature)

    def _lineage(self, query: str, index: int, ancestor: str, trace: list[TraceEvent], memory=None) -> str:
        current = ancestor
        exemplars: list[str] = []
        for t in range(1, self.turns + 1):
            r = self.ret(current, trace, lineage=index, turn=t)  # Eq. 2
            for b in self.blurbs(r.keys):  # Eq. 3, deduplicated
                if b not in exemplars:
                    exemplars.append(b)
            refined = self.call(trace, self.ops.refine(ancestor, current, exemplars, query, temperature=self.temperature),
                                lineage=index, turn=t)  # Eq. 4
            if refined:
                current = refined
                trace.append(TraceEvent("description", {"id": f"a{index}t{t}", "text": refined, "origin": "refine",
                                                        "parents": [f"a{index}t{t - 1}" if t > 1 else f"a{index}"],
                                                        "generation": t}))
        return current

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        ancestors = self.ancestors(query, trace)
        finals = self.run_lineages(ancestors, lambda i, a, tr, mem: self._lineage(query, i, a, tr, mem), trace)
        found = self.ret_many(finals, trace, final=True)  # Eq. 5
        for d, r in zip(finals, found, strict=True):
            self.memory.add(d, r.keys, 0)
        return merge_by_max(found)
