import numpy as np
import pytest

from core.embedding import encode_cached
from storage.cache import SqlVectorCache


@pytest.mark.pg
def test_second_encode_hits_the_cache(db, hashing_embedder):
    cache = SqlVectorCache(db)
    texts = ["weather in paris", "convert currency", "weather in paris"]
    first, n1 = encode_cached(hashing_embedder, texts, cache)
    assert n1 == 2  # the repeated text is encoded once
    second, n2 = encode_cached(hashing_embedder, texts, cache)
    assert n2 == 0 and hashing_embedder.calls == 1
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1, rtol=1e-5)


@pytest.mark.pg
def test_only_new_texts_are_encoded(db, hashing_embedder):
    cache = SqlVectorCache(db)
    encode_cached(hashing_embedder, ["a tool", "b tool"], cache)
    _, n = encode_cached(hashing_embedder, ["a tool", "c tool"], cache)
    assert n == 1 and hashing_embedder.encoded == 3


@pytest.mark.slow
def test_minilm_loads_offline_and_ranks_sensibly(minilm, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vecs = minilm.encode(["What's the weather like in Rome?", "current weather for a city", "convert dollars to yen"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1, rtol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2


def test_unknown_model_path_gives_clear_error():
    from core.embedding import SentenceTransformerEmbedder

    emb = SentenceTransformerEmbedder("/nonexistent/model/folder")
    with pytest.raises(ValueError, match="cannot load embedding model '/nonexistent/model/folder'"):
        emb.encode(["x"])
