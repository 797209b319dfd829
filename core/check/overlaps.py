"""New overlaps in NEW: candidate pairs of ToolScope's merger (§3.2 step 1, cosine ≥ θ among each tool's k
nearest neighbours) that involve an added, changed or renamed tool, put to the merger's pair judge (§3.2
step 2, Eq. 1).

Only pairs not already judged the same in BASE count as new (our definition): when both tools existed in
BASE, their BASE texts are judged too, and a pair that was a duplicate already is reported as old.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.concurrency import map_or_raise
from core.merging.candidates import candidate_pairs
from core.merging.judge import MergeJudge
from core.models import Tool


@dataclass(frozen=True)
class Overlap:
    """A candidate pair with a tool under review (``key``) and the other tool (``other``) in NEW."""

    key: str
    other: str
    cosine: float
    same: bool  # the judge's verdict on the pair
    reason: str
    nearest_existing: str  # the tool of BASE nearest to ``key`` in NEW (by cosine); "" when there is none
    judge_ok: bool = True
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "other": self.other, "cosine": self.cosine, "same": self.same,
                "reason": self.reason, "nearest_existing": self.nearest_existing, "judge_ok": self.judge_ok,
                "error": self.error}


def _unit(vectors: np.ndarray) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def nearest_existing(tools: Sequence[Tool], vectors: np.ndarray, focus: Sequence[str],
                     existing: set[str]) -> dict[str, str]:
    """For each key of ``focus``, the nearest other tool of NEW whose key is in ``existing`` (by cosine)."""
    index = {t.key: i for i, t in enumerate(tools)}
    pool = np.asarray([i for i, t in enumerate(tools) if t.key in existing], dtype=np.int64)
    out: dict[str, str] = {}
    if not len(pool):
        return {k: "" for k in focus}
    x = _unit(vectors)
    rows = [index[k] for k in focus]
    sims = x[rows] @ x[pool].T if rows else np.zeros((0, len(pool)))
    for r, key in enumerate(focus):
        s = sims[r].copy()
        s[pool == index[key]] = -np.inf
        best = int(np.argmax(s))
        out[key] = tools[int(pool[best])].key if np.isfinite(s[best]) else ""
    return out


def new_overlaps(new_tools: Sequence[Tool], vectors: np.ndarray, focus: Sequence[str], judge: MergeJudge, *,
                 base_tools: Mapping[str, Tool], base_key: Callable[[str], str | None], threshold: float,
                 k: int = 30, workers: int = 4) -> tuple[Overlap, ...]:
    """Judged candidate pairs of NEW that involve a ``focus`` key and were not already the same tool in BASE
    (``base_key`` maps a NEW key to its BASE key, or None for an added tool). Judged-same first, then by cosine."""
    focus_set = set(focus)
    if not focus_set:
        return ()
    pairs = [p for p in candidate_pairs(vectors, k=k, threshold=threshold)
             if new_tools[p.i].key in focus_set or new_tools[p.j].key in focus_set]

    def judge_pair(p) -> tuple[Any, bool]:
        a, b = new_tools[p.i], new_tools[p.j]
        call = judge.classify_pair(a, b, p.cosine)
        ka, kb = base_key(a.key), base_key(b.key)
        was_same = False
        if ka in base_tools and kb in base_tools and call.ok and call.value.same:
            old = judge.classify_pair(base_tools[ka], base_tools[kb], p.cosine)
            was_same = bool(old.ok and old.value.same)
        return call, was_same

    judged = map_or_raise(judge_pair, pairs, workers)  # a role call never raises; a bug does
    existing = {t.key for t in new_tools if base_key(t.key) is not None}
    near = nearest_existing(new_tools, vectors, sorted(focus_set & {t.key for t in new_tools}), existing)
    out = []
    for p, (call, was_same) in zip(pairs, judged, strict=True):
        if was_same:
            continue
        a, b = new_tools[p.i].key, new_tools[p.j].key
        key, other = (a, b) if a in focus_set and (b not in focus_set or base_key(a) is None) else (b, a)
        if call.ok:
            out.append(Overlap(key, other, float(p.cosine), bool(call.value.same), call.value.reason, near.get(key, "")))
        else:
            out.append(Overlap(key, other, float(p.cosine), False, "the judge did not answer", near.get(key, ""),
                               False, call.error))
    out.sort(key=lambda o: (not o.same, -o.cosine, o.key, o.other))
    return tuple(out)
