"""Documentation quality of the tools a change touches, through the doc-quality rater
(:func:`core.doc_quality.rate`: the rules, or a model's ``doc_quality`` role).

When it counts against the change is our definition: an added tool rated below ``doc_min``, or a changed or
renamed tool whose rating fell below both ``doc_min`` and its rating in BASE (a change that leaves poor docs
as poor as they were is not the change's fault; one that makes them poor is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.check.changes import ToolChanges
from core.doc_quality import rate
from core.models import Tool

DOC_MIN = 4  # 1 … 5; 4 allows one small problem (core.doc_quality.score_of)


@dataclass(frozen=True)
class DocFinding:
    key: str
    name: str
    status: str  # "added", "changed" or "renamed"
    score: int
    issues: tuple[str, ...]
    base_score: int | None  # the same tool's rating in BASE (None for an added tool)
    fires: bool  # counts against the change (see the module docstring)
    rater: str = "rules"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "status": self.status, "score": self.score,
                "issues": list(self.issues), "base_score": self.base_score, "fires": self.fires, "rater": self.rater}


def doc_findings(changes: ToolChanges, base: Mapping[str, Tool], new: Mapping[str, Tool], *,
                 doc_min: int = DOC_MIN, operators: Any | None = None) -> tuple[DocFinding, ...]:
    """A rating of every added, changed and renamed tool of NEW (and of its BASE text, to compare)."""
    if not 1 <= doc_min <= 5:
        raise ValueError(f"doc_min must be a score from 1 to 5, got {doc_min}")
    renamed_from = {newk: old for old, newk in changes.diff.renamed}
    added = set(changes.diff.added)
    out = []
    for key in changes.focus:
        tool = new[key]
        rating = rate(tool, operators)
        old_key = renamed_from.get(key, key if key not in added else None)
        base_score = rate(base[old_key], operators).score if old_key in base else None
        status = "added" if key in added else "renamed" if key in renamed_from else "changed"
        fires = rating.score < doc_min if base_score is None else rating.score < min(doc_min, base_score)
        out.append(DocFinding(key, tool.name, status, rating.score, rating.issues, base_score, fires, rating.rater))
    return tuple(out)


def worst_first(findings: Sequence[DocFinding]) -> list[DocFinding]:
    return sorted(findings, key=lambda f: (not f.fires, f.score, f.key))
