"""The three LLM roles of the merger behind one protocol (the ``merge`` family of :mod:`core.llm.framework`).

Roles (ToolScope §3.2): pair classification M_C (Eq. 1), the cluster validator V of Auto-Correction
(Eq. 2) and the documentation merger M_D. Every role returns a :class:`core.llm.base.RoleCall` and never
raises, so one bad answer costs one decision, not the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.llm.base import RoleCall
from core.models import Tool


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

