import numpy as np
import pytest

from core.search.fusion import hybrid, minmax, reciprocal_rank_fusion


def test_minmax_and_eps():
    np.testing.assert_allclose(minmax(np.array([2.0, 4.0, 3.0])), [0, 1, 0.5], atol=1e-6)
    np.testing.assert_allclose(minmax(np.array([5.0, 5.0])), [0, 0], atol=1e-6)
    # ToolScope Eq. 5: (s - min) / (max - min + eps)
    np.testing.assert_allclose(minmax(np.array([0.0, 1.0]), eps=1.0), [0, 0.5], atol=1e-6)


def test_hybrid_weights_normalised_scores():
    dense = np.array([0.9, 0.5, 0.1])   # -> 1, 0.5, 0
    sparse = np.array([0.0, 10.0, 5.0])  # -> 0, 1, 0.5
    np.testing.assert_allclose(hybrid(dense, sparse, 1.0), [1, 0.5, 0], atol=1e-6)
    np.testing.assert_allclose(hybrid(dense, sparse, 0.0), [0, 1, 0.5], atol=1e-6)
    # 0.25*[1,.5,0] + 0.75*[0,1,.5] = [.25, .875, .375]
    np.testing.assert_allclose(hybrid(dense, sparse, 0.25), [0.25, 0.875, 0.375], atol=1e-6)
    with pytest.raises(ValueError, match="alpha"):
        hybrid(dense, sparse, 1.5)


def test_rrf_hand_worked():
    # doc 0: 1/(60+1) + 1/(60+2); doc 1: 1/(60+2); doc 2: 1/(60+1)
    fused = reciprocal_rank_fusion([[0, 1], [2, 0]], 4)
    np.testing.assert_allclose(fused, [1 / 61 + 1 / 62, 1 / 62, 1 / 61, 0], rtol=1e-6)
