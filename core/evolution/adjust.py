"""Stage II of CONTDA: relation-aware adjustment (Alg. 1 line 23 onward, §4.2, App. A.6–A.7).

The toolset is clustered with a size cap λ (Eq. 11) on vectors of each tool's refined body plus, for
explored tools, a summary of its traces; inside each cluster, members at least γ similar are fallback
pairs, and the notes role writes each member's relational notes. Notes replace the previous step's
notes: a fallback that pointed at a removed tool must not survive.

Clusters whose members, bodies, fallbacks and evidence are unchanged reuse their notes from a cache, so
a step that touches a few tools makes a few notes calls, not one per cluster.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.evolution.explore import Embed, trace_summary
from core.evolution.kmeans import constrained_kmeans
from core.evolution.roles import AdaptationOperators, ClusterMember, ProbeTrace


@dataclass(frozen=True)
class AdjustConfig:
    """Stage II settings (λ and γ of App. A.6–A.7; the paper gives no values, these are ours)."""

    max_cluster: int = 6  # λ: the most tools one notes call sees
    gamma: float = 0.75  # fallback pairs: body similarity at or above this
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_cluster < 2:
            raise ValueError(f"AdjustConfig.max_cluster (λ) must be >= 2, got {self.max_cluster}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"AdjustConfig.gamma must be in [0, 1], got {self.gamma}")

    def to_json(self) -> dict[str, Any]:
        return {"max_cluster": self.max_cluster, "gamma": self.gamma, "seed": self.seed}


@dataclass(frozen=True)
class Adjustment:
    notes: Mapping[str, str]
    clusters: tuple[tuple[str, ...], ...]
    fallback_pairs: tuple[tuple[str, str, float], ...]
    calls: int
    reused: int
    errors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"clusters": [list(c) for c in self.clusters],
                "fallback_pairs": [[a, b, round(s, 4)] for a, b, s in self.fallback_pairs],
                "calls": self.calls, "reused": self.reused, "errors": list(self.errors)}


def cluster_vectors(body_vectors: np.ndarray, summary_vectors: Mapping[int, np.ndarray]) -> np.ndarray:
    """App. A.6: a tool's clustering vector is its body vector, averaged with its trace-summary vector
    when Stage I explored it (the paper names both inputs; averaging them is our definition)."""
    x = np.array(body_vectors, dtype=np.float32, copy=True)
    for i, v in summary_vectors.items():
        x[i] = x[i] + v
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def _signature(members: Sequence[ClusterMember]) -> str:
    blob = json.dumps([[m.key, m.doc, list(m.fallbacks), {k: round(s, 2) for k, s in sorted(m.similar.items())},
                        [t.to_json() for t in m.traces]] for m in members], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def adjust(keys: Sequence[str], names: Sequence[str], bodies: Sequence[str], body_vectors: np.ndarray,
           traces: Mapping[str, Sequence[ProbeTrace]], ops: AdaptationOperators, embed: Embed, *,
           config: AdjustConfig | None = None, cache: MutableMapping[str, Mapping[str, str]] | None = None,
           previous: Sequence[Sequence[str]] = ()) -> Adjustment:
    """CONTDA Alg. 1 (BUILDCLUSTERS, ANNOTATERELATIONS) over the whole toolset T_t. ``bodies`` are the
    refined bodies d'_{i,t} (notes stripped), ``body_vectors`` their normalised embeddings, aligned with
    ``keys``. ``previous`` is the last step's clusters: they seed the clustering so clusters (and so notes)
    do not churn when only a few tools changed. Returns the notes per key (tools with nothing to note are
    absent)."""
    config = config or AdjustConfig()
    n = len(keys)
    if not (n == len(names) == len(bodies) == len(body_vectors)):
        raise ValueError(f"adjust: {n} keys, {len(names)} names, {len(bodies)} bodies and "
                         f"{len(body_vectors)} vectors differ")
    if n < 2:
        return Adjustment({}, tuple((k,) for k in keys), (), 0, 0)
    index = {k: i for i, k in enumerate(keys)}
    summaries = {index[k]: trace_summary(t) for k, t in traces.items() if k in index and t}
    summaries = {i: s for i, s in summaries.items() if s}
    summary_vecs = dict(zip(summaries, embed(list(summaries.values())), strict=True)) if summaries else {}
    seeds = [[index[k] for k in c if k in index] for c in previous]
    labels = constrained_kmeans(cluster_vectors(body_vectors, summary_vecs), config.max_cluster, seed=config.seed,
                                init_groups=[g for g in seeds if g])
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    clusters = sorted((sorted(g, key=lambda i: keys[i]) for g in groups.values()), key=lambda g: keys[g[0]])
    notes: dict[str, str] = {}
    pairs: list[tuple[str, str, float]] = []
    calls = reused = 0
    errors: list[str] = []
    for group in clusters:
        if len(group) < 2:
            continue
        sims = body_vectors[group] @ body_vectors[group].T
        members = []
        for a, i in enumerate(group):
            similar = {keys[j]: float(sims[a, b]) for b, j in enumerate(group) if j != i}
            fallbacks = tuple(k for k, s in sorted(similar.items(), key=lambda kv: -kv[1]) if s >= config.gamma)
            members.append(ClusterMember(keys[i], names[i], bodies[i], similar, fallbacks,
                                         tuple(traces.get(keys[i], ()))))
            pairs += [(keys[i], f, similar[f]) for f in fallbacks if keys[i] < f]
        sig = _signature(members)
        if cache is not None and sig in cache:
            got = cache[sig]
            reused += 1
        else:
            call = ops.relational_notes(members)
            calls += 1
            if not call.ok or not isinstance(call.value, Mapping):
                errors.append(f"cluster {[m.key for m in members]}: {call.error}")
                continue
            got = {k: str(v) for k, v in call.value.items() if k in {m.key for m in members} and str(v).strip()}
            if cache is not None:
                cache[sig] = got
        notes.update(got)
    return Adjustment(notes, tuple(tuple(keys[i] for i in g) for g in clusters), tuple(pairs), calls, reused,
                      tuple(errors))
