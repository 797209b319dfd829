"""Tool documentation as CONTDA adapts it: a body (the description, refined by Stage I) and an optional
relational-notes section (written by Stage II), plus the stored revision records and their diffs.

The notes section is kept apart from the body so Stage II can replace it each step: clusters change as
tools come and go, and a fallback that points at a removed tool must not survive into the next step.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NOTES_HEADING = "### Relational notes"

# Revision stages, in the order they can happen within one step.
STAGE_SOURCE = "source"  # the catalog itself changed the description (a real version rewrote it)
STAGE_EXPLORE = "explore"  # Stage I refined a new tool's body (CONTDA §4.1, App. A.4)
STAGE_ADJUST = "adjust"  # Stage II replaced the relational notes (CONTDA §4.2, App. A.7)
STAGES = (STAGE_SOURCE, STAGE_EXPLORE, STAGE_ADJUST)


def split_notes(text: str) -> tuple[str, str]:
    """(body, notes) of a documentation text; notes is '' when the text has no notes section."""
    head, sep, tail = text.partition(NOTES_HEADING)
    if not sep:
        return text.strip(), ""
    return head.strip(), tail.strip()


def compose(body: str, notes: str = "") -> str:
    """The documentation text an agent sees: the body, then the notes section when there is one."""
    body = body.strip()
    notes = notes.strip()
    return f"{body}\n\n{NOTES_HEADING}\n{notes}" if notes else body


def body_of(text: str) -> str:
    return split_notes(text)[0]


_KEY = re.compile(r"`([^`\n]+)`")


def fallback_keys(notes: str) -> tuple[str, ...]:
    """The tool keys a notes section names as fallbacks, in the order written: the backticked names on the
    lines that mention a fallback (the form both the offline notes and the notes prompt use: "Fallback:
    `x`, `y` when this tool fails"). Our reading of CONTDA App. A.7's "use t_i when t_j fails"; a fallback
    line that says "none" names nothing."""
    out: list[str] = []
    for line in notes.splitlines():
        if "fallback" in line.lower():
            out.extend(k.strip() for k in _KEY.findall(line) if k.strip())
    return tuple(dict.fromkeys(out))


def text_diff(before: str, after: str) -> str:
    """A unified line diff (lines wrapped at sentence ends so a one-sentence change shows as one line)."""
    def lines(text: str) -> list[str]:
        out: list[str] = []
        for line in text.splitlines():
            out.extend(s for s in line.replace(". ", ".\n").split("\n"))
        return out
    return "\n".join(difflib.unified_diff(lines(before), lines(after), "before", "after", lineterm="", n=1))


@dataclass(frozen=True)
class Revision:
    """One change to one tool's documentation under one method at one step, with what justified it."""

    key: str
    step: int
    stage: str
    before: str
    after: str
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"revision of {self.key!r}: unknown stage {self.stage!r}; valid stages: {', '.join(STAGES)}")

    @property
    def diff(self) -> str:
        return text_diff(self.before, self.after)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "step": self.step, "stage": self.stage, "before": self.before,
                "after": self.after, "evidence": dict(self.evidence)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Revision:
        return cls(str(data["key"]), int(data["step"]), str(data["stage"]), str(data["before"]),
                   str(data["after"]), dict(data.get("evidence") or {}))


def apply_revisions(docs: Mapping[str, str], revisions: Sequence[Revision]) -> dict[str, str]:
    """``docs`` with each revision's ``after`` text applied in order (keys not in ``docs`` are skipped:
    a revision never brings back a tool that is not in the toolset)."""
    out = dict(docs)
    for r in revisions:
        if r.key in out:
            out[r.key] = r.after
    return out
