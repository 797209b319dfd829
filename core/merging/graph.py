"""Graph steps of ToolScopeMerger: connected components, representatives and the mapping φ."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.models import Tool


def components(keys: Sequence[str], links: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """ToolScope §3.2 (graph construction): connected components of the graph whose edges are the positive
    pairs, by union–find. Components keep the order of ``keys``; they are listed by size, then first key."""
    parent = {k: k for k in keys}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in links:
        if a not in parent or b not in parent:
            raise ValueError(f"link ({a!r}, {b!r}) names a tool that is not in the graph")
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
    groups: dict[str, list[str]] = {}
    for k in keys:
        groups.setdefault(find(k), []).append(k)
    order = {k: i for i, k in enumerate(keys)}
    return sorted((tuple(g) for g in groups.values()), key=lambda g: (-len(g), order[g[0]]))


def representative(members: Sequence[Tool]) -> Tool:
    """ToolScope §3.2 (tool pruning): the member with the shortest function name; ties by name, then key (the
    tie-break is our definition; the paper names none)."""
    if not members:
        raise ValueError("a cluster needs at least one member")
    return min(members, key=lambda t: (len(t.name), t.name, t.key))


def phi_of(groups: Iterable[Sequence[Tool]]) -> dict[str, str]:
    """ToolScope §3.2: φ maps every member of a group to its representative's key."""
    phi: dict[str, str] = {}
    for group in groups:
        rep = representative(group).key
        for t in group:
            phi[t.key] = rep
    return phi


def relabel(keys: Iterable[str], phi: Mapping[str, str]) -> tuple[str, ...]:
    """ToolScope Eq. 3: gold keys through φ, duplicates dropped, order kept."""
    return tuple(dict.fromkeys(phi.get(k, k) for k in keys))
