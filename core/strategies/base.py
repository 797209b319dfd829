"""The one interface every retrieval strategy implements, and its typed trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class TraceEvent:
    """One step of a strategy's work, in order. ``kind`` names the step; ``data`` is JSON-able."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RetrievalResult:
    keys: tuple[str, ...]
    scores: tuple[float, ...]
    trace: tuple[TraceEvent, ...] = ()
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "keys": list(self.keys),
            "scores": [round(s, 6) for s in self.scores],
            "trace": [{"kind": e.kind, **e.data} for e in self.trace],
            "seconds": round(self.seconds, 6),
        }


class Strategy(Protocol):
    name: str

    def retrieve(self, query: str, k: int) -> RetrievalResult: ...
