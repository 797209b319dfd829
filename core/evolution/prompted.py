"""CONTDA's adaptation roles answered by a chat model through :class:`core.llm.prompted.PromptedOperators`
(same backend, ledger, seed and replay as every other prompted role).

Prompts live in :mod:`core.evolution.prompts`; this module reads the answers, tolerantly (JSON in fences or
with prose around it is found, near-miss field names are accepted) but never loosely: anything that
cannot be turned into the role's value raises :class:`LLMBadResponse`, which ``_call`` records in the
ledger and returns as ``RoleCall(ok=False)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.evolution import prompts
from core.evolution.docs import NOTES_HEADING, split_notes
from core.evolution.roles import TRACKS, ClusterMember, Peer, Probe, ProbeTrace
from core.llm.base import LLMBadResponse, RoleCall
from core.llm.framework import PromptedRoles
from core.llm.parsing import parse_json_object
from core.models import Tool

TEMPERATURES = {"propose_probes": 0.7, "suggest": 0.3, "refine_doc": 0.3, "relational_notes": 0.2}

# A notes section the model put into a description, however it headed it: a markdown heading or bold label
# naming the relational notes, or a line starting "Relational notes:".
_HEADING = re.compile(r"^[ \t]*(?:#+[ \t]*(?:\*\*)?|\*\*)[ \t]*relational[ \t]+notes\b[^\n]*?(?:\*\*)?[ \t]*:?"
                      r"|^[ \t]*relational[ \t]+notes[ \t]*:", re.IGNORECASE | re.MULTILINE)
_LEADING_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?\s*relational\s+notes\s*(?:\*\*)?\s*[:\-–]?\s*(?:\*\*)?\s*",
                              re.IGNORECASE)


def _first(obj: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in obj:
            return obj[name]
    return None


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def parse_probes(text: str, tool: Tool, peers: Sequence[Peer]) -> tuple[Probe, ...]:
    """``{"probes": [{"track", "request", "arguments", "rationale", "peer"}, ...]}``: at most one probe per
    track (the first), in track order; items with an unknown track or no request are dropped, argument
    names outside the tool's schema are dropped (noted in the rationale), and a peer is kept only on the
    peer track and only when it names a related tool (by key or name)."""
    items = parse_json_object(text, {"probes": list})["probes"]
    known = set(tool.parameter_names)
    peer_keys = {p.key: p.key for p in peers} | {p.name: p.key for p in peers if p.name}
    by_track: dict[str, Probe] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        track = _str(item.get("track")).lower()
        request = _str(_first(item, "request", "query", "user_query"))
        if track not in TRACKS or not request or track in by_track:
            continue
        raw = _first(item, "arguments", "parameters", "args")
        rationale = _str(item.get("rationale"))
        args: dict[str, Any] | None = None
        if isinstance(raw, Mapping):
            dropped = sorted(str(k) for k in raw if known and k not in known)
            args = {str(k): v for k, v in raw.items() if str(k) not in dropped}
            if dropped:
                rationale = f"{rationale} (dropped unknown arguments: {', '.join(dropped)})".strip()
                if not args:
                    args = None  # nothing usable left: the executor side fills the arguments
        peer = peer_keys.get(_str(item.get("peer")), "") if track == "peer" else ""
        by_track[track] = Probe(track, request, args, rationale, peer)
    if not by_track:
        raise LLMBadResponse("the answer holds no usable probe (a known track and a non-empty request)")
    return tuple(by_track[t] for t in TRACKS if t in by_track)


def parse_suggestions(text: str) -> tuple[str, ...]:
    """``{"suggestions": [...]}``: the non-empty strings, de-duplicated, in order (none is a valid answer)."""
    items = parse_json_object(text, {"suggestions": list})["suggestions"]
    return tuple(dict.fromkeys(s.strip() for s in items if isinstance(s, str) and s.strip()))


def parse_description(text: str) -> str:
    """``{"description": "..."}``: the body only; a relational-notes section the model added is cut off."""
    obj = parse_json_object(text, {"description": str})
    description = obj["description"]
    heading = _HEADING.search(description)
    if heading is not None:  # normalise it so split_notes finds it
        description = f"{description[:heading.start()]}\n{NOTES_HEADING}\n{description[heading.end():]}"
    body = split_notes(description)[0]
    if not body:
        raise LLMBadResponse("the rewritten description is empty")
    return body


def _note_text(value: Any) -> str:
    if isinstance(value, list):
        lines = [v.strip() for v in value if isinstance(v, str) and v.strip()]
        value = "\n".join(line if line.startswith(("-", "*")) else f"- {line}" for line in lines)
    if not isinstance(value, str):
        return ""
    return _LEADING_HEADING.sub("", value.strip()).strip()


def parse_notes(text: str, members: Sequence[ClusterMember]) -> dict[str, str]:
    """``{"notes": {key: text}}`` (the bare ``{key: text}`` object is accepted too): entries restricted to
    the members (a member's name is mapped to its key), empty texts and leading headings removed."""
    obj = parse_json_object(text)
    keys = {m.key: m.key for m in members} | {m.name: m.key for m in members if m.name}
    notes = obj.get("notes", obj if any(k in keys for k in obj) else None)
    if not isinstance(notes, Mapping):
        raise LLMBadResponse("field 'notes' should be an object mapping tool keys to notes")
    out: dict[str, str] = {}
    for name, value in notes.items():
        key = keys.get(str(name).strip().strip("`"))
        note = _note_text(value)
        if key is not None and note and key not in out:
            out[key] = note
    if notes and not out and not any(str(n).strip().strip("`") in keys for n in notes):
        raise LLMBadResponse("the notes name none of the cluster's members")
    return out


class PromptedAdaptationOperators(PromptedRoles):
    """The :class:`core.evolution.roles.AdaptationOperators` roles, each one chat call through ``operators``
    (a :class:`core.llm.prompted.PromptedOperators`)."""

    family = "adaptation"
    system = prompts.SYSTEM

    def _role(self, role: str, prompt: str, parse) -> RoleCall:
        return self._ask(role, prompt, parse, TEMPERATURES[role])

    # -- Stage I --------------------------------------------------------------------------------

    def propose_probes(self, tool: Tool, doc: str, peers: Sequence[Peer], explored: Sequence[str],
                       suggestions: Sequence[str], *, iteration: int) -> RoleCall:
        """CONTDA App. A.2 (Alg. 1 line 13): one request per track — known, peer, novel — with the arguments
        of its single call (value: tuple[Probe, ...], at most one per track, in track order). ``iteration``
        does not enter the prompt: the explored requests and the last suggestions carry the history."""
        return self._role("propose_probes", prompts.propose_probes(tool, doc, peers, explored, suggestions),
                          lambda t: parse_probes(t, tool, peers))

    def suggest(self, tool: Tool, doc: str, traces: Sequence[ProbeTrace], peers: Sequence[Peer]) -> RoleCall:
        """CONTDA Eq. 8 (SUGGEST): revision suggestions from the traces set against the doc and the peers
        (value: tuple[str, ...], possibly empty)."""
        return self._role("suggest", prompts.suggest(tool, doc, traces, peers), parse_suggestions)

    def refine_doc(self, tool: Tool, doc: str, suggestions: Sequence[str], peers: Sequence[Peer],
                   traces: Sequence[ProbeTrace]) -> RoleCall:
        """CONTDA Eq. 9 (REFINE): the rewritten documentation body (value: str, never empty). The model may
        add a hint for the next round (``next_focus``); it is recorded in the ledger's response, not
        returned."""
        return self._role("refine_doc", prompts.refine_doc(tool, doc, suggestions, peers, traces),
                          parse_description)

    # -- Stage II -------------------------------------------------------------------------------

    def relational_notes(self, members: Sequence[ClusterMember]) -> RoleCall:
        """CONTDA App. A.7 (ANNOTATERELATIONS): status, fallback and overlap notes per member (value:
        dict key -> notes text without heading; members with nothing to say get no entry)."""
        return self._role("relational_notes", prompts.relational_notes(members),
                          lambda t: parse_notes(t, members))

    # -- evaluation -----------------------------------------------------------------------------

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent's pick among retrieved candidates, shown their whole documentation: the generic selector
        prompt shortens each blurb, which would cut off exactly the relational notes Stage II writes."""
        known = {k for k, _ in candidates}

        def parse(text: str) -> list[str]:
            picked = parse_json_object(text, {"tools": list})["tools"]
            return [k for k in dict.fromkeys(p for p in picked if isinstance(p, str)) if k in known]
        return self._ask("select_tools", prompts.select_tools(query, candidates), parse, 0.0)

    def choose_fallback(self, query: str, failed: tuple[str, str], error: str,
                        candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent after a failed call (CONTDA Fig. 9): ``{"tool": key}`` of one candidate, or ``{"tool":
        null}`` to stop (value: the key or None; a key outside the candidates is a bad answer)."""
        known = {k for k, _ in candidates}

        def parse(text: str) -> str | None:
            obj = parse_json_object(text)
            choice = _first(obj, "tool", "fallback", "key")
            if choice is None or (isinstance(choice, str) and choice.strip().lower() in ("", "none", "null")):
                return None
            key = _str(choice).strip("`[] ")
            if key not in known:
                raise LLMBadResponse(f"the fallback {choice!r} is not one of the tools on offer")
            return key
        return self._ask("choose_fallback", prompts.choose_fallback(query, failed, error, candidates), parse, 0.0)
