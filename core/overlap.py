"""What the Overlap map shows, computed without rendering: point labels, the merged catalog's points on
the original axes, the links between look-alike tools, selections and search highlights."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.models import Tool

SINGLE = "(not merged)"
OTHER = "(other)"
SMALLER = "(smaller clusters)"
POOLED = (SINGLE, OTHER, SMALLER)  # groups that stand for "the rest", drawn in grey rather than given a colour

# Kinds of link between two tools (see :class:`OverlapLink`).
LOOK_ALIKE = "look-alike"  # close neighbours, no merge shown
MERGED = "merged"  # a candidate pair of the merge whose tools ended up as one tool
KEPT_APART = "kept apart"  # a candidate pair of the merge whose tools stay separate (judge or reviewer said so)
LINK_KINDS = (LOOK_ALIKE, MERGED, KEPT_APART)


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


def cluster_groups(tools: Sequence[Tool], phi: Mapping[str, str], top: int = 40) -> tuple[str, ...]:
    """Each tool's merge cluster, named by its representative's name; tools that merged with nothing
    share the "(not merged)" group, and past the ``top`` largest clusters (ties by name) the rest are pooled
    as "(smaller clusters)", so a merge of a large catalog still gets a readable legend."""
    names = {t.key: t.name for t in tools}
    rep = [phi.get(t.key, t.key) for t in tools]
    size = Counter(rep)
    ranked = sorted((r for r in size if size[r] > 1), key=lambda r: (-size[r], str(names.get(r, r))))
    keep = set(ranked[:top])
    return tuple(SINGLE if size[r] == 1 else str(names.get(r, r)) if r in keep else SMALLER for r in rep)


def original_layer(tools: Sequence[Tool], coords: np.ndarray, groups: Sequence[str]) -> MapLayer:
    if len(tools) != len(coords) or len(tools) != len(groups):
        raise ValueError(f"{len(tools)} tools but {len(coords)} coordinates and {len(groups)} groups")
    return MapLayer(tuple(t.key for t in tools), np.asarray(coords, dtype=np.float32), tuple(groups))


def merged_layer(tools: Sequence[Tool], coords: np.ndarray, phi: Mapping[str, str],
                 groups: Sequence[str] | None = None) -> MapLayer:
    """The catalog after merging, on the original axes: every kept tool stays where it was and stands for
    its cluster; pruned tools disappear (ToolScope §3.2 step 4, the mapping φ). Each kept tool keeps its
    label from ``groups`` (one per tool of ``tools``, as the original map was coloured), so both maps share
    one legend; without ``groups`` the labels are the merge clusters."""
    index = {t.key: i for i, t in enumerate(tools)}
    unknown = sorted(set(phi.values()) - set(index))
    if unknown:
        raise ValueError(f"φ maps to {unknown[0]!r}, which is not a tool of this catalog")
    labels = tuple(groups) if groups is not None else cluster_groups(tools, phi)
    if len(labels) != len(tools):
        raise ValueError(f"{len(tools)} tools but {len(labels)} groups")
    kept = [i for i, t in enumerate(tools) if phi.get(t.key, t.key) == t.key]
    return MapLayer(tuple(tools[i].key for i in kept), np.asarray(coords, dtype=np.float32)[kept],
                    tuple(labels[i] for i in kept))


@dataclass(frozen=True)
class OverlapLink:
    """Two tools that overlap: their keys, the cosine of their embeddings and what became of the pair."""

    a: str
    b: str
    cosine: float
    kind: str  # one of LINK_KINDS
    judged_same: bool | None = None  # the merge judge's verdict on the pair, when the pair came from a merge

    def __post_init__(self) -> None:
        if self.kind not in LINK_KINDS:
            raise ValueError(f"link kind {self.kind!r} is not one of {', '.join(LINK_KINDS)}")


def neighbour_links(tools: Sequence[Tool], vectors: np.ndarray, threshold: float, k: int = 10) -> tuple[OverlapLink, ...]:
    """Look-alike pairs when no merge is shown: each tool's ``k`` nearest neighbours with cosine ≥ ``threshold``
    (the same rule as ToolScope §3.2 step 1's candidate pairs, here only for drawing)."""
    from core.projection import knn_edges

    if len(tools) != len(vectors):
        raise ValueError(f"{len(tools)} tools but {len(vectors)} vectors")
    return tuple(OverlapLink(tools[i].key, tools[j].key, s, LOOK_ALIKE) for i, j, s in knn_edges(vectors, threshold, k=k))


def merge_links(pairs: Sequence, phi: Mapping[str, str]) -> tuple[OverlapLink, ...]:
    """The merge's candidate pairs (``PairVerdict``: keys ``a``, ``b``, ``cosine``, ``same``) as links: ``MERGED``
    when φ sends both tools to the same representative (after review), else ``KEPT_APART``. Pairs naming a
    tool φ does not know are left out."""
    out = []
    for p in pairs:
        if p.a in phi and p.b in phi:
            kind = MERGED if phi[p.a] == phi[p.b] else KEPT_APART
            out.append(OverlapLink(p.a, p.b, float(p.cosine), kind, bool(p.same)))
    return tuple(out)


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
