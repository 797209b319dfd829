import numpy as np
import pytest

from core.evolution.kmeans import constrained_kmeans


def _groups(labels):
    return sorted(sorted(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels))


def test_two_tight_groups_are_recovered():
    x = np.array([[1.0, 0.01, 0], [1.0, 0, 0.02], [1.0, 0.02, 0.01],
                  [0, 1.0, 0.01], [0.02, 1.0, 0], [0.01, 1.0, 0.02]])
    for seed in range(5):
        labels = constrained_kmeans(x, 3, n_clusters=2, seed=seed)
        assert _groups(labels) == [[0, 1, 2], [3, 4, 5]]
        assert labels[0] == 0  # compact labels are numbered by first appearance


def test_cosine_ignores_vector_length():
    x = np.array([[1.0, 0.0], [10.0, 0.1], [0.0, 1.0], [0.1, 20.0]])
    assert _groups(constrained_kmeans(x, 2, n_clusters=2)) == [[0, 1], [2, 3]]


def test_one_dense_group_is_split_at_the_cap():
    rng = np.random.default_rng(0)
    x = np.array([1.0, 2.0, 3.0]) + 1e-3 * rng.normal(size=(6, 3))
    labels = constrained_kmeans(x, 4)
    assert len(labels) == 6
    assert np.bincount(labels).max() <= 4
    assert len(np.unique(labels)) >= 2


@pytest.mark.parametrize("max_size", [1, 3, 5, 8, 20])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_data_never_exceeds_the_cap(max_size, seed):
    x = np.random.default_rng(seed).normal(size=(200, 8))
    labels = constrained_kmeans(x, max_size, seed=seed)
    assert labels.shape == (200,) and labels.dtype.kind == "i"
    sizes = np.bincount(labels)
    assert sizes.max() <= max_size
    assert sizes.min() >= 1  # compact: no empty cluster keeps a label
    assert labels.max() + 1 == len(sizes)


def test_exactly_full_clusters():
    x = np.random.default_rng(4).normal(size=(12, 3))
    assert np.bincount(constrained_kmeans(x, 3, n_clusters=4)).tolist() == [3, 3, 3, 3]


def test_deterministic_for_a_seed():
    x = np.random.default_rng(5).normal(size=(60, 4))
    assert np.array_equal(constrained_kmeans(x, 6, seed=3), constrained_kmeans(x, 6, seed=3))


def test_empty_input_and_zero_rows():
    out = constrained_kmeans(np.zeros((0, 4)), 3)
    assert out.shape == (0,) and out.dtype.kind == "i"
    labels = constrained_kmeans(np.zeros((3, 2)), 2)
    assert np.bincount(labels).max() <= 2


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((np.ones(4), 2), {}, "vectors: expected a 2-D array"),
        ((np.ones((4, 2)), 0), {}, "max_size: must be >= 1, got 0"),
        ((np.ones((4, 2)), 2), {"n_clusters": 0}, "n_clusters: must be >= 1, got 0"),
        ((np.ones((5, 2)), 2), {"n_clusters": 2}, "n_clusters=2 x max_size=2 cannot hold 5 rows"),
    ],
)
def test_errors(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        constrained_kmeans(*args, **kwargs)


def _greedy_reference(dist, cap):
    """The assignment rule written the slow, obvious way: nearest pairs first while both sides are free."""
    n, k = dist.shape
    labels, room = [-1] * n, [cap] * k
    for flat in np.argsort(dist.ravel(), kind="stable"):
        i, j = divmod(int(flat), k)
        if labels[i] < 0 and room[j] > 0:
            labels[i], room[j] = j, room[j] - 1
    return labels


def test_assignment_matches_the_nearest_pairs_first_greedy():
    from core.evolution.kmeans import _assign

    rng = np.random.default_rng(11)
    for _ in range(50):
        n, k, cap = int(rng.integers(1, 30)), int(rng.integers(1, 10)), int(rng.integers(1, 5))
        if k * cap < n:
            continue
        dist = np.round(rng.random((n, k)), 1)  # rounded so ties occur
        assert _assign(dist, cap).tolist() == _greedy_reference(dist, cap)


def test_init_groups_keep_earlier_clusters_when_little_changed():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((60, 8))
    first = constrained_kmeans(x, 6, seed=0)
    groups = [list(np.flatnonzero(first == c)) for c in np.unique(first)]
    # the same rows plus two new ones, clustered from the earlier groups with another seed
    grown = np.vstack([x, rng.standard_normal((2, 8))])
    again = constrained_kmeans(grown, 6, seed=7, init_groups=groups)
    same = sum(len(set(again[g])) == 1 for g in groups)
    assert same >= 0.8 * len(groups)  # most earlier clusters survive intact
    assert np.bincount(again).max() <= 6
    with pytest.raises(ValueError, match="init_groups"):
        constrained_kmeans(x, 6, init_groups=[[0, 99]])
