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
    assert (model is None) == (method == "tsne")


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
def test_place_texts_puts_a_copy_on_its_original():
    x, _ = blobs()
    proj, model = project(x, "umap")
    for m in (model, None):
        placed = place_texts(x[[7]], x, proj.coords, model=m, center=None if m is None else
                             np.asarray(model.embedding_, dtype=np.float32).mean(0))
        dists = np.linalg.norm(proj.coords - placed[0], axis=1)
        assert dists[7] <= np.sort(dists)[3], "the copy should land among the original's nearest points"


def test_knn_edges_hand_made():
    v = np.array([[1, 0], [0.99, 0.14], [0, 1], [-1, 0]], dtype=np.float32)
    edges = knn_edges(v, threshold=0.9, k=2, block=2)
    assert [(a, b) for a, b, _ in edges] == [(0, 1)]
    assert edges[0][2] == pytest.approx(0.99 / np.linalg.norm([0.99, 0.14]), rel=1e-4)
