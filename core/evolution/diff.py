"""What changed between two catalog versions when only the two tool lists are known (no change log, as
with MCP's ``tools/list_changed``, CONTDA App. B.2): keys are compared first, then content.

A key present in both versions is retained (and also ``changed`` when its content hash moved). Keys on
only one side are then paired up as renames when the tool itself evidently survived under a new key;
what is left over is added or removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.models import Tool

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class VersionDiff:
    """Keys added, removed, retained (of which ``changed``) and renamed from one version to the next."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    retained: tuple[str, ...]
    changed: tuple[str, ...]
    renamed: tuple[tuple[str, str], ...]

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "retained": len(self.retained),
                "changed": len(self.changed), "renamed": len(self.renamed)}

    def to_json(self) -> dict[str, Any]:
        return {"added": list(self.added), "removed": list(self.removed), "retained": list(self.retained),
                "changed": list(self.changed), "renamed": [[old, new] for old, new in self.renamed]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VersionDiff:
        def keys(name: str) -> tuple[str, ...]:
            return tuple(str(k) for k in data.get(name) or ())

        renamed = []
        for pair in data.get("renamed") or ():
            if len(pair) != 2:
                raise ValueError(f"renamed: expected [old_key, new_key] pairs, got {pair!r}")
            renamed.append((str(pair[0]), str(pair[1])))
        return cls(keys("added"), keys("removed"), keys("retained"), keys("changed"), tuple(renamed))


def _index(tools: Sequence[Tool], which: str) -> dict[str, Tool]:
    out: dict[str, Tool] = {}
    for tool in tools:
        if tool.key in out:
            raise ValueError(f"{which} version: duplicate key {tool.key!r}")
        out[tool.key] = tool
    return out


def _tokens(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _pair_renames(only_prev: Sequence[Tool], only_cur: Sequence[Tool], threshold: float) -> list[tuple[str, str]]:
    """One-to-one (old_key, new_key) pairs, in ``only_cur`` order."""
    # both rename rules need equal parameter-name sets (identical parameters imply them), so only tools
    # in the same bucket are compared: a large churn step stays far below |removed| x |added| work
    buckets: dict[frozenset[str], list[int]] = {}
    for j, new in enumerate(only_cur):
        buckets.setdefault(frozenset(new.parameter_names), []).append(j)
    cur_tokens = [_tokens(t.description) for t in only_cur]

    candidates = []
    for i, old in enumerate(only_prev):
        old_tokens = _tokens(old.description)
        # an empty description carries no evidence: without this, every pair of undocumented tools with
        # the same (often empty) schema would be taken for the same tool
        if not old_tokens:
            continue
        for j in buckets.get(frozenset(old.parameter_names), ()):
            new = only_cur[j]
            if not cur_tokens[j]:
                continue
            if old.description == new.description and dict(old.parameters) == dict(new.parameters):
                candidates.append((-1, -1.0, i, j))
                continue
            similarity = _jaccard(old_tokens, cur_tokens[j])
            if similarity >= threshold:
                candidates.append((0, -similarity, i, j))
    # exact matches first, then the most similar; version order settles ties
    candidates.sort()
    used_old: set[int] = set()
    used_new: set[int] = set()
    pairs = []
    for _, _, i, j in candidates:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append((i, j))
    pairs.sort(key=lambda p: p[1])
    return [(only_prev[i].key, only_cur[j].key) for i, j in pairs]


def diff_tools(prev: Sequence[Tool], cur: Sequence[Tool], *, rename_threshold: float = 0.8) -> VersionDiff:
    """The diff T_{t−1} → T_t (the A_t / R_t of CONTDA Eq. 12, App. B.2, read back from two lists). The
    paper only adds and removes; renames and content changes (``changed``) are our definition, for real
    catalog versions.

    A key only in ``prev`` and a key only in ``cur`` form a rename when description and parameters are
    identical (the name may differ), or when the parameter names agree and the lower-cased word-token
    Jaccard of the descriptions is at least ``rename_threshold``. Pairs are one-to-one, best first.
    Renames are listed in ``cur`` order of the new key.
    """
    if not (0.0 < rename_threshold <= 1.0):
        raise ValueError(f"rename_threshold: must be in (0, 1], got {rename_threshold!r}")
    prev_by_key = _index(prev, "previous")
    cur_by_key = _index(cur, "current")

    retained = tuple(t.key for t in cur if t.key in prev_by_key)
    changed = tuple(k for k in retained if prev_by_key[k].content_hash() != cur_by_key[k].content_hash())
    only_prev = [t for t in prev if t.key not in cur_by_key]
    only_cur = [t for t in cur if t.key not in prev_by_key]
    renamed = _pair_renames(only_prev, only_cur, rename_threshold)
    old_keys = {old for old, _ in renamed}
    new_keys = {new for _, new in renamed}
    return VersionDiff(
        added=tuple(t.key for t in only_cur if t.key not in new_keys),
        removed=tuple(t.key for t in only_prev if t.key not in old_keys),
        retained=retained,
        changed=changed,
        renamed=tuple(renamed),
    )


def diff_sequence(versions: Sequence[Sequence[Tool]], **kw: Any) -> tuple[VersionDiff, ...]:
    """``diff_tools`` over each consecutive pair of versions (one diff fewer than versions)."""
    return tuple(diff_tools(versions[t - 1], versions[t], **kw) for t in range(1, len(versions)))
