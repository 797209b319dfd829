"""CONTDA's adaptation roles by rule (no model): a deterministic, seeded stand-in for the LLM. The paper's
roles are LLM prompts (App. A.2–A.7, B.7); every rule below is our definition of what such a role does.

What the rules do, role by role (CONTDA App. A.2–A.7):

- probes: a *known* request built from a clause of the tool's own description, a *peer* request built
  from a related tool's first clause, a *novel* request that exercises an input the description never
  mentions; arguments come from the schema (enum values, defaults, the "e.g." examples parameter
  descriptions give, and typed fallbacks), so an executor can run them;
- suggestions: read only what the traces show — a documented use confirmed or failing, the fields a
  response really returned, a peer capability whose distinctive words appear in the response, an extra
  input accepted;
- refinement: the body keeps its text and gains one sentence per new finding (never peer vocabulary that
  was not confirmed);
- relational notes: status from the evidence, fallbacks from the caller's γ pairs, and for each close
  member the words that set this tool apart;
- fallback: after a failed call, the first fallback the failed tool's notes name that is on offer and not
  itself reported failing; nothing when the notes name none;
- selection: per intent, term overlap with each candidate's body, minus a point when its notes report it
  failing and a listed fallback is among the candidates; ties between tools that name each other in their
  notes go to the one whose distinguishing words the request uses.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.evolution.docs import fallback_keys, split_notes
from core.evolution.roles import KNOWN, NOVEL, PEER, ClusterMember, Peer, Probe, ProbeTrace
from core.llm.base import RoleCall
from core.llm.framework import OfflineRoles
from core.llm.heuristics import clauses, sentence, split_intents, terms, verb_phrase
from core.models import Tool
from core.trials.evidence import TrialOutcome

MODEL = "contda-rules-v1"
MAX_ADDED_WORDS = 90  # refinement stops adding findings past this many words beyond the original body
OVERLAP_NOTE = 0.5  # members at least this similar get an "unlike X" line
COVERS_WEIGHT = 0.3  # per distinguishing word named in the notes; capped below one shared word (tie-breaks only)
# Words too common in tool documentation to tell two tools apart.
_GENERIC = frozenset("""returns return current get gets given using based also tool tools data information info
details list new one ones example request requests confirmed test call calls accepts covers beta""".split())
_EXAMPLE = re.compile(r"e\.g\.?,?\s*(?:'([^']+)'|\"([^\"]+)\"|([^),;]+))", re.IGNORECASE)
_BY_NAME = (
    (("email",), "ana.silva@example.com"), (("iata", "airport"), "LIS"), (("ticker", "symbol"), "AAPL"),
    (("currency",), "EUR"), (("language", "lang", "locale"), "fr"), (("country",), "Portugal"),
    (("timezone", "tz"), "Europe/Lisbon"), (("url", "link"), "https://example.com/page"),
    (("city", "location", "destination", "origin", "place", "address", "region", "from", "to"), "Lisbon"),
    (("date", "day", "check_in", "check_out", "start", "end"), "2025-06-10"), (("time",), "09:30"),
    (("phone",), "+351 210 000 000"), (("year",), "2024"), (("month",), "6"),
)

MAX_FIELDS = 5  # a long list of returned fields drowns the description in an embedding
# Field names that say nothing about what a tool does.
_FIELD_NOISE = frozenset("id status ok success error message created updated at time timestamp result results "
                         "data count total type name".split())
_TAGS = ("verified", "failing", "returns", "peer-confirmed", "peer-unconfirmed", "accepts", "example")


def _words(text: str) -> list[str]:
    return terms(text.replace("_", " "))


def _stem(word: str) -> str:
    """Plural and third-person endings folded ("shares" ~ "share", "replies" ~ "reply"), enough to spot a
    restatement."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _informative(name: str, known: set[str]) -> bool:
    """A field or argument name that tells the reader something the documentation does not say yet."""
    stems = {_stem(w) for w in _words(name) if w not in _FIELD_NOISE}
    return bool(stems) and not stems <= known


def sample_value(name: str, spec: Mapping[str, Any], rng: random.Random) -> Any:
    """A plausible value for one schema property: enum, default, the description's example, then by type
    and by name (a probe must carry concrete inputs, CONTDA App. A.2)."""
    kind = spec.get("type") if isinstance(spec.get("type"), str) else "string"
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return rng.choice(spec["enum"])
    if "default" in spec and spec["default"] is not None:
        return spec["default"]
    example = _EXAMPLE.search(str(spec.get("description", "")))
    if example and kind == "string":
        return next(g for g in example.groups() if g).strip()
    if kind == "integer":
        return int(spec.get("minimum", 3) if isinstance(spec.get("minimum"), int | float) else 3)
    if kind == "number":
        return float(spec.get("minimum", 2.5) if isinstance(spec.get("minimum"), int | float) else 2.5)
    if kind == "boolean":
        return True
    if kind == "array":
        items = spec.get("items") if isinstance(spec.get("items"), Mapping) else {}
        return [sample_value(name, items, rng)]
    if kind == "object":
        return {}
    fmt = str(spec.get("format", ""))
    if fmt == "date":
        return "2025-06-10"
    if fmt == "date-time":
        return "2025-06-10T09:30:00Z"
    lowered = name.lower()
    for names, value in _BY_NAME:
        if any(n == lowered or lowered.endswith("_" + n) or lowered.startswith(n + "_") for n in names):
            return value
    words = _words(str(spec.get("description", ""))) or _words(name)
    return " ".join(words[:3]) or "example"


def _properties(tool: Tool) -> dict[str, Mapping[str, Any]]:
    props = tool.parameters.get("properties") if isinstance(tool.parameters, Mapping) else None
    return {str(k): v for k, v in props.items() if isinstance(v, Mapping)} if isinstance(props, Mapping) else {}


def _show(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v if not isinstance(v, list) else ', '.join(map(str, v))}"
                     for k, v in args.items())


def _request(action: str, args: Mapping[str, Any]) -> str:
    return f"{sentence(action).rstrip('.')} — {_show(args)}" if args else sentence(action).rstrip(".")


def _response_text(trace: ProbeTrace) -> str:
    return json.dumps(trace.response, ensure_ascii=False, default=str) if trace.response is not None else ""


def _field_names(value: Any, out: list[str], depth: int = 0) -> list[str]:
    if depth > 3:
        return out
    if isinstance(value, Mapping):
        for k, v in value.items():
            if str(k) not in out:
                out.append(str(k))
            _field_names(v, out, depth + 1)
    elif isinstance(value, list) and value:
        _field_names(value[0], out, depth + 1)
    return out


def _succeeded(trace: ProbeTrace) -> bool:
    return trace.executed and trace.outcome == TrialOutcome.FUNCTIONAL_SUCCESS


def distinct_terms(doc: str, other: str, n: int = 4) -> list[str]:
    """Words of ``doc``'s body that ``other``'s body lacks, in order of first use (what sets it apart)."""
    theirs = set(_words(split_notes(other)[0]))
    out: list[str] = []
    for w in _words(split_notes(doc)[0]):
        if w not in theirs and w not in out and len(w) > 2 and w not in _GENERIC:
            out.append(w)
    return out[:n]


class OfflineAdaptationOperators(OfflineRoles):
    """The :class:`core.evolution.roles.AdaptationOperators` roles by rule."""

    model = MODEL
    rng_byteorder = "big"  # what this family has always drawn with: stored CONTDA runs stay reproducible

    # -- Stage I --------------------------------------------------------------------------------

    def propose_probes(self, tool: Tool, doc: str, peers: Sequence[Peer], explored: Sequence[str],
                       suggestions: Sequence[str], *, iteration: int) -> RoleCall:
        """CONTDA App. A.2 by rule: a known, a peer and (when the schema has an unmentioned input) a novel
        request, each with concrete arguments; values are redrawn when a request was already explored."""
        def run(rng: random.Random) -> tuple[Probe, ...]:
            props = _properties(tool)
            required = [p for p in tool.required if p in props] or list(props)[:1]
            seen = set(explored)

            def args_for(names: Sequence[str]) -> dict[str, Any]:
                return {n: sample_value(n, props[n], rng) for n in names}

            def fresh(make) -> tuple[str, dict[str, Any]]:
                text, args = make()
                for _ in range(3):
                    if text not in seen:
                        break
                    text, args = make()
                return text, args

            body = split_notes(doc)[0]
            own = clauses(body) or [" ".join(_words(tool.name)) or "use this tool"]
            action = verb_phrase(own[iteration % len(own)])
            out: list[Probe] = []
            text, args = fresh(lambda: (_request(action, a := args_for(required)), a))
            out.append(Probe(KNOWN, text, args, "checks a use the documentation states"))
            if peers:
                peer = peers[(iteration + rng.randrange(len(peers))) % len(peers)]
                peer_clause = (clauses(split_notes(peer.doc)[0]) or [" ".join(_words(peer.name))])[0]
                peer_action = verb_phrase(peer_clause)
                text, args = fresh(lambda: (_request(peer_action, a := args_for(required)), a))
                out.append(Probe(PEER, text, args, f"{peer.key} documents this; does this tool do it too?", peer.key))
            mentioned = set(_words(body))
            unmentioned = [p for p in props if p not in required and not set(_words(p)) <= mentioned]
            if unmentioned:
                extra = unmentioned[iteration % len(unmentioned)]
                text, args = fresh(lambda: (_request(action, a := args_for([*required, extra])), a))
                out.append(Probe(NOVEL, text, args, f"tries the undocumented input {extra!r}"))
            return tuple(out)
        payload = {"tool": tool.key, "doc": doc, "peers": [p.key for p in peers], "explored": list(explored),
                   "iteration": iteration}
        return self._call("propose_probes", payload, run)

    def suggest(self, tool: Tool, doc: str, traces: Sequence[ProbeTrace], peers: Sequence[Peer]) -> RoleCall:
        """CONTDA Eq. 8 by rule: one tagged finding per thing the traces show (``tag: detail``)."""
        def run(rng: random.Random) -> tuple[str, ...]:
            body = split_notes(doc)[0]
            known_words = set(_words(body))
            known_stems = {_stem(w) for w in known_words}
            by_key = {p.key: p for p in peers}
            out: list[str] = []
            fields: list[str] = []
            for tr in traces:
                track = tr.probe.track
                if _succeeded(tr):
                    for f in _field_names(tr.response, []):
                        if _informative(f, known_stems):
                            fields.append(f)
                            known_stems |= {_stem(w) for w in _words(f)}  # "month" then "months": one is enough
                    if track == KNOWN:
                        out.append(f"verified: {tr.probe.query.split(' — ')[0]}")
                    elif track == PEER and tr.probe.peer in by_key:
                        peer = by_key[tr.probe.peer]
                        cue = distinct_terms(peer.doc, body)
                        seen = set(_words(_response_text(tr)))
                        if cue and sum(w in seen for w in cue) * 2 >= len(cue):
                            clause = (clauses(split_notes(peer.doc)[0]) or [peer.name])[0]
                            out.append(f"peer-confirmed: {clause}")
                        else:
                            out.append(f"peer-unconfirmed: {peer.key}")
                    elif track == NOVEL:
                        extra = [a for a in tr.arguments if _informative(a, known_stems)]
                        if extra:
                            out.append(f"accepts: {', '.join(extra)}")
                elif tr.executed and track == KNOWN and tr.outcome == TrialOutcome.EXECUTION_FAILURE:
                    # a refused argument is usually the probe's guess, not the tool's fault: only a call that
                    # broke on the tool's side is evidence against it
                    out.append(f"failing: {tr.error.split(':', 1)[0] or 'execution failure'}")
                elif not tr.executed and track == KNOWN:
                    out.append(f"example: {tr.probe.query.split(' — ')[0]}")
            if fields:
                out.append("returns: " + ", ".join(dict.fromkeys(fields)))
            return tuple(dict.fromkeys(out))
        payload = {"tool": tool.key, "doc": doc, "traces": [t.to_json() for t in traces]}
        return self._call("suggest", payload, run)

    def refine_doc(self, tool: Tool, doc: str, suggestions: Sequence[str], peers: Sequence[Peer],
                   traces: Sequence[ProbeTrace]) -> RoleCall:
        """CONTDA Eq. 9 by rule: the body plus one sentence per finding it does not state yet; refuted peer
        capabilities add nothing (their words would only pull the tool toward the peer's requests)."""
        def run(rng: random.Random) -> str:
            body = split_notes(doc)[0].strip()
            original_words = len(body.split())
            returns: list[str] = []
            accepts: list[str] = []
            sentences: list[str] = []
            for s in suggestions:
                tag, _, detail = s.partition(": ")
                detail = detail.strip()
                if tag not in _TAGS or not detail:
                    continue
                if tag == "verified":
                    sentences.append(f"Confirmed by a test call: {detail[:1].lower() + detail[1:]}.")
                elif tag == "failing":
                    sentences.append(f"A test call of a documented use failed ({detail}).")
                elif tag == "returns":
                    returns += [f.strip().replace("_", " ") for f in detail.split(",") if f.strip()]
                elif tag == "peer-confirmed":
                    sentences.append(f"Also covers: {detail[:1].lower() + detail[1:]}.")
                elif tag == "accepts":
                    accepts += [a.strip().replace("_", " ") for a in detail.split(",") if a.strip()]
                elif tag == "example":
                    sentences.append(f"Example request: {detail}.")
            for label, found in (("Returns: ", returns), ("Also accepts ", accepts)):
                if not found:
                    continue
                have = re.search(re.escape(label) + r"([^.]*)\.", body)
                old = [f.strip() for f in have.group(1).split(",")] if have else []
                merged = list(dict.fromkeys([*old, *found]))[:MAX_FIELDS]
                line = f"{label}{', '.join(merged)}."
                body = body.replace(have.group(0), line) if have else body
                if not have:
                    sentences.append(line)
            if body and body[-1] not in ".!?":
                body += "."
            for s in sentences:
                # an example or confirmation that adds no word the body lacks only restates it
                restates = s.startswith(("Example request", "Confirmed by")) and \
                    {_stem(w) for w in _words(s)} - _GENERIC - {"get", "confirmed", "example"} \
                    <= {_stem(w) for w in _words(body)}
                if s in body or restates:
                    continue
                if len(body.split()) - original_words + len(s.split()) > MAX_ADDED_WORDS:
                    break
                body = f"{body} {s}".strip()
            return body
        payload = {"tool": tool.key, "doc": doc, "suggestions": list(suggestions)}
        return self._call("refine_doc", payload, run)

    # -- Stage II -------------------------------------------------------------------------------

    def relational_notes(self, members: Sequence[ClusterMember]) -> RoleCall:
        """CONTDA App. A.7 by rule: status from the evidence, the γ fallbacks, and per close member the
        words that set this tool apart."""
        def run(rng: random.Random) -> dict[str, str]:
            docs = {m.key: m.doc for m in members}
            notes: dict[str, str] = {}
            for m in members:
                lines: list[str] = []
                ran = [t for t in m.traces if t.executed]
                if ran:
                    ok = sum(_succeeded(t) for t in ran)
                    state = "working" if ok == len(ran) else "failing" if ok == 0 else "partly working"
                    lines.append(f"Status: {state} ({ok} of {len(ran)} test calls succeeded).")
                if m.fallbacks:
                    lines.append("Fallback: " + ", ".join(f"`{k}`" for k in m.fallbacks)
                                 + " when this tool fails or is unavailable.")
                close = sorted(((s, k) for k, s in m.similar.items() if k in docs and k != m.key and s >= OVERLAP_NOTE),
                               key=lambda sk: (-sk[0], sk[1]))[:3]
                # peers this tool differs from in the same words share one line
                unlike: dict[tuple[str, ...], list[str]] = {}
                for _s, k in close:
                    own = tuple(distinct_terms(m.doc, docs[k]))
                    if own:
                        unlike.setdefault(own, []).append(k)
                for own, peers in unlike.items():
                    lines.append(f"Unlike {', '.join(f'`{k}`' for k in peers)}, covers: {', '.join(own)}.")
                if lines:
                    notes[m.key] = "\n".join(f"- {line}" for line in lines)
            return notes
        payload = {"members": [{"key": m.key, "doc": m.doc, "fallbacks": list(m.fallbacks),
                                "traces": len(m.traces)} for m in members]}
        return self._call("relational_notes", payload, run)

    # -- evaluation -----------------------------------------------------------------------------

    def select_tools(self, query: str, candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent's pick by rule, reading the notes the way they ask to be read: per intent, the candidate
        sharing the most words with it; a candidate whose notes report it failing loses a point when one of
        its fallbacks is on offer; among candidates still tied, "unlike `B`, covers: w" counts for the
        candidate when B is one of the tied and the intent says w (retrieval order breaks what remains)."""
        def run(rng: random.Random) -> list[str]:
            keys = {k for k, _ in candidates}
            parsed = []
            for key, text in candidates:
                body, notes = split_notes(text)
                covers: dict[str, set[str]] = {}
                for m in re.finditer(r"[Uu]nlike ((?:`[^`]+`,? ?)+), covers: ([^.\n]*)", notes):
                    for peer in re.findall(r"`([^`]+)`", m.group(1)):
                        covers.setdefault(peer, set()).update(_words(m.group(2)))
                fallback_line = notes.split("Fallback:", 1)[1].split("\n")[0] if "Fallback:" in notes else ""
                failing = "Status: failing" in notes and bool(set(re.findall(r"`([^`]+)`", fallback_line)) & keys)
                parsed.append((key, set(_words(f"{key} {body}")), covers, failing))
            picked: list[str] = []
            for intent in split_intents(query):
                words = set(_words(intent))
                base = [len(words & own) - (1.0 if failing else 0.0) for _k, own, _c, failing in parsed]
                if not base or max(base) <= 0:
                    continue
                tied = {parsed[i][0] for i, b in enumerate(base) if b == max(base)}
                score = []
                for i, (key, _own, covers, _f) in enumerate(parsed):
                    bonus = sum(len(words & w) for peer, w in covers.items() if peer in tied and peer != key) \
                        if key in tied else 0
                    score.append((base[i] + min(0.9, COVERS_WEIGHT * bonus), -i))
                key = parsed[-max(score)[1]][0]
                if key not in picked:
                    picked.append(key)
            return picked or ([candidates[0][0]] if candidates else [])
        return self._call("select_tools", {"query": query, "candidates": [k for k, _ in candidates]}, run)

    def choose_fallback(self, query: str, failed: tuple[str, str], error: str,
                        candidates: Sequence[tuple[str, str]]) -> RoleCall:
        """The agent after a failed call, by rule (CONTDA Fig. 9): the first tool the failed tool's notes name
        as a fallback that is on offer and whose own notes do not report it failing; None when the notes name
        none (no notes, no fallback: the rule never escalates blindly to another candidate)."""
        def run(rng: random.Random) -> str | None:
            docs = dict(candidates)
            for key in fallback_keys(split_notes(failed[1])[1]):
                if key in docs and key != failed[0] and "Status: failing" not in split_notes(docs[key])[1]:
                    return key
            return None
        payload = {"query": query, "failed": failed[0], "candidates": [k for k, _ in candidates]}
        return self._call("choose_fallback", payload, run)
