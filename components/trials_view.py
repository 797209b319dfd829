"""Tables and charts of GRETEL trials: each candidate's trial as a readable row, the ranking before/after,
the failure taxonomy. The functions that turn a trial into row data touch no Streamlit (tested alone)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from components.text import md_escape
from core.trials.evidence import Trial, TrialOutcome, TrialReport
from core.trials.measures import JUDGED, measure_rows

COLOURS = {TrialOutcome.FUNCTIONAL_SUCCESS: "#2e7d32", TrialOutcome.SEMANTIC_MISMATCH: "#f9a825",
           TrialOutcome.PARAMETER_MISMATCH: "#ef6c00", TrialOutcome.PLANNING_FAILED: "#c62828",
           TrialOutcome.EXECUTION_FAILURE: "#6a1b9a", TrialOutcome.NOT_EXECUTED: "#757575"}
# plain symbols: emoji fonts are missing on many servers and headless browsers
ICONS = {TrialOutcome.FUNCTIONAL_SUCCESS: "✓", TrialOutcome.SEMANTIC_MISMATCH: "∅", TrialOutcome.PARAMETER_MISMATCH: "✗",
         TrialOutcome.PLANNING_FAILED: "✗", TrialOutcome.EXECUTION_FAILURE: "!", TrialOutcome.NOT_EXECUTED: "○"}


# How each kind of evidence (Trial.evidence) reads in the ranking table: a simulated answer ranks with the
# successes (GRETEL §3.2.2) and must never pass for one the tool gave.
EVIDENCE_LABELS = {"success": "✓ real answer", "simulated": "◐ SIMULATED answer", "untried": "○ not called",
                   "failure": "✗ failed"}


def outcome_label(trial: Trial) -> str:
    sim = " · simulated answer" if trial.simulation_used else ""
    return f"{ICONS[trial.outcome]} {trial.outcome}{sim}"


def ranking_table(report: TrialReport, names: Mapping[str, str]) -> pd.DataFrame:
    """GRETEL Table 5 as a table: each candidate's place before and after, the move, and its evidence (a
    simulated answer flagged as such: :data:`EVIDENCE_LABELS`)."""
    gold = set(report.gold)
    moves = report.moves()
    rows = []
    for i, key in enumerate(report.after):
        trial = report.trial(key)
        move = moves.get(key, 0)
        arrow = f"▲ {move}" if move > 0 else (f"▼ {-move}" if move < 0 else "•")
        rows.append({"after": i + 1, "before": report.before.index(key) + 1, "move": arrow,
                     "tool": names.get(key, key), "gold": "★" if key in gold else "",
                     "evidence": EVIDENCE_LABELS[trial.evidence] if trial else "",
                     "outcome": outcome_label(trial) if trial else "", "why": report.rerank.reasons.get(key, "")})
    frame = pd.DataFrame(rows)
    return frame if gold else frame.drop(columns="gold", errors="ignore")  # a free-text request has no gold tools


def taxonomy_chart(failures: Mapping[str, Any]) -> go.Figure:
    """GRETEL Table 4: shares of the top-k candidates' trials per outcome class."""
    counts = failures.get("counts", {})
    classes = list(JUDGED)
    judged = max(int(failures.get("judged", 0)), 1)
    fig = go.Figure(go.Bar(
        x=[counts.get(c, 0) / judged for c in classes], y=[c.replace("_", " ").lower() for c in classes],
        orientation="h", marker_color=[COLOURS[c] for c in classes],
        text=[f"{counts.get(c, 0)} ({counts.get(c, 0) / judged:.0%})" for c in classes], textposition="outside",
        cliponaxis=False, hovertemplate="%{y}: %{text} of the tried candidates<extra></extra>"))
    top = max([counts.get(c, 0) / judged for c in classes] + [0.05])
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=40, b=40), xaxis_tickformat=".0%",
                      xaxis_title="share of the tried candidates", yaxis_title="outcome",
                      yaxis_autorange="reversed", xaxis_range=[0, top * 1.18],
                      title=f"Outcome of the top-{failures.get('k', 5)} candidates' trials "
                            f"({failures.get('judged', 0)} tried, {counts.get(TrialOutcome.NOT_EXECUTED, 0)} not executable)")
    return fig


def metrics_table(metrics: Mapping[str, Any]) -> pd.DataFrame:
    """Each retrieval measure at every reported cut-off (@5 and @10 by default, and an old run's ``at_10``
    block) before and after the re-ranking, and the change (floats, for a fixed format)."""
    return pd.DataFrame([{"measure": m, "before": b, "after": a, "change": a - b} for m, b, a in measure_rows(metrics)],
                        columns=["measure", "before", "after", "change"])


# -- one candidate's trial as a row: plan → call → answer → verdict ----------------------------------

_STEP_ICONS = {"ok": "✓", "failed": "✗", "skipped": "○"}
_OUTCOME_COLOURS = {TrialOutcome.FUNCTIONAL_SUCCESS: "green", TrialOutcome.SEMANTIC_MISMATCH: "orange",
                    TrialOutcome.PARAMETER_MISMATCH: "orange", TrialOutcome.PLANNING_FAILED: "red",
                    TrialOutcome.EXECUTION_FAILURE: "violet", TrialOutcome.NOT_EXECUTED: "gray"}
PREVIEW_LINES = 6  # lines of an answer shown before "… more"
PREVIEW_WIDTH = 120  # characters of one preview line
FULL_JSON_CHARS = 100_000  # the popover's JSON is cut past this (a page must stay responsive)


@dataclass(frozen=True)
class ArgumentRow:
    """One planned argument: its name, its value as short text, where the planner took it from."""

    name: str
    value: str
    source: str = ""
    missing: bool = False


@dataclass(frozen=True)
class PlanCell:
    status: str  # the plan step's status
    seconds: float
    arguments: tuple[ArgumentRow, ...]
    note: str = ""


@dataclass(frozen=True)
class CallCell:
    status: str  # the execute step's status, or "not reached" when the trial stopped at the plan
    seconds: float = 0.0
    executor: str = ""
    isolation: str = ""
    note: str = ""  # why it failed or was skipped


@dataclass(frozen=True)
class AnswerCell:
    kind: str  # "real" | "simulated" | "error" | "none"
    lines: tuple[str, ...]
    full: Any = None  # the whole value, for the JSON one click away (None: nothing to show)
    note: str = ""  # what the reader must know about it (a stand-in, and why)


@dataclass(frozen=True)
class TrialRow:
    """A trial laid out for reading: the four cells of :func:`show_trial`, built from the stored steps."""

    plan: PlanCell
    call: CallCell
    answer: AnswerCell
    outcome: str
    reason: str
    simulated: bool
    judge: str = ""  # the relevance judge's verdict in words ("" when it was not asked)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def short_value(value: Any, width: int = 60) -> str:
    """One value as one short line: text as text (whitespace folded, cut with …), numbers, booleans and
    null as JSON, a list by its length, an object by its first fields."""
    if isinstance(value, str):
        text = " ".join(value.split())
        return _cut(text, width) if text else '""'
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return _count(len(value), "item") if value else "empty list"
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        inner = ", ".join(f"{k}: {short_value(v, 24)}" for k, v in list(value.items())[:8])
        more = len(value) > 8
        return "{" + _cut(inner + (", …" if more else ""), max(width - 2, 1)) + "}"
    return _cut(str(value), width)


def answer_preview(value: Any, *, lines: int = PREVIEW_LINES, width: int = PREVIEW_WIDTH) -> tuple[str, ...]:
    """A tool's answer as a few readable lines: text as its first lines, an object as ``key: value`` lines
    (a list inside it counted, with its first item), a list counted then its first items; what does not
    fit is said in a last line (``… 4 more fields``)."""
    if isinstance(value, str):
        text_lines = [ln.strip() for ln in value.strip().splitlines() if ln.strip()]
        if not text_lines:
            return ("(empty text)",)
        shown = [_cut(" ".join(ln.split()), width) for ln in text_lines[:lines]]
        rest = len(text_lines) - len(shown)
        return (*shown, f"… {_count(rest, 'more line')}") if rest else tuple(shown)
    if isinstance(value, list | tuple):
        if not value:
            return ("empty list",)
        shown = [f"• {short_value(item, width - 2)}" for item in value[: max(lines - 1, 1)]]
        rest = len(value) - len(shown)
        return (_count(len(value), "item"), *shown, *((f"… {rest} more",) if rest else ()))
    if isinstance(value, Mapping):
        if not value:
            return ("{} (an empty object)",)
        items = list(value.items())
        shown = []
        for k, v in items[:lines]:
            text = short_value(v, width)
            if isinstance(v, list | tuple) and v:
                text += " — first: " + short_value(v[0], 60)
            shown.append(_cut(f"{k}: {text}", width))
        rest = len(items) - len(shown)
        return (*shown, f"… {_count(rest, 'more field')}") if rest else tuple(shown)
    if value is None:
        return ("null",)
    return (short_value(value, width),)


def plan_cell(trial: Trial) -> PlanCell:
    """The plan step: every argument with its value and the planner's word on where it came from
    (``sources``, "" where it said nothing), then the arguments the request could not supply."""
    step = trial.step("plan")
    if step is None:
        return PlanCell("not reached", 0.0, ())
    out = step.output if isinstance(step.output, Mapping) else {}
    arguments = out.get("arguments") if isinstance(out.get("arguments"), Mapping) else {}
    sources = out.get("sources") if isinstance(out.get("sources"), Mapping) else {}
    missing = [m for m in (out.get("missing") or ()) if m not in arguments]

    def source(name: Any) -> str:
        return " ".join(str(sources.get(name) or "").split())

    rows = [ArgumentRow(str(k), short_value(v, 60), source(k)) for k, v in arguments.items()]
    rows += [ArgumentRow(str(m), "missing", source(m), True) for m in missing]
    note = str(out.get("note") or "") or step.note
    return PlanCell(step.status, step.seconds, tuple(rows), note)


def call_cell(trial: Trial) -> CallCell:
    """The execute step: which executor, how it ended, how long it took, and the isolation it ran under.
    A failure is named by its kind here; its message is the answer cell's."""
    step = trial.step("execute")
    if step is None:
        return CallCell("not reached", note="the trial stopped at the plan")
    inp = step.input if isinstance(step.input, Mapping) else {}
    note = step.note
    if step.status == "failed":
        kind = step.output.get("kind") if isinstance(step.output, Mapping) else None
        note = f"error kind: {kind}" if kind else "error"
    return CallCell(step.status, step.seconds, str(inp.get("executor") or trial.executor or ""),
                    str(inp.get("isolation") or ""), note)


def answer_cell(trial: Trial) -> AnswerCell:
    """What came back: the tool's own answer, its error, or the simulator's stand-in, flagged as such."""
    sim = trial.step("simulate")
    if sim is not None:
        why = str((sim.input or {}).get("error") or "")
        if sim.status == "ok":
            return AnswerCell("simulated", answer_preview(sim.output), sim.output,
                              "written by the simulator, not by the tool" + (f" (after: {why})" if why else ""))
        return AnswerCell("none", ("no answer",), None, sim.note or "the simulation failed")
    step = trial.step("execute")
    if step is None or step.status == "skipped":
        return AnswerCell("none", ("no answer: the tool was not called",))
    if step.status == "failed":
        error = step.output.get("error") if isinstance(step.output, Mapping) else step.output
        return AnswerCell("error", answer_preview(str(error or "the call failed without a message")), step.output)
    return AnswerCell("real", answer_preview(step.output), step.output)


def trial_row(trial: Trial) -> TrialRow:
    """One candidate's trial as the plan → call → answer → verdict row the Trials page shows."""
    return TrialRow(plan_cell(trial), call_cell(trial), answer_cell(trial), trial.outcome, trial.reason,
                    trial.simulation_used, judge_words(trial))


def judge_words(trial: Trial) -> str:
    """The relevance judge's verdict on the answer, in words, and whether the offline rule stood in for a
    failed judge call; "" when the judge was not asked (no answer, a failure, a simulated answer) or when it
    agreed in its own call (the verdict's reason already says the answer serves the request)."""
    step = trial.step("judge")
    if step is None or not isinstance(step.output, Mapping):
        return ""
    if step.output.get("relevant") and step.status != "failed":
        return ""
    words = "serves the request" if step.output.get("relevant") else "does not serve the request"
    return f"judge: {words}" + (" (offline rule, the judge call failed)" if step.status == "failed" else "")


def md_code(text: str) -> str:
    """Text as a markdown code span: shown literally, and never turned into a link (GFM links bare URLs,
    ``www.`` names and e-mail addresses even when :func:`md_escape` has escaped them). The fence is one
    backtick longer than any run inside; line breaks are folded (a blank line would end the span)."""
    text = " ".join(str(text).split())
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else '`""`'


def arguments_frame(plan: PlanCell) -> pd.DataFrame:
    """The plan's arguments as a small table for st.table, which renders markdown: each value as a code
    span (:func:`md_code`) with, under it in grey, where the planner took it from (escaped). Two columns,
    not three: a narrow cell then wraps prose, never a value."""
    with_sources = any(a.source for a in plan.arguments)
    head = "value · where it came from" if with_sources else "value"
    rows = []
    for a in plan.arguments:
        value = "**missing**" if a.missing else md_code(a.value)
        if a.source:
            value += f"  \n:gray[{md_escape(a.source, 120)}]"
        rows.append({"argument": md_escape(a.name, 28), head: value})
    return pd.DataFrame(rows, columns=["argument", head])


def seconds_label(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def full_json(value: Any, limit: int = FULL_JSON_CHARS) -> str:
    """A value as indented JSON, cut (and said so) past ``limit`` characters."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + f"\n… cut: {len(text) - limit:,} more characters"


def step_status(status: str, seconds: float) -> str:
    """How a step ended, for its cell's heading: ``✓ 57 ms``, ``✗ failed · 8.0 s``, ``○ skipped``."""
    icon = _STEP_ICONS.get(status, "")
    if status == "not reached":
        return status
    if status == "ok":
        return f"{icon} {seconds_label(seconds)}"
    if status == "failed":
        return f"{icon} failed · {seconds_label(seconds)}"
    return f"{icon} {status}"


def outcome_words(outcome: str) -> str:
    """An outcome class as words (FUNCTIONAL_SUCCESS → Functional success), so a narrow cell can wrap it."""
    return outcome.replace("_", " ").capitalize()


def _code(text: str, language: str | None) -> None:
    """Inert text in a code block: as tall as it is, up to a scrolling 480 px."""
    st.code(text, language=language, wrap_lines=True, height=480 if text.count("\n") > 20 else "content")


def show_trial(trial: Trial, *, key: str) -> None:
    """One candidate's trial as one row of four cells, read left to right: the plan (arguments and where
    each came from), the call (executor, status, latency, isolation), the answer (a short preview, the
    full JSON in a popover, a simulated answer flagged), the verdict with its reason. Outside text is
    escaped (st.table and st.markdown render markdown) or shown as code."""
    row = trial_row(trial)
    plan_col, call_col, answer_col, verdict_col = st.columns([5.4, 1.8, 4.4, 2.2], gap="medium")
    with plan_col:
        st.markdown(f"**Plan** {step_status(row.plan.status, row.plan.seconds)}")
        if row.plan.arguments:
            st.table(arguments_frame(row.plan), hide_index=True, border="horizontal")
        elif row.plan.status == "ok":
            st.caption("no arguments")
        if row.plan.note:
            st.caption(md_escape(row.plan.note, 300))
    with call_col:
        call = row.call
        st.markdown(f"**Call** {step_status(call.status, call.seconds)}")
        isolation = " + ".join(call.isolation.split("+"))  # spaces, so a narrow cell wraps between parts
        lines = [f"via {md_escape(call.executor)}" if call.executor else "",
                 f"isolation: {md_escape(isolation)}" if isolation else "", md_escape(call.note, 300)]
        if any(lines):
            st.caption("  \n".join(line for line in lines if line))
    with answer_col:
        ans = row.answer
        badge = " :orange-badge[simulated, not from the tool]" if ans.kind == "simulated" else ""
        st.markdown(("**Error**" if ans.kind == "error" else "**Answer**") + badge)
        if ans.kind == "none":
            st.caption(md_escape("\n".join(ans.lines)))
        else:
            st.text("\n".join(ans.lines))  # st.text renders no markdown and links nothing
        if ans.note:
            st.caption(md_escape(ans.note, 300))
        if ans.full is not None:
            text = isinstance(ans.full, str)
            with st.popover("Full text" if text else "Full JSON", type="tertiary", key=f"{key}_answer_json"):
                _code(ans.full[:FULL_JSON_CHARS] if text else full_json(ans.full), None if text else "json")
    with verdict_col:
        colour = _OUTCOME_COLOURS[row.outcome]
        badge = " :orange-badge[simulated]" if row.simulated else ""
        st.markdown(f"**Verdict**{badge}  \n:{colour}[{ICONS[row.outcome]} {outcome_words(row.outcome)}]")
        lines = [md_escape(row.reason, 400), md_escape(row.judge)]
        if row.simulated:
            lines.append("ranked on a simulated answer, not one the tool gave")
        st.caption("  \n".join(line for line in lines if line))


def trace_json(trial: Trial, *, key: str) -> None:
    """Every step of the trial, input and output, as JSON in a popover: the raw record, one click away."""
    with st.popover("Raw trace (JSON)", type="tertiary", key=f"{key}_trace_json"):
        _code(full_json(trial.to_json()), "json")


def reports_table(reports: Sequence[TrialReport], k: int) -> pd.DataFrame:
    rows = []
    for r in reports:
        gold = set(r.gold)
        first_before = next((i + 1 for i, key in enumerate(r.before) if key in gold), None)
        first_after = next((i + 1 for i, key in enumerate(r.after) if key in gold), None)
        rows.append({"query": r.query_id, "text": _cut(" ".join(r.query.split()), 90), "gold rank before": first_before,
                     "gold rank after": first_after,
                     f"successes in top {k}": sum(1 for key in r.after[:k]
                                                  if (t := r.trial(key)) and t.outcome == TrialOutcome.FUNCTIONAL_SUCCESS)})
    return pd.DataFrame(rows)
