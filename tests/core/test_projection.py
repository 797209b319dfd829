import re
import threading

import numpy as np
import pytest

from core.projection import knn_edges, params_key, place_texts, project


def blobs(n_per=20, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.eye(dim, dtype=np.float32)[:3] * 5
    x = np.vstack([c + rng.normal(0, 0.3, (n_per, dim)) for c in centers]).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True), np.repeat(np.arange(3), n_per)


def separated(coords, labels):
    within = np.mean([np.linalg.norm(coords[labels == c] - coords[labels == c].mean(0), axis=1).mean()
                      for c in range(3)])
    means = np.array([coords[labels == c].mean(0) for c in range(3)])
    between = np.mean([np.linalg.norm(means[a] - means[b]) for a in range(3) for b in range(a + 1, 3)])
    return within < between


@pytest.mark.slow
@pytest.mark.parametrize("method", ["umap", "tsne", "pca"])
def test_methods_separate_blobs_and_are_deterministic(method):
    x, labels = blobs()
    p1, model = project(x, method)
    p2, _ = project(x, method)
    assert p1.coords.shape == (60, 2) and np.isfinite(p1.coords).all()
    np.testing.assert_allclose(p1.coords, p2.coords, atol=1e-4)
    assert separated(p1.coords, labels)
    assert (model is None) == (method != "pca")  # UMAP on our own neighbours cannot transform: place_texts instead


@pytest.mark.slow
def test_umap_reports_its_layout_epochs_and_the_same_map():
    x, _ = blobs()
    seen = []
    with_progress, _ = project(x, "umap", progress=lambda share, label: seen.append((share, label)))
    plain, _ = project(x, "umap")
    np.testing.assert_allclose(with_progress.coords, plain.coords, atol=1e-4)  # watching changes nothing
    shares = [s for s, _ in seen]
    assert shares == sorted(shares) and shares[-1] == 1.0
    epochs = [label for _, label in seen if label.startswith("UMAP layout: epoch")]
    assert epochs and all(re.fullmatch(r"UMAP layout: epoch \d+/(200|500)", e) for e in epochs), epochs
    assert all(0.5 <= s <= 0.99 for s, label in seen if label.startswith("UMAP layout"))  # after the graph stage


class _Rerun(BaseException):
    """Stands in for Streamlit's RerunException, which a progress update raises when a widget changed."""


@pytest.mark.slow
def test_a_progress_callback_that_raises_mid_layout_stops_the_map_and_blocks_no_later_map():
    x, _ = blobs(n_per=5)

    def rerun_on_epochs(share, label):
        if label.startswith("UMAP layout"):
            raise _Rerun()

    with pytest.raises(_Rerun):
        project(x, "umap", progress=rerun_on_epochs)
    # the next map comes from another thread, as a new script run does (it hung on tqdm's lock before)
    done = []
    later = threading.Thread(target=lambda: done.append(project(x, "umap", progress=lambda share, label: None)), daemon=True)
    later.start()
    later.join(120)
    assert done, "a map after an interrupted one never finished: tqdm's lock was left held"
    np.testing.assert_allclose(done[0][0].coords, project(x, "umap")[0].coords, atol=1e-4)


def test_cosine_knn_puts_each_point_first_even_among_duplicates():
    from core.projection import cosine_knn

    x = np.array([[1, 0], [1, 0], [0, 1], [0.8, 0.6]], dtype=np.float32)  # rows 0 and 1 are the same text
    idx, dist = cosine_knn(x, 3, block=3)  # two blocks
    assert idx[:, 0].tolist() == [0, 1, 2, 3] and np.allclose(dist[:, 0], 0)
    assert idx[0].tolist() == [0, 1, 3] and idx[1].tolist() == [1, 0, 3]
    np.testing.assert_allclose(dist[0], [0, 0, 0.2], atol=1e-6)  # cosine distance = 1 - cos
    np.testing.assert_allclose(dist[2], [0, 0.4, 1], atol=1e-6)
    assert (np.diff(dist, axis=1) >= -1e-7).all()


@pytest.mark.slow
def test_umap_on_precomputed_neighbours_separates_and_reports_them(monkeypatch):
    import core.projection as projection

    monkeypatch.setattr(projection, "UMAP_OWN_KNN_BELOW", 10)  # take the large-catalog path on 60 points
    x, labels = blobs()
    seen = []
    p1, _ = project(x, "umap", progress=lambda share, label: seen.append((share, label)))
    p2, _ = project(x, "umap")
    np.testing.assert_allclose(p1.coords, p2.coords, atol=1e-4)
    assert separated(p1.coords, labels)
    assert [label for _, label in seen if "nearest neighbours" in label] == ["UMAP: nearest neighbours 60/60"]
    assert [s for s, _ in seen] == sorted(s for s, _ in seen)


def test_pca_of_collinear_points_is_collinear():
    x = np.outer(np.linspace(-1, 1, 10), np.ones(4)).astype(np.float32) + 2
    coords = project(x, "pca")[0].coords
    assert np.allclose(coords[:, 1], 0, atol=1e-4) or np.allclose(coords[:, 0], 0, atol=1e-4)


def test_tiny_inputs_and_bad_names():
    assert project(np.ones((1, 4)), "umap")[0].coords.tolist() == [[0.0, 0.0]]
    assert project(np.eye(3, 4), "tsne")[0].coords.shape == (3, 2)
    with pytest.raises(ValueError, match="valid methods: umap, tsne, pca"):
        project(np.eye(3), "mds")
    with pytest.raises(ValueError, match="no parameter 'neighbors'"):
        params_key("umap", {"neighbors": 5})
    assert params_key("umap") == params_key("umap", {"n_neighbors": 15})
    assert params_key("umap") != params_key("umap", {"n_neighbors": 5})


@pytest.mark.slow
@pytest.mark.parametrize("method", ["umap", "pca"])
def test_place_texts_puts_a_copy_on_its_original(method):
    x, _ = blobs()
    proj, model = project(x, method)
    for m in {model, None}:
        placed = place_texts(x[[7]], x, proj.coords, model=m, center=None if m is None else
                             np.asarray(model.transform(x), dtype=np.float32).mean(0))
        dists = np.linalg.norm(proj.coords - placed[0], axis=1)
        assert dists[7] <= np.sort(dists)[3], "the copy should land among the original's nearest points"


def test_knn_edges_hand_made():
    v = np.array([[1, 0], [0.99, 0.14], [0, 1], [-1, 0]], dtype=np.float32)
    edges = knn_edges(v, threshold=0.9, k=2, block=2)
    assert [(a, b) for a, b, _ in edges] == [(0, 1)]
    assert edges[0][2] == pytest.approx(0.99 / np.linalg.norm([0.99, 0.14]), rel=1e-4)


def _duplicated(n, dim=8, seed=0):
    """n random unit vectors where the middle row repeats the first (the same text twice)."""
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    x[n // 2] = x[0]
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("n", range(2, 21))
def test_cosine_knn_is_exact_on_small_inputs_with_duplicates(n):
    from core.projection import cosine_knn

    x = _duplicated(n)
    k = min(15, n - 1) if n > 1 else 1
    idx, dist = cosine_knn(x, k)
    assert idx.shape == dist.shape == (n, k)
    assert idx[:, 0].tolist() == list(range(n))  # each point first, also the duplicated one
    brute = np.sort(np.clip(1 - x @ x.T, 0, 2), axis=1)[:, :k]  # k smallest cosine distances, self's 0 among them
    np.testing.assert_allclose(dist, brute, atol=1e-5)
    assert all(len(set(row)) == k for row in idx.tolist())  # no point twice in a row


@pytest.mark.slow
@pytest.mark.parametrize("n", [4, 5, 9, 15, 16, 20])
def test_umap_takes_our_neighbours_at_every_size(n):
    import warnings

    x = _duplicated(n)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # e.g. "precomputed_knn ... will be ignored" would fail here
        first = project(x, "umap", progress=lambda share, label: seen.append(label))[0].coords
    assert [label for label in seen if "nearest neighbours" in label] == [f"UMAP: nearest neighbours {n}/{n}"]
    assert first.shape == (n, 2) and np.isfinite(first).all()
    np.testing.assert_allclose(first, project(x, "umap")[0].coords, atol=1e-4)


def test_n_epochs_is_umaps_own_unless_set_and_only_then_in_the_key():
    assert '"n_epochs"' not in params_key("umap")  # maps stored before the parameter existed keep their key
    assert params_key("umap", {"n_epochs": 200}) != params_key("umap")
    for bad in (0, -5, 2.5, "many", True):
        with pytest.raises(ValueError, match="n_epochs must be a whole number"):
            params_key("umap", {"n_epochs": bad})


@pytest.mark.slow
def test_n_epochs_runs_that_many_layout_epochs():
    x, labels = blobs()
    seen = []
    coords = project(x, "umap", {"n_epochs": 50}, progress=lambda share, label: seen.append(label))[0].coords
    assert any(label.endswith("/50") for label in seen if label.startswith("UMAP layout"))
    assert separated(coords, labels)


@pytest.mark.slow
def test_cached_umap_kernels_give_the_same_map_as_umaps_own(tmp_path):
    """The kernels recompiled with numba's disk cache are umap's functions: a process that keeps umap's own
    (uncached) kernels draws the same map."""
    import subprocess
    import sys
    from pathlib import Path

    x, _ = blobs()
    np.save(tmp_path / "x.npy", x)
    code = ("import sys, numpy as np; import core.projection as p; p._kernels_cached = True; "
            f"np.save({str(tmp_path / 'own.npy')!r}, p.project(np.load({str(tmp_path / 'x.npy')!r}), 'umap')[0].coords)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2], timeout=600)
    ours = project(x, "umap")[0].coords
    import umap.umap_

    assert umap.umap_.smooth_knn_dist._cache.__class__.__name__ == "FunctionCache"  # this process used the cache
    np.testing.assert_array_equal(ours, np.load(tmp_path / "own.npy"))
