"""The LLM roles of CONTDA's documentation adaptation behind one protocol (the ``adaptation`` family of
:mod:`core.llm.framework`).

Roles (CONTDA §4, App. A): propose probe queries on three tracks (A.2), turn execution traces into
revision suggestions (A.4 step 1, Eq. 8), rewrite the documentation from them (A.4 step 2, Eq. 9),
write a cluster's relational notes (A.7), and pick tools for a query from retrieved candidates (the
agent's selection step of the evaluation, App. B.3), and, when a picked tool's call fails, choose a fallback
to call instead (the agent of CONTDA Fig. 9 reading the relational notes). Every role returns a
:class:`core.llm.base.RoleCall` and never raises. Two implementations: ``offline`` (rules) and
``prompted`` (a chat model through prompted LLM operators), built by :func:`core.llm.framework.make_roles`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.llm.base import RoleCall
from core.models import Tool
from core.trials.evidence import TrialOutcome, as_outcome

# The three probe tracks of CONTDA App. A.2.
KNOWN = "known"  # verify what the tool's own documentation states
PEER = "peer"  # try a capability a related tool documents but this one does not
NOVEL = "novel"  # look for something neither source suggests
TRACKS = (KNOWN, PEER, NOVEL)


@dataclass(frozen=True)
class Probe:
    """One probing request. ``arguments`` is None when the proposer left argument filling to the
    executor side (the offline planner fills them from the request)."""

    track: str
    query: str
    arguments: Mapping[str, Any] | None = None
    rationale: str = ""
    peer: str = ""  # the related tool's key a peer-track probe was taken from

    def __post_init__(self) -> None:
        if self.track not in TRACKS:
            raise ValueError(f"probe {self.query!r}: unknown track {self.track!r}; valid tracks: {', '.join(TRACKS)}")

    def to_json(self) -> dict[str, Any]:
        return {"track": self.track, "query": self.query, "arguments": None if self.arguments is None
                else dict(self.arguments), "rationale": self.rationale, "peer": self.peer}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Probe:
        args = data.get("arguments")
        return cls(str(data["track"]), str(data["query"]), None if args is None else dict(args),
                   str(data.get("rationale", "")), str(data.get("peer", "")))


@dataclass(frozen=True)
class ProbeTrace:
    """A probe and what happened when it was run (CONTDA Alg. 1 line 17, one element of F_i); its outcome is
    one of the trial classes (:class:`core.trials.evidence.TrialOutcome`)."""

    probe: Probe
    executed: bool
    ok: bool
    outcome: TrialOutcome
    arguments: Mapping[str, Any] = field(default_factory=dict)
    response: Any = None
    error: str = ""
    seconds: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "outcome", as_outcome(self.outcome, "ProbeTrace.outcome"))

    def to_json(self) -> dict[str, Any]:
        return {"probe": self.probe.to_json(), "executed": self.executed, "ok": self.ok, "outcome": str(self.outcome),
                "arguments": dict(self.arguments), "response": self.response, "error": self.error,
                "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProbeTrace:
        return cls(Probe.from_json(data["probe"]), bool(data["executed"]), bool(data["ok"]), str(data["outcome"]),
                   dict(data.get("arguments") or {}), data.get("response"), str(data.get("error", "")),
                   float(data.get("seconds", 0.0)))


@dataclass(frozen=True)
class Peer:
    """A related tool as shown to the roles: its key, name and current documentation body."""

    key: str
    name: str
    doc: str


@dataclass(frozen=True)
class ClusterMember:
    """A tool of one Stage II cluster (CONTDA App. A.6–A.7). ``similar`` holds its cosine similarity to
    the other members; ``fallbacks`` the members whose overlap reaches γ (computed once by the caller so
    every implementation agrees on them); ``traces`` its Stage I evidence (empty for tools not explored)."""

    key: str
    name: str
    doc: str
    similar: Mapping[str, float] = field(default_factory=dict)
    fallbacks: tuple[str, ...] = ()
    traces: tuple[ProbeTrace, ...] = ()


class AdaptationOperators(Protocol):
    name: str
    model: str

    def propose_probes(self, tool: Tool, doc: str, peers: Sequence[Peer], explored: Sequence[str],
                       suggestions: Sequence[str], *, iteration: int) -> RoleCall:
        """CONTDA App. A.2 (Alg. 1 line 13, GENERATEPROBES): one probe per track for ``tool`` given its
        current doc, the sampled related tools R_i, the queries already explored and the last suggestions
        (value: tuple[Probe, ...], at most one per track)."""
        ...

    def suggest(self, tool: Tool, doc: str, traces: Sequence[ProbeTrace], peers: Sequence[Peer]) -> RoleCall:
        """CONTDA Eq. 8 (SUGGEST): revision suggestions from the traces against the doc and the peers
        (value: tuple[str, ...])."""
        ...

    def refine_doc(self, tool: Tool, doc: str, suggestions: Sequence[str], peers: Sequence[Peer],
                   traces: Sequence[ProbeTrace]) -> RoleCall:
        """CONTDA Eq. 9 (REFINE): the rewritten documentation body (value: str, never empty)."""
        ...

    def relational_notes(self, members: Sequence[ClusterMember]) -> RoleCall:
        """CONTDA App. A.7 (ANNOTATERELATIONS): the notes section for each member that has something to
        say, without the heading (value: dict key -> notes text; members with nothing get no entry)."""
        ...

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent's pick among retrieved (key, documentation) candidates (value: list of keys)."""
        ...

    def choose_fallback(self, query: str, failed: tuple[str, str], error: str,
                        candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent after a failed call (CONTDA Fig. 9, App. C.2.1): ``failed`` is the (key, documentation) of
        the tool whose call failed with ``error``; the value is the key of one ``candidates`` tool to call
        instead, or None to stop (the documentation names no usable fallback)."""
        ...

