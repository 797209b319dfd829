"""Multi-Turn IBI: one global refinement over all descriptions, optional early-stop judge (FitText Alg. 4)."""

from __future__ import annotations

from core.strategies.base import TraceEvent
from core.strategies.pseudo import PseudoToolStrategy, merge_by_max


class IBIStrategy(PseudoToolStrategy):
    name = "ibi"

    def __init__(self, search_engine, *, turns: int = 3, temperature: float = 0.7, judge: bool = True, **kw):
        super().__init__(search_engine, **kw)
        if turns < 1:
            raise ValueError(f"turns must be at least 1, got {turns}")
        self.turns = int(turns)
        self.temperature = float(temperature)
        self.judge = bool(judge)

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        descriptions = self.ancestors(query, trace)
        exemplars: list[str] = []
        for t in range(1, self.turns + 1):
            for r in self.ret_many(descriptions, trace, turn=t):  # Alg. 4 steps 3–6
                exemplars.extend(b for b in self.blurbs(r.keys) if b not in exemplars)
            if self.judge and self.call(trace, self.ops.judge_sufficiency(query, exemplars), turn=t):
                trace.append(TraceEvent("early_stop", {"turn": t, "reason": "judge found the exemplars sufficient"}))
                break
            refined = self.call(trace, self.ops.refine_all(descriptions, exemplars, query, temperature=self.temperature),
                                turn=t)
            if not refined:
                trace.append(TraceEvent("early_stop", {"turn": t, "reason": "refinement returned no description"}))
                break
            descriptions = list(refined)
            for i, d in enumerate(descriptions):
                trace.append(TraceEvent("description", {"id": f"t{t}d{i}", "text": d, "origin": "refine_all",
                                                        "generation": t}))
        found = self.ret_many(descriptions, trace, final=True)
        for d, r in zip(descriptions, found, strict=True):
            self.memory.add(d, r.keys, 0)
        return merge_by_max(found)
