"""What the Overlap map shows, computed without rendering: point labels, the merged catalog's points on
the original axes, selections and search highlights."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.models import Tool

SINGLE = "(not merged)"
OTHER = "(other)"


@dataclass(frozen=True)
class MapLayer:
    """Points of one map: tool keys, their coordinates and the group each is coloured by."""

    keys: tuple[str, ...]
    coords: np.ndarray
    groups: tuple[str, ...]

    def index_of(self) -> dict[str, int]:
        return {k: i for i, k in enumerate(self.keys)}


def category_groups(tools: Sequence[Tool], top: int = 20) -> tuple[str, ...]:
    """Each tool's category; past the ``top`` most common ones, categories are pooled as "(other)" so a
    catalog with hundreds of categories still gets a readable legend."""
    counts = Counter(t.category or "(none)" for t in tools)
    keep = {c for c, _ in counts.most_common(top)}
    return tuple((t.category or "(none)") if (t.category or "(none)") in keep else OTHER for t in tools)


def cluster_groups(tools: Sequence[Tool], phi: Mapping[str, str]) -> tuple[str, ...]:
    """Each tool's merge cluster, named by its representative's name; tools that merged with nothing
    share the "(not merged)" group."""
    names = {t.key: t.name for t in tools}
    size = Counter(phi.get(t.key, t.key) for t in tools)
    return tuple(names.get(phi.get(t.key, t.key), phi.get(t.key, t.key)) if size[phi.get(t.key, t.key)] > 1
                 else SINGLE for t in tools)


def original_layer(tools: Sequence[Tool], coords: np.ndarray, groups: Sequence[str]) -> MapLayer:
    if len(tools) != len(coords) or len(tools) != len(groups):
        raise ValueError(f"{len(tools)} tools but {len(coords)} coordinates and {len(groups)} groups")
    return MapLayer(tuple(t.key for t in tools), np.asarray(coords, dtype=np.float32), tuple(groups))


def merged_layer(tools: Sequence[Tool], coords: np.ndarray, phi: Mapping[str, str]) -> MapLayer:
    """The catalog after merging, on the original axes: every kept tool stays where it was and stands for
    its cluster; pruned tools disappear (ToolScope §3.2 step 4, the mapping φ)."""
    index = {t.key: i for i, t in enumerate(tools)}
    unknown = sorted(set(phi.values()) - set(index))
    if unknown:
        raise ValueError(f"φ maps to {unknown[0]!r}, which is not a tool of this catalog")
    kept = [t for t in tools if phi.get(t.key, t.key) == t.key]
    groups = cluster_groups(tools, phi)
    by_key = dict(zip((t.key for t in tools), groups, strict=True))
    return MapLayer(tuple(t.key for t in kept), np.asarray(coords, dtype=np.float32)[[index[t.key] for t in kept]],
                    tuple(by_key[t.key] for t in kept))


def selected_keys(points: Sequence[Mapping], layer: MapLayer) -> list[str]:
    """Tool keys of a chart selection event's points (each point carries its key as customdata)."""
    valid = set(layer.keys)
    out: list[str] = []
    for p in points:
        data = p.get("customdata")
        key = data[0] if isinstance(data, list | tuple) and data else data
        if isinstance(key, str) and key in valid and key not in out:
            out.append(key)
    return out
