"""The catalog map of a timeline run: one 2-D position per tool that appears at any step, and each tool's
status at a step (retained, added, removed or absent), so a map can show a toolset evolving (CONTDA §3,
Fig. 1B drawn as a map instead of bars).

Positions come from the tools' catalog text (as imported, not a method's adapted documentation) so a tool
stays in the same place at every step and under every method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

RETAINED = "retained"
ADDED = "added"
REMOVED = "removed"
ABSENT = "absent"
STATUSES = (RETAINED, ADDED, REMOVED, ABSENT)


def union_keys(sequence_json: Mapping[str, Any]) -> list[str]:
    """Every key present at some step, in first-seen order (step by step, each step in its own order)."""
    seen: dict[str, None] = {}
    for keys in sequence_json.get("keys", ()):
        for key in keys:
            seen.setdefault(str(key), None)
    return list(seen)


def step_status(sequence_json: Mapping[str, Any], t: int) -> dict[str, str]:
    """Status of every key of the run's union at step ``t``: ``retained`` (present at t−1 and t),
    ``added`` (present at t, not at t−1), ``removed`` (present at t−1, gone at t) or ``absent``.
    At t = 0 every present tool counts as retained (the initial toolset). Found from the key lists alone,
    so a rename shows as its old key removed and its new key added."""
    steps = [list(map(str, keys)) for keys in sequence_json.get("keys", ())]
    if not 0 <= t < len(steps):
        raise ValueError(f"step {t} out of range: the sequence has steps 0..{len(steps) - 1}")
    now = set(steps[t])
    before = set(steps[t - 1]) if t > 0 else now
    out: dict[str, str] = {}
    for key in union_keys(sequence_json):
        if key in now:
            out[key] = RETAINED if key in before else ADDED
        else:
            out[key] = REMOVED if key in before else ABSENT
    return out


def step_counts(sequence_json: Mapping[str, Any]) -> list[dict[str, int]]:
    """Per step the number of tools retained, added, removed and rewritten (``changed``); step 0 counts
    its whole toolset as retained. The counts of a step t ≥ 1 come from ``diffs[t − 1]`` (renames count as
    retained: the tool survived under a new key)."""
    keys = sequence_json.get("keys", ())
    diffs = sequence_json.get("diffs", ())
    out = []
    for t in range(len(keys)):
        if t == 0:
            out.append({RETAINED: len(keys[0]), ADDED: 0, REMOVED: 0, "changed": 0, "renamed": 0})
            continue
        d = diffs[t - 1]
        renamed = len(d.get("renamed") or ())
        out.append({RETAINED: len(d.get("retained") or ()) + renamed, ADDED: len(d.get("added") or ()),
                    REMOVED: len(d.get("removed") or ()), "changed": len(d.get("changed") or ()),
                    "renamed": renamed})
    return out


def catalog_tools(ws: Any, catalog: str, keys: Sequence[str]) -> dict[str, Any]:
    """The stored tool for each key, from the newest version of ``catalog`` that holds it (keys found in
    no version are left out)."""
    from storage.catalogs import get_catalog

    wanted = set(keys)
    found: dict[str, Any] = {}
    for version in sorted(get_catalog(ws.db, catalog).versions, key=lambda v: -v.number):
        for tool in ws.tools(version.id):
            if tool.key in wanted and tool.key not in found:
                found[tool.key] = tool
        if len(found) == len(wanted):
            break
    return found


def step_map(ws: Any, run: Any, seed: int, method: str = "pca") -> tuple[list[str], np.ndarray]:
    """Keys of the union of all steps of ``run``'s sequence for ``seed`` (first-seen order) and their 2-D
    coordinates: the tools' catalog text embedded through the workspace's vector cache and projected with
    ``method`` (PCA by default: instant and deterministic)."""
    from core.embedding import encode_cached
    from core.models import tool_text
    from core.projection import project

    sequences = run.sequences
    if seed not in sequences:
        raise ValueError(f"run {run.run_id} has no sequence for seed {seed}; seeds: {sorted(sequences)}")
    keys = union_keys(sequences[seed])
    if not keys:
        return [], np.zeros((0, 2), dtype=np.float32)
    tools = catalog_tools(ws, str(run.spec["catalog"]), keys)
    texts = [tool_text(tools[k]) if k in tools else k for k in keys]
    vectors, _ = encode_cached(ws.embedder, texts, ws.cache)
    projection, _ = project(np.asarray(vectors), method)
    return keys, np.asarray(projection.coords, dtype=np.float32)
