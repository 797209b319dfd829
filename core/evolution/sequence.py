"""Toolset sequences T_0 … T_T (CONTDA §3): from the Markov simulation over a pool (App. B.2) or from
real catalog versions compared list to list (no change log assumed, as with MCP's list-changed signal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.evolution.diff import VersionDiff, diff_tools
from core.evolution.markov import MarkovConfig, simulate
from core.models import Tool

SOURCES = ("markov", "versions")


@dataclass(frozen=True)
class ToolsetSequence:
    """The tools of every step (with the documentation the catalog gives at that step) and the diff of
    each step against the one before (``diffs[t - 1]`` leads to step ``t``)."""

    source: str
    labels: tuple[str, ...]
    steps: tuple[tuple[Tool, ...], ...]
    diffs: tuple[VersionDiff, ...]
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown sequence source {self.source!r}; valid sources: {', '.join(SOURCES)}")
        if not self.steps:
            raise ValueError("a toolset sequence needs at least one step")
        if len(self.labels) != len(self.steps) or len(self.diffs) != len(self.steps) - 1:
            raise ValueError(f"{len(self.steps)} steps, {len(self.labels)} labels and {len(self.diffs)} diffs "
                             "do not line up")

    @property
    def T(self) -> int:  # noqa: N802 - the paper's name for the last step
        return len(self.steps) - 1

    def keys(self, t: int) -> tuple[str, ...]:
        return tuple(tool.key for tool in self.steps[t])

    def to_json(self) -> dict[str, Any]:
        """Everything but tool contents (those are in the catalog store): keys per step and the diffs."""
        return {"source": self.source, "labels": list(self.labels), "config": dict(self.config),
                "keys": [list(self.keys(t)) for t in range(len(self.steps))],
                "diffs": [d.to_json() for d in self.diffs]}


def markov_sequence(pool: Sequence[Tool], config: MarkovConfig) -> ToolsetSequence:
    """CONTDA App. B.2 over ``pool``: subsets S_0 … S_T, each tool keeping its pool documentation."""
    by_key = {t.key: t for t in pool}
    if len(by_key) != len(pool):
        raise ValueError("the Markov pool has duplicate tool keys")
    subsets = simulate([t.key for t in pool], config)
    steps = tuple(tuple(by_key[k] for k in keys) for keys in subsets)
    diffs = tuple(diff_tools(steps[t - 1], steps[t]) for t in range(1, len(steps)))
    labels = tuple(f"t{t}" for t in range(len(steps)))
    return ToolsetSequence("markov", labels, steps, diffs, {"pool": len(pool), **config.to_json()})


def version_sequence(versions: Sequence[Sequence[Tool]], labels: Sequence[str] | None = None) -> ToolsetSequence:
    """Real catalog versions in order; added / removed / retained / rewritten / renamed found by diffing."""
    if len(versions) < 2:
        raise ValueError(f"an evolving toolset needs at least two versions, got {len(versions)}")
    labels = tuple(labels) if labels is not None else tuple(f"v{i + 1}" for i in range(len(versions)))
    if len(labels) != len(versions):
        raise ValueError(f"{len(versions)} versions but {len(labels)} labels")
    steps = tuple(tuple(v) for v in versions)
    diffs = tuple(diff_tools(steps[t - 1], steps[t]) for t in range(1, len(steps)))
    return ToolsetSequence("versions", labels, steps, diffs, {"versions": list(labels)})
