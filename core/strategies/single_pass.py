"""Single-Pass: the LLM's pseudo-tool descriptions, each retrieved once (FitText §4.2)."""

from __future__ import annotations

from core.strategies.base import TraceEvent
from core.strategies.pseudo import PseudoToolStrategy, merge_by_max


class SinglePassStrategy(PseudoToolStrategy):
    name = "single_pass"

    def _run(self, query: str, k: int, trace: list[TraceEvent]) -> list[tuple[str, float]]:
        descriptions = self.ancestors(query, trace)
        found = self.ret_many(descriptions, trace, generation=0)
        for d, r in zip(descriptions, found, strict=True):
            self.memory.add(d, r.keys, 0)  # App. C.2 write point 1
        return merge_by_max(found)
