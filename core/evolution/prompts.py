"""Prompts for CONTDA's documentation-adaptation roles, in our own words (not the paper's templates).

One builder per role of :class:`core.evolution.roles.AdaptationOperators` (CONTDA App. A.2, Eq. 8,
Eq. 9, App. A.7). Every answer comes back as a single JSON object; :mod:`core.evolution.prompted`
reads it. Long inputs (responses, peer docs, explored requests) are cut so a prompt stays small.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from core.evolution.docs import split_notes
from core.evolution.roles import ClusterMember, Peer, ProbeTrace
from core.models import Tool

SYSTEM = ("You maintain the documentation of tools that an AI agent chooses and calls. You learn what a tool "
          "really does from test calls and from the documentation of tools like it, and you write for an agent "
          "that must pick the right tool: factual, specific, short. Never claim behaviour the evidence does not "
          "support. Reply with one JSON object in the requested shape and nothing else.")

MAX_RESPONSE_CHARS = 600  # one trace's response or error as shown to the model
MAX_DOC_CHARS = 900  # one peer's or cluster member's documentation body
MAX_EXPLORED = 20  # the most recent explored requests shown to the proposer
MAX_EXPLORED_CHARS = 200
MAX_TRACES = 12  # the most recent traces shown to the suggester and the refiner
REFINED_WORDS = 120  # the length the refined description should stay under


def _cut(text: Any, limit: int) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _tool(tool: Tool, doc: str) -> str:
    schema = dict(tool.parameters) if isinstance(tool.parameters, Mapping) else {}
    return (f"Tool `{tool.name}` (key {tool.key})\n"
            f"Current documentation:\n{split_notes(doc)[0] or '(empty)'}\n"
            f"Input schema: {_json(schema or {'type': 'object', 'properties': {}})}")


def _peers(peers: Sequence[Peer]) -> str:
    if not peers:
        return "(no related tools were found)"
    return "\n".join(f"- [{p.key}] `{p.name}`: {_cut(split_notes(p.doc)[0], MAX_DOC_CHARS)}" for p in peers)


def _items(items: Sequence[str], limit: int = MAX_EXPLORED_CHARS) -> str:
    return "\n".join(f"- {_cut(i, limit)}" for i in items) if items else "- (none)"


def trace_view(trace: ProbeTrace) -> dict[str, Any]:
    """One trace as the suggester and the refiner see it (response or error cut to ~600 characters)."""
    view: dict[str, Any] = {"track": trace.probe.track, "request": trace.probe.query,
                            "arguments": dict(trace.arguments) or (dict(trace.probe.arguments)
                                                                   if trace.probe.arguments else {}),
                            "ran": trace.executed, "ok": trace.ok, "outcome": trace.outcome}
    if trace.probe.peer:
        view["peer"] = trace.probe.peer
    if trace.error:
        view["error"] = _cut(trace.error, MAX_RESPONSE_CHARS)
    if trace.response is not None:
        whole = _json(trace.response)  # a short response stays structured, a long one becomes cut text
        view["response"] = trace.response if len(whole) <= MAX_RESPONSE_CHARS else _cut(whole, MAX_RESPONSE_CHARS)
    return view


def _traces(traces: Sequence[ProbeTrace]) -> str:
    shown = list(traces)[-MAX_TRACES:]
    if not shown:
        return "(no test calls yet)"
    return "\n".join(f"{i}. {_json(trace_view(t))}" for i, t in enumerate(shown, 1))


def evidence_line(traces: Sequence[ProbeTrace]) -> str:
    """A one-line summary of a member's test calls, e.g. ``3 probes: 2 ok, 1 failed (invalid params)``."""
    if not traces:
        return "not tested"
    ran = [t for t in traces if t.executed]
    ok = sum(1 for t in ran if t.ok)
    failed: dict[str, int] = {}
    for t in ran:
        if not t.ok:
            why = t.outcome.lower().replace("_", " ") or "error"
            failed[why] = failed.get(why, 0) + 1
    parts = [f"{ok} ok"]
    if failed:
        parts.append(f"{sum(failed.values())} failed ({', '.join(f'{n}× {w}' if n > 1 else w for w, n in failed.items())})")
    if len(ran) < len(traces):
        parts.append(f"{len(traces) - len(ran)} not run")
    return f"{len(traces)} probe{'s' if len(traces) != 1 else ''}: {', '.join(parts)}"


# -- Stage I ------------------------------------------------------------------------------------


def propose_probes(tool: Tool, doc: str, peers: Sequence[Peer], explored: Sequence[str],
                   suggestions: Sequence[str]) -> str:
    """CONTDA App. A.2: one test request on each of the known, peer and novel tracks."""
    recent = list(explored)[-MAX_EXPLORED:]
    return (
        f"{_tool(tool, doc)}\n\n"
        f"Related tools from the same catalog:\n{_peers(peers)}\n\n"
        f"Requests already tried on this tool (do not repeat them or ask nearly the same thing):\n{_items(recent)}\n\n"
        f"Open points from the last review (let them steer what you test next):\n{_items(suggestions, 400)}\n\n"
        "Plan three test requests for this tool, one on each track:\n"
        "- \"known\": checks something the current documentation says the tool does;\n"
        "- \"peer\": tries something one of the related tools is documented to do that this tool does not claim "
        "(name that related tool's key in \"peer\");\n"
        "- \"novel\": looks for an ability that neither this documentation nor the related tools hint at.\n"
        "Write each request the way an ordinary user would phrase it: plain language, no function, field or "
        "parameter names, and concrete values for every input the tool needs. Each must be answerable with a "
        "single call of this tool. Also give the arguments of that call, using only the input names of the "
        "schema above, and one sentence on what the request should reveal.\n"
        'Reply as {"probes": [{"track": "known", "request": "...", "arguments": {...}, "rationale": "...", '
        '"peer": ""}, {"track": "peer", ...}, {"track": "novel", ...}]}.'
    )


def suggest(tool: Tool, doc: str, traces: Sequence[ProbeTrace], peers: Sequence[Peer]) -> str:
    """CONTDA Eq. 8: revision suggestions from what the test calls showed."""
    return (
        f"{_tool(tool, doc)}\n\n"
        f"Related tools:\n{_peers(peers)}\n\n"
        f"Test calls made on this tool (track, request, arguments, whether it ran and worked, and what came "
        f"back):\n{_traces(traces)}\n\n"
        "Compare what the calls showed with the documentation and with the related tools. List the changes the "
        "documentation needs: statements the calls contradict or that are missing, abilities of a related tool "
        "that this tool turned out to have or to lack, inputs it accepts or rejects, what its answers contain, "
        "and behaviour nobody documented. Base every point on the calls above; a request that failed because of "
        "its inputs is not proof that the ability is missing. Each point should make the documentation more "
        "accurate, more complete, clearer or shorter. Give no points if nothing needs to change.\n"
        'Reply as {"suggestions": ["...", "..."]}.'
    )


def refine_doc(tool: Tool, doc: str, suggestions: Sequence[str], peers: Sequence[Peer],
               traces: Sequence[ProbeTrace]) -> str:
    """CONTDA Eq. 9: the documentation body rewritten from the suggestions."""
    return (
        f"{_tool(tool, doc)}\n\n"
        f"Related tools:\n{_peers(peers)}\n\n"
        f"Test calls made on this tool:\n{_traces(traces)}\n\n"
        f"Review points to apply:\n{_items(suggestions, 400)}\n\n"
        "Rewrite the documentation of this tool so that it matches what the test calls established: keep what "
        "was confirmed, correct what was wrong, add abilities that were shown to work, and say plainly when an "
        "ability a related tool has is not offered here. Describe what the tool does, what it needs and what it "
        f"returns, in at most {REFINED_WORDS} words, without examples of full requests and without a section "
        "about other tools (that is written separately). In \"next_focus\", optionally say in one sentence what is "
        "still worth testing next.\n"
        'Reply as {"description": "...", "next_focus": "..."}.'
    )


# -- Stage II -----------------------------------------------------------------------------------


def _member(m: ClusterMember, names: Mapping[str, str]) -> str:
    similar = sorted(((s, k) for k, s in m.similar.items() if k in names and k != m.key), reverse=True)
    sim = ", ".join(f"{k} ({s:.2f})" for s, k in similar) or "none"
    fall = ", ".join(k for k in m.fallbacks if k in names) or "none"
    return (f"[{m.key}] `{m.name}`\n"
            f"  documentation: {_cut(split_notes(m.doc)[0], MAX_DOC_CHARS)}\n"
            f"  similarity to the other members: {sim}\n"
            f"  can stand in for it (fallbacks): {fall}\n"
            f"  test calls: {evidence_line(m.traces)}")


def relational_notes(members: Sequence[ClusterMember]) -> str:
    """CONTDA App. A.7: per member, notes on its status, its fallbacks and how it differs from its
    neighbours."""
    names = {m.key: m.name for m in members}
    listing = "\n\n".join(_member(m, names) for m in members)
    return (
        f"These tools do related jobs and an agent often confuses them:\n\n{listing}\n\n"
        "For each tool, write a few short lines that help the agent choose among them:\n"
        "- Status: whether its test calls show it working, working only for some inputs, or failing "
        "(say nothing about status for a tool that was not tested);\n"
        "- Fallback: which of its listed fallbacks to use instead, and when (for instance when this tool fails "
        "or lacks something); write tool keys in backticks;\n"
        "- Overlap: how it differs from the most similar members in scope, inputs, outputs or strengths, "
        "as a rule of thumb for when to prefer which.\n"
        "Use only the keys shown above, add no heading, and leave out a tool when there is nothing useful to "
        "say about it.\n"
        'Reply as {"notes": {"<tool key>": "- Status: ...\\n- Fallback: ...\\n- Overlap: ...", ...}}.'
    )


MAX_CANDIDATE_CHARS = 1500  # a candidate's documentation with its relational notes, which must stay visible


def select_tools(query: str, candidates: Sequence[tuple[str, str]]) -> str:
    shown = "\n\n".join(f"[{key}]\n{_cut(text, MAX_CANDIDATE_CHARS)}" for key, text in candidates)
    return (
        f"A user asks: {query}\n\n"
        f"The tools retrieved for this request, each with its full documentation (including any relational "
        f"notes on status, fallbacks and differences from similar tools):\n\n{shown or '(none)'}\n\n"
        "Pick the tools an agent should call to do what the user asks, using the notes to choose between "
        "similar tools. Pick only what is needed, by the key in brackets. "
        'Reply as {"tools": ["key", ...]}.'
    )


def choose_fallback(query: str, failed: tuple[str, str], error: str, candidates: Sequence[tuple[str, str]]) -> str:
    """The agent after a failed call (CONTDA Fig. 9): the failed tool's documentation with its notes, the error,
    and the tools it may call instead."""
    shown = "\n\n".join(f"[{key}]\n{_cut(text, MAX_CANDIDATE_CHARS)}" for key, text in candidates)
    return (
        f"A user asks: {query}\n\n"
        f"You called the tool [{failed[0]}] for this and the call failed with: {_cut(error, 300) or 'an error'}\n\n"
        f"Its documentation, with any relational notes:\n{_cut(failed[1], MAX_CANDIDATE_CHARS)}\n\n"
        f"Tools you could call instead:\n\n{shown or '(none)'}\n\n"
        "Decide whether to call one of these instead. Follow the documentation: call another tool only when the "
        "notes (or the tools' own descriptions) make it a suitable replacement for this request, and do not turn "
        "to a tool its notes report as failing. "
        'Reply as {"tool": "key"} with a key in brackets above, or {"tool": null} to stop here.'
    )
