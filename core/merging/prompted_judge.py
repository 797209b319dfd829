"""Merge judge answered by a chat model through :class:`core.llm.prompted.PromptedOperators` (same backend,
ledger, retries and replay as the strategies; :class:`core.llm.framework.PromptedRoles`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.llm.base import LLMBadResponse, RoleCall
from core.llm.framework import PromptedRoles
from core.llm.parsing import parse_json_object, parse_single
from core.merging import prompts
from core.merging.integrity import MergeIntegrityError, check_split
from core.merging.judge import AuditJudgement, PairJudgement
from core.models import Tool

_YES = re.compile(r"^\s*(?:yes|true|same)\b", re.IGNORECASE)
_NO = re.compile(r"^\s*(?:no|false|none|different|not)\b", re.IGNORECASE)


def parse_pair(text: str) -> PairJudgement:
    """``{"same": bool, "reason": …}``, or a first line saying yes/no (the reason is the rest)."""
    try:
        obj = parse_json_object(text, {"same": bool})
        return PairJudgement(obj["same"], str(obj.get("reason", "")).strip())
    except LLMBadResponse:
        first, _, rest = text.strip().partition("\n")
        if _YES.match(first) or _NO.match(first):
            return PairJudgement(bool(_YES.match(first)), (rest or first).strip())
        raise


def parse_audit(text: str, members: Sequence[str]) -> AuditJudgement:
    """``{"verdict": "MERGE_OK"}`` or ``{"verdict": "MERGE_BAD", "groups": [[…], …]}`` (the paper's field
    names ``merge`` / ``clusters`` are read too). A split must be a partition of ``members``."""
    obj = parse_json_object(text)
    verdict = str(obj.get("verdict", obj.get("merge", ""))).strip().upper()
    reason = str(obj.get("reason", "")).strip()
    if verdict == "MERGE_OK":
        return AuditJudgement(True, (tuple(members),), reason)
    if verdict != "MERGE_BAD":
        raise LLMBadResponse(f"verdict should be MERGE_OK or MERGE_BAD, not {verdict or 'missing'!r}")
    groups = obj.get("groups", obj.get("clusters"))
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise LLMBadResponse("a MERGE_BAD verdict needs 'groups': a list of lists of tool ids")
    split = tuple(tuple(str(k) for k in g) for g in groups if g)
    try:
        check_split("audit", members, split)
    except MergeIntegrityError as exc:
        raise LLMBadResponse(f"the split is not a partition of the cluster: {exc}") from None
    return AuditJudgement(len(split) == 1, split, reason)


class PromptedJudge(PromptedRoles):
    """The :class:`core.merging.judge.MergeJudge` roles, each one chat call through prompted operators."""

    family = "merge"
    system = prompts.SYSTEM

    def classify_pair(self, a: Tool, b: Tool, cosine: float) -> RoleCall:
        return self._ask("classify_pair", prompts.classify_pair(a, b), parse_pair, 0.0)

    def audit_cluster(self, members: Sequence[Tool]) -> RoleCall:
        keys = [t.key for t in members]
        return self._ask("audit_cluster", prompts.audit_cluster(members), lambda t: parse_audit(t, keys), 0.0)

    def merged_doc(self, representative: Tool, others: Sequence[Tool]) -> RoleCall:
        def parse(text: str) -> str:
            single = parse_single(text)
            if not single:
                raise LLMBadResponse("empty merged description")
            return single
        return self._ask("merged_doc", prompts.merged_doc(representative, others), parse, 0.3)
