"""The final integrity checks of ToolScope §3.2 (after Auto-Correction), and ours on merged schemas."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from core.models import Tool


class MergeIntegrityError(ValueError):
    """A split or mapping that would lose or duplicate a tool."""


def check_split(cluster_id: str, members: Sequence[str], groups: Sequence[Sequence[str]]) -> None:
    """ToolScope §3.2 step 5 / App. F: a MERGE_BAD split must be a partition of its cluster (every member in
    exactly one group, nothing added, no empty group). Eq. 2 only asks each sub-cluster to lie inside the
    cluster; asking for a partition (a removed member stays as a group of its own) is our definition."""
    seen: dict[str, int] = {}
    for i, group in enumerate(groups):
        if not group:
            raise MergeIntegrityError(f"cluster {cluster_id}: group {i} of the split is empty")
        for key in group:
            if key in seen:
                raise MergeIntegrityError(f"cluster {cluster_id}: {key!r} is in groups {seen[key]} and {i}")
            seen[key] = i
    extra = sorted(set(seen) - set(members))
    if extra:
        raise MergeIntegrityError(f"cluster {cluster_id}: the split adds {extra[0]!r}, which is not a member")
    missing = [k for k in members if k not in seen]
    if missing:
        raise MergeIntegrityError(f"cluster {cluster_id}: the split drops {missing[0]!r}")


def check_integrity(all_keys: Collection[str], clusters: Mapping[str, Sequence[Sequence[str]]],
                    phi: Mapping[str, str]) -> None:
    """ToolScope §3.2 step 5 (final integrity checks): no tool in two clusters; φ covers exactly the catalog;
    no tool both kept and pruned (each kept tool maps to itself); every group of a cluster maps to one kept
    tool inside it. ``clusters`` maps a cluster id to its final groups (the split, or one group). The paper
    states the first and the third; the others are our definitions of a consistent φ."""
    owner: dict[str, str] = {}
    for cid, groups in clusters.items():
        for group in groups:
            for key in group:
                if key in owner and owner[key] != cid:
                    raise MergeIntegrityError(f"{key!r} is in clusters {owner[key]} and {cid}")
                owner[key] = cid
    keys = set(all_keys)
    if set(phi) != keys:
        odd = sorted(set(phi) ^ keys)[0]
        raise MergeIntegrityError(f"φ and the catalog disagree about {odd!r}")
    kept = set(phi.values())
    for key in sorted(kept):
        where = f"cluster {owner[key]}: " if key in owner else ""
        if key not in keys:
            raise MergeIntegrityError(f"φ maps to {key!r}, which is not in the catalog")
        if phi[key] != key:
            raise MergeIntegrityError(f"{where}{key!r} is kept (others map to it) and pruned "
                                      f"(it maps to {phi[key]!r})")
    for cid, groups in clusters.items():
        for group in groups:
            targets = {phi[k] for k in group if k in phi}
            if len(targets) > 1:
                raise MergeIntegrityError(f"cluster {cid}: the group {list(group)!r} maps to several kept tools "
                                          f"{sorted(targets)!r}")
            if targets and next(iter(targets)) not in group:
                raise MergeIntegrityError(f"cluster {cid}: the group {list(group)!r} maps to "
                                          f"{next(iter(targets))!r}, which is outside the group")


def parameter_losses(representative: Tool, others: Sequence[Tool]) -> tuple[str, ...]:
    """What merging ``others`` into ``representative`` would take away from them, one line per lost
    parameter (ours: ToolScope §3.2 checks the mapping, not the schemas). A parameter is lost when the
    merged schema (:func:`core.merging.docs.merged_parameters`) lacks it, or, for HTTP operations at
    another endpoint (OpenAPI tools keep ``method`` and ``path`` in ``extra``), when the kept endpoint does
    not take it itself: ``region`` of ``GET /movie/popular`` sent to ``GET /tv/popular`` is ignored, and a
    ``movie_id`` has no place in ``/tv/{series_id}/images``."""
    from core.merging.docs import merged_parameters
    from core.merging.features import endpoint

    merged = set(merged_parameters(representative, others).get("properties", {}))
    kept_at = endpoint(representative)
    takes = set(representative.parameter_names)
    losses: list[str] = []
    for other in others:
        losses += [f"{p!r} of {other.name} is missing from the merged schema"
                   for p in other.parameter_names if p not in merged]
        at = endpoint(other)
        if kept_at is None or at is None or (at.method, at.path, at.server) == (kept_at.method, kept_at.path,
                                                                               kept_at.server):
            continue
        losses += [f"{p!r} of {other.name} ({at.label}): {kept_at.label} does not take it"
                   for p in other.parameter_names if p not in takes]
    return tuple(losses)


def check_parameters(cluster_id: str, representative: Tool, others: Sequence[Tool]) -> None:
    """A merged tool must keep every parameter its members need (:func:`parameter_losses`)."""
    losses = parameter_losses(representative, others)
    if losses:
        more = f" (and {len(losses) - 1} more)" if len(losses) > 1 else ""
        raise MergeIntegrityError(f"cluster {cluster_id}: merging into {representative.name} drops "
                                  f"{losses[0]}{more}")
