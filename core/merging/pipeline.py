"""ToolScopeMerger end to end (ToolScope §3.2, Alg. 1 steps 1–12): candidates, pair classification,
components, representatives and φ, Auto-Correction, integrity checks, merged documentation.

Pair classification, audits and merged docs are three resumable stages (core.concurrency.run_stage): every
judge answer goes through ``store`` as soon as it arrives, so an interrupted run resumes without asking
again; a finished run is rebuilt from its store with no judge calls at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from core.concurrency import Progress, run_stage
from core.merging.calibration import PAPER_THRESHOLD
from core.merging.candidates import candidate_pairs
from core.merging.docs import merged_tool
from core.merging.graph import components, representative
from core.merging.integrity import check_integrity, check_parameters, check_split, parameter_losses
from core.merging.judge import MergeJudge
from core.models import Tool


@dataclass(frozen=True)
class MergeConfig:
    """Settings of one merge. ``threshold`` defaults to the paper's θ (ToolScope §4.1); the pages and the CLI
    start from the θ recommended for the embedding model (core.merging.calibration). ``keep_parameters``
    (ours; the paper has no such step) splits off a member whose parameters the merged tool could not
    pass on (core.merging.integrity.parameter_losses); off, groups stay as the judge made them."""

    threshold: float = PAPER_THRESHOLD
    k: int = 30
    autocorrect: bool = True
    max_workers: int = 8
    keep_parameters: bool = True

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be a cosine in (0, 1], got {self.threshold}")
        if self.k < 1:
            raise ValueError(f"k must be at least 1, got {self.k}")
        if self.max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {self.max_workers}")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threshold": self.threshold, "k": self.k, "autocorrect": self.autocorrect}
        if not self.keep_parameters:  # the default stays out, so runs stored before the switch still match
            out["keep_parameters"] = False
        return out


@dataclass(frozen=True)
class PairVerdict:
    a: str
    b: str
    cosine: float
    same: bool
    reason: str
    ok: bool = True
    error: str | None = None
    call_id: int | None = None

    @property
    def a_key(self) -> str:
        return self.a

    @property
    def b_key(self) -> str:
        return self.b


@dataclass(frozen=True)
class ClusterAudit:
    ok: bool
    groups: tuple[tuple[str, ...], ...]
    reason: str
    call_id: int | None = None
    error: str | None = None

    @property
    def verdict(self) -> str:
        if self.error:
            return "ERROR"
        return "MERGE_OK" if self.ok else "MERGE_BAD"


@dataclass(frozen=True)
class MergedDoc:
    description: str
    call_id: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class Cluster:
    id: str
    members: tuple[str, ...]
    representative: str
    confidence: float  # mean cosine of the positive pairs inside the cluster
    audit: ClusterAudit | None
    groups: tuple[tuple[str, ...], ...]  # after Auto-Correction; each group keeps its own representative
    kept_apart: tuple[str, ...] = ()  # why members were split off so that none loses a parameter


@dataclass(frozen=True)
class MergeResult:
    config: MergeConfig
    pairs: tuple[PairVerdict, ...]
    clusters: tuple[Cluster, ...]
    phi: Mapping[str, str]
    merged_tools: Mapping[str, Tool] = field(default_factory=dict)

    @property
    def merge_ok(self) -> int:
        return sum(1 for c in self.clusters if c.audit is not None and c.audit.verdict == "MERGE_OK")

    @property
    def merge_bad(self) -> int:
        return sum(1 for c in self.clusters if c.audit is not None and c.audit.verdict == "MERGE_BAD")

    def reduced_catalog(self, tools: Sequence[Tool]) -> tuple[Tool, ...]:
        """The merged toolset T′: kept tools in catalog order, merged ones with their merged docs."""
        return tuple(self.merged_tools.get(t.key, t) for t in tools if self.phi.get(t.key, t.key) == t.key)

    def summary(self) -> dict[str, Any]:
        kept = len(set(self.phi.values()))
        return {"size_before": len(self.phi), "size_after": kept, "candidate_pairs": len(self.pairs),
                "positive_pairs": sum(p.same for p in self.pairs), "clusters": len(self.clusters),
                "merge_ok": self.merge_ok, "merge_bad": self.merge_bad,
                "pair_errors": sum(not p.ok for p in self.pairs)}


class MergeStore(Protocol):
    def load_pairs(self) -> Mapping[tuple[str, str], PairVerdict]: ...
    def save_pair(self, verdict: PairVerdict) -> None: ...
    def load_audits(self) -> Mapping[str, ClusterAudit]: ...
    def save_audit(self, members_key: str, audit: ClusterAudit) -> None: ...
    def load_docs(self) -> Mapping[str, MergedDoc]: ...
    def save_doc(self, group_key: str, doc: MergedDoc) -> None: ...


class MemoryMergeStore:
    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], PairVerdict] = {}
        self.audits: dict[str, ClusterAudit] = {}
        self.docs: dict[str, MergedDoc] = {}

    def load_pairs(self) -> Mapping[tuple[str, str], PairVerdict]:
        return dict(self.pairs)

    def save_pair(self, verdict: PairVerdict) -> None:
        self.pairs[(verdict.a, verdict.b)] = verdict

    def load_audits(self) -> Mapping[str, ClusterAudit]:
        return dict(self.audits)

    def save_audit(self, members_key: str, audit: ClusterAudit) -> None:
        self.audits[members_key] = audit

    def load_docs(self) -> Mapping[str, MergedDoc]:
        return dict(self.docs)

    def save_doc(self, group_key: str, doc: MergedDoc) -> None:
        self.docs[group_key] = doc


def group_key(keys: Sequence[str]) -> str:
    """Identity of a set of tools in the store (order-free)."""
    return "\n".join(sorted(keys))


def run_merge(tools: Sequence[Tool], vectors: np.ndarray, judge: MergeJudge, config: MergeConfig | None = None, *,
              store: MergeStore | None = None, progress: Progress | None = None,
              retry_failed: bool = True) -> MergeResult:
    """ToolScope Alg. 1 steps 1–12 over ``tools`` (rows of ``vectors`` in the same order).

    With ``retry_failed`` (resuming an interrupted run) a stored result whose call failed is asked again
    and overwritten; without it (reopening a finished, perhaps reviewed, run) the stored results are
    final, so the clusters a reviewer's decisions refer to never change."""
    config = config or MergeConfig()
    if len(tools) != len(vectors):
        raise ValueError(f"{len(tools)} tools but {len(vectors)} vectors")
    keys = [t.key for t in tools]
    if len(set(keys)) != len(keys):
        raise ValueError("tool keys must be unique")
    by_key = {t.key: t for t in tools}
    store = store if store is not None else MemoryMergeStore()

    def settled(stored: PairVerdict | ClusterAudit | MergedDoc) -> bool:
        failed = not stored.ok if isinstance(stored, PairVerdict) else bool(getattr(stored, "error", None))
        return not (retry_failed and failed)

    def stage(items: Sequence[Any], work: Callable[[Any], Any], key: Callable[[Any], Any], stored: Mapping[Any, Any],
              save: Callable[[Any, Any], None], name: str) -> dict[Any, Any]:
        return run_stage(items, work, key=key, stored=stored, save=save, settled=settled,
                         workers=config.max_workers, name=name, progress=progress)

    # steps 2–5: candidates, then one classification per pair (asked concurrently, saved as they come)
    cands = candidate_pairs(vectors, config.k, config.threshold)

    def classify(c):
        a, b = by_key[keys[c.i]], by_key[keys[c.j]]
        rc = judge.classify_pair(a, b, c.cosine)
        if rc.ok:
            return PairVerdict(a.key, b.key, c.cosine, bool(rc.value.same), rc.value.reason, True, None, rc.call_id)
        return PairVerdict(a.key, b.key, c.cosine, False, "no usable verdict; kept apart", False, rc.error,
                           rc.call_id)

    verdicts = stage(cands, classify, lambda c: (keys[c.i], keys[c.j]), store.load_pairs(),
                     lambda _c, verdict: store.save_pair(verdict), "pairs")
    pairs = tuple(verdicts[(keys[c.i], keys[c.j])] for c in cands)

    # steps 6–9: graph, components, representatives
    positive = [(p.a, p.b) for p in pairs if p.same]
    comps = [g for g in components(keys, positive) if len(g) > 1]
    cosine = {(p.a, p.b): p.cosine for p in pairs if p.same}
    ids = {g: f"c{i:03d}" for i, g in enumerate(comps, start=1)}

    # step 10: Auto-Correction, one audit per cluster
    def audit(g):
        rc = judge.audit_cluster([by_key[k] for k in g])
        if rc.ok:
            groups = tuple(tuple(x) for x in rc.value.groups) if not rc.value.ok else (tuple(g),)
            check_split(ids[g], g, groups)
            return ClusterAudit(bool(rc.value.ok), groups, rc.value.reason, rc.call_id)
        return ClusterAudit(True, (tuple(g),), "no usable verdict; the cluster is kept as the graph made it",
                            rc.call_id, rc.error)

    audits: dict[str, ClusterAudit] = {}
    if config.autocorrect:
        audits = stage(comps, audit, group_key, store.load_audits(),
                       lambda g, result: store.save_audit(group_key(g), result), "audit")

    clusters = []
    for g in comps:
        a = audits.get(group_key(g)) if config.autocorrect else None
        groups = a.groups if a is not None else (tuple(g),)
        check_split(ids[g], g, groups)
        notes: list[str] = []
        if config.keep_parameters:
            groups = tuple(part for grp in groups for part in _keep_parameters([by_key[k] for k in grp], notes))
            check_split(ids[g], g, groups)
        sims = [s for (x, y), s in cosine.items() if x in g and y in g]
        clusters.append(Cluster(ids[g], tuple(g), representative([by_key[k] for k in g]).key,
                                round(float(np.mean(sims)), 4) if sims else 0.0, a,
                                tuple(tuple(x) for x in groups), tuple(notes)))

    # step 11: merged documentation per final group of two or more tools, and φ
    phi = {k: k for k in keys}
    final = [grp for c in clusters for grp in c.groups if len(grp) > 1]
    for grp in final:
        rep = representative([by_key[k] for k in grp]).key
        for k in grp:
            phi[k] = rep
    check_integrity(keys, {c.id: c.groups for c in clusters}, phi)

    def write(grp):
        rep = representative([by_key[k] for k in grp])
        others = [by_key[k] for k in grp if k != rep.key]
        rc = judge.merged_doc(rep, others)
        if rc.ok and isinstance(rc.value, str) and rc.value.strip():
            return MergedDoc(rc.value.strip(), rc.call_id)
        return MergedDoc(rep.description, rc.call_id, rc.error or "empty merged description")

    docs = stage(final, write, group_key, store.load_docs(), lambda grp, doc: store.save_doc(group_key(grp), doc),
                 "docs")
    merged = {}
    owner = {k: c.id for c in clusters for k in c.members}
    for grp in final:
        rep = representative([by_key[k] for k in grp])
        others = [by_key[k] for k in grp if k != rep.key]
        if config.keep_parameters:
            check_parameters(owner[rep.key], rep, others)
        merged[rep.key] = merged_tool(rep, others, docs[group_key(grp)].description)
    return MergeResult(config, pairs, tuple(clusters), phi, merged)


def _keep_parameters(members: Sequence[Tool], notes: list[str]) -> list[tuple[str, ...]]:
    """Split a group so that no member loses a parameter by merging (``MergeConfig.keep_parameters``; ours):
    the representative keeps the members it can stand in for; the others are grouped again among
    themselves the same way. Each member split off adds a line to ``notes``."""
    if len(members) < 2:
        return [tuple(t.key for t in members)]
    rep = representative(members)
    kept, rest = [rep], []
    for t in members:
        if t is rep:
            continue
        losses = parameter_losses(rep, [t])
        if losses:
            rest.append(t)
            notes.append(f"{t.name} kept apart from {rep.name}: merging would drop {losses[0]}")
        else:
            kept.append(t)
    order = {t.key: i for i, t in enumerate(members)}
    head = tuple(sorted((t.key for t in kept), key=order.__getitem__))
    return [head, *(_keep_parameters(rest, notes) if rest else [])]


def verdict_json(v: PairVerdict | ClusterAudit | MergedDoc) -> dict[str, Any]:
    return asdict(v)
