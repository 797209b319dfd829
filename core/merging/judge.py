"""The three LLM roles of the merger behind one protocol, and the lookup of an implementation by name.

Roles (ToolScope §3.2): pair classification M_C (Eq. 1), the cluster validator V of Auto-Correction
(Eq. 2) and the documentation merger M_D. Every role returns a :class:`core.llm.base.RoleCall` and never
raises, so one bad answer costs one decision, not the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.llm.base import RoleCall
from core.models import Tool

JUDGES = ("offline", "prompted")


@dataclass(frozen=True)
class PairJudgement:
    same: bool
    reason: str


@dataclass(frozen=True)
class AuditJudgement:
    """MERGE_OK (``ok``) or MERGE_BAD with ``groups``: the cluster split into sub-clusters of keys."""

    ok: bool
    groups: tuple[tuple[str, ...], ...]
    reason: str


class MergeJudge(Protocol):
    name: str
    model: str

    def classify_pair(self, a: Tool, b: Tool, cosine: float) -> RoleCall:
        """ToolScope Eq. 1: do ``a`` and ``b`` do the same job (value: :class:`PairJudgement`)?"""
        ...

    def audit_cluster(self, members: Sequence[Tool]) -> RoleCall:
        """ToolScope Eq. 2 (Auto-Correction): keep the cluster or split it (value: :class:`AuditJudgement`)."""
        ...

    def merged_doc(self, representative: Tool, others: Sequence[Tool]) -> RoleCall:
        """ToolScope §3.2 (M_D): one description covering the cluster (value: str)."""
        ...


def make_judge(kind: str, *, operators: Any = None, ledger: Any = None, seed: int = 0) -> MergeJudge:
    """``offline`` (rules, no model) or ``prompted`` (the chat backend inside ``operators``)."""
    if kind == "offline":
        from core.merging.offline_judge import OfflineJudge

        return OfflineJudge(ledger=ledger, seed=seed)
    if kind == "prompted":
        from core.merging.prompted_judge import PromptedJudge

        if operators is None or not hasattr(operators, "backend"):
            raise ValueError("the prompted judge needs prompted LLM operators (an endpoint), not offline ones")
        return PromptedJudge(operators)
    raise ValueError(f"unknown merge judge {kind!r}; valid judges: {', '.join(JUDGES)}")
