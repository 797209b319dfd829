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

    @staticmethod
    def from_json(d: dict[str, Any]) -> RetrievalResult:
        """The inverse of :meth:`to_json` (scores and seconds as rounded there)."""
        trace = tuple(TraceEvent(e["kind"], {k: v for k, v in e.items() if k != "kind"}) for e in d.get("trace", ()))
        return RetrievalResult(tuple(d["keys"]), tuple(float(s) for s in d["scores"]), trace,
                               float(d.get("seconds", 0.0)))


class Strategy(Protocol):
    name: str

    def retrieve(self, query: str, k: int) -> RetrievalResult: ...


def traced_intents(operators: Any, query: str, trace: list[TraceEvent]) -> list[str]:
    """The query's intents from the ``extract_intents`` role, recorded in the trace; the query
    itself when the call fails or returns nothing."""
    rc = operators.extract_intents(query)
    trace.append(TraceEvent("llm_call", {"role": rc.role, "call_id": rc.call_id, "ok": rc.ok, "error": rc.error,
                                         "output": rc.value}))
    found = [i for i in (rc.value or []) if isinstance(i, str) and i.strip()] if rc.ok else []
    return found or [query]
