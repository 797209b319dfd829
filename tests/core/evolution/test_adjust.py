import numpy as np
import pytest

from core.evolution.adjust import AdjustConfig, adjust, cluster_vectors
from core.evolution.offline import OfflineAdaptationOperators
from core.evolution.roles import KNOWN, Probe, ProbeTrace


def unit(rows):
    x = np.asarray(rows, dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


KEYS = ["w1", "w2", "w3", "fx1", "fx2"]
NAMES = KEYS
BODIES = ["Current weather for a city.", "Weather now in a city with humidity.", "Weather conditions in a town.",
          "Converts money between currencies.", "Converts an amount to another currency."]
VECS = unit([[1, 0.05, 0], [1, 0.1, 0], [1, 0, 0.1], [0, 1, 0], [0.05, 1, 0]])


class CountingOps(OfflineAdaptationOperators):
    def __init__(self):
        super().__init__(seed=0)
        self.notes_calls = 0

    def relational_notes(self, members):
        self.notes_calls += 1
        return super().relational_notes(members)


def test_clusters_respect_the_cap_and_pair_fallbacks(hashing_embedder):
    ops = CountingOps()
    out = adjust(KEYS, NAMES, BODIES, VECS, {}, ops, hashing_embedder.encode,
                 config=AdjustConfig(max_cluster=3, gamma=0.95))
    assert sorted(k for c in out.clusters for k in c) == sorted(KEYS)
    assert all(len(c) <= 3 for c in out.clusters)
    weather = next(c for c in out.clusters if "w1" in c)
    assert "fx1" not in weather  # the currency tools never join the weather cluster
    assert ("fx1", "fx2", pytest.approx(float(VECS[3] @ VECS[4]), abs=1e-4)) in out.fallback_pairs
    assert all(s >= 0.95 for _, _, s in out.fallback_pairs)
    assert "Fallback: `fx2`" in out.notes["fx1"] and "Fallback: `fx1`" in out.notes["fx2"]
    assert out.calls == ops.notes_calls == sum(1 for c in out.clusters if len(c) > 1)


def test_unchanged_clusters_reuse_their_notes(hashing_embedder):
    ops = CountingOps()
    cache = {}
    first = adjust(KEYS, NAMES, BODIES, VECS, {}, ops, hashing_embedder.encode, cache=cache)
    second = adjust(KEYS, NAMES, BODIES, VECS, {}, ops, hashing_embedder.encode, cache=cache)
    assert second.notes == first.notes
    assert second.calls == 0 and second.reused == first.calls


def test_removed_tool_disappears_from_notes(hashing_embedder):
    ops = CountingOps()
    out = adjust(KEYS[:4], NAMES[:4], BODIES[:4], VECS[:4], {}, ops, hashing_embedder.encode,
                 config=AdjustConfig(gamma=0.9))
    assert "fx2" not in " ".join(out.notes.values())


def test_status_comes_from_the_evidence(hashing_embedder):
    failed = ProbeTrace(Probe(KNOWN, "weather in Paris — city Paris"), True, False, "EXECUTION_FAILURE")
    vecs = hashing_embedder.encode(BODIES)  # trace summaries are embedded by the same model as the bodies
    out = adjust(KEYS, NAMES, BODIES, vecs, {"w1": (failed,)}, CountingOps(), hashing_embedder.encode,
                 config=AdjustConfig(max_cluster=5, gamma=0.0))
    assert "Status: failing (0 of 1 test calls succeeded)." in out.notes["w1"]


def test_cluster_vectors_blend_trace_summaries():
    x = cluster_vectors(unit([[1, 0], [0, 1]]), {0: np.array([0.0, 1.0], dtype=np.float32)})
    assert np.allclose(x[0], unit([[1, 1]])[0]) and np.allclose(x[1], [0, 1])


def test_config_and_shape_errors(hashing_embedder):
    with pytest.raises(ValueError, match="max_cluster"):
        AdjustConfig(max_cluster=1)
    with pytest.raises(ValueError, match="differ"):
        adjust(KEYS, NAMES[:2], BODIES, VECS, {}, CountingOps(), hashing_embedder.encode)
    single = adjust(["a"], ["a"], ["A."], VECS[:1], {}, CountingOps(), hashing_embedder.encode)
    assert single.notes == {} and single.clusters == (("a",),)
