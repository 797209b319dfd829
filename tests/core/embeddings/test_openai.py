"""The OpenAI-compatible embeddings client against a local server that speaks the embeddings protocol."""

import numpy as np
import pytest

from core.embedding import EmbeddingError, encode_cached, make_embedder
from core.embeddings.openai import OpenAIEmbedder
from storage.cache import SqlVectorCache
from tests.core.llm.fake_openai import text_vector

KEY = "sk-embed-test-0123456789"


def embedder(url, **kw):
    kw.setdefault("backoff", 0.01)
    return OpenAIEmbedder("tiny-embed", url, KEY, **kw)


def expected(texts, dim=8):
    m = np.array([text_vector(t, dim) for t in texts], dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def posts(fake):
    return [s for s in fake.seen if s["path"] == "/v1/embeddings"]


def test_batches_come_back_in_input_order_normalised_and_with_the_key(fake):
    texts = [f"text number {i}" for i in range(7)]
    seen = []
    vecs = embedder(fake.url, concurrency=2).encode(texts, batch_size=3, progress=lambda d, t: seen.append((d, t)))
    assert vecs.dtype == np.float32 and vecs.shape == (7, 8)
    np.testing.assert_allclose(vecs, expected(texts), rtol=1e-5)  # the fake lists vectors in reverse order
    requests = posts(fake)
    assert sorted(len(r["body"]["input"]) for r in requests) == [1, 3, 3]
    assert sorted(t for r in requests for t in r["body"]["input"]) == sorted(texts)
    assert {r["body"]["model"] for r in requests} == {"tiny-embed"}
    assert {r["body"]["encoding_format"] for r in requests} == {"float"}
    assert {r["auth"] for r in requests} == {f"Bearer {KEY}"}
    assert seen[-1] == (7, 7) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_concurrency_is_bounded(fake):
    fake.delay = 0.05
    embedder(fake.url, concurrency=2).encode([f"t{i}" for i in range(12)], batch_size=1)
    assert len(posts(fake)) == 12 and 1 <= fake.max_in_flight <= 2


def test_a_429_then_success_waits_the_retry_after(fake):
    fake.script = [("status", 429, {"Retry-After": "0.2"}, "slow down")]
    e = embedder(fake.url, backoff=0.001)
    sleeps = []
    e._backend._sleep = sleeps.append
    vecs = e.encode(["alpha", "beta"])
    np.testing.assert_allclose(vecs, expected(["alpha", "beta"]), rtol=1e-5)
    assert len(posts(fake)) == 2 and 0.2 <= sleeps[0] <= 0.25


def test_a_5xx_is_retried_then_a_clear_error(fake):
    fake.default = ("status", 503, {}, "overloaded")
    with pytest.raises(EmbeddingError, match=r"embedding endpoint .* \(model 'tiny-embed'\): .*503"):
        embedder(fake.url, max_retries=2).encode(["x"])
    assert len(posts(fake)) == 3


def test_a_wrong_dimension_is_a_clear_error(fake):
    with pytest.raises(EmbeddingError, match="vectors have 8 dimensions, expected 16"):
        embedder(fake.url, dim=16).encode(["a"])
    e = embedder(fake.url)
    e.encode(["a"])
    fake.script = [("vectors", 5)]  # the server now serves another model under the same name
    with pytest.raises(EmbeddingError, match="vectors have 5 dimensions, earlier answers had 8"):
        e.encode(["b"])


def test_a_dimension_change_is_not_mixed_into_the_cache(fake, db):
    cache = SqlVectorCache(db)
    encode_cached(embedder(fake.url), ["a", "b"], cache)
    fake.embedding_dim = 4
    with pytest.raises(EmbeddingError, match="cached for model id 'tiny-embed' have 8 dimensions.*returns 4"):
        encode_cached(embedder(fake.url), ["a", "c"], cache)
    assert cache.count("tiny-embed") == 2


def test_a_killed_server_is_a_clear_error_and_nothing_is_cached(fake, db):
    cache = SqlVectorCache(db)
    url = fake.url
    fake.close()
    with pytest.raises(EmbeddingError, match=r"cannot reach the endpoint"):
        encode_cached(embedder(url, max_retries=1), ["one", "two", "three"], cache, batch_size=1)
    assert cache.count() == 0


def test_a_server_dying_midway_stores_nothing(fake, db):
    cache = SqlVectorCache(db)
    fake.script = [("ok", ""), ("status", 500, {}, "died")]
    fake.default = ("status", 500, {}, "died")
    with pytest.raises(EmbeddingError, match="500"):
        encode_cached(embedder(fake.url, max_retries=0, concurrency=1), ["a", "b", "c"], cache, batch_size=1)
    assert cache.count() == 0


def test_the_key_stays_out_of_reprs_and_errors(fake):
    fake.default = ("status", 401, {}, f"Incorrect API key provided: {KEY}")
    e = embedder(fake.url)
    with pytest.raises(EmbeddingError) as info:
        e.encode(["x"])
    assert KEY not in str(info.value) and KEY not in repr(e) and "rejected (401)" in str(info.value)
    ok, message = e.check()
    assert not ok and KEY not in message


def test_cached_texts_are_never_sent_again(fake, db):
    cache = SqlVectorCache(db)
    first, encoded = encode_cached(embedder(fake.url), ["a", "b"], cache)
    again, encoded_again = encode_cached(embedder(fake.url), ["b", "a", "new"], cache)
    assert (encoded, encoded_again) == (2, 1)
    assert [r["body"]["input"] for r in posts(fake)][-1] == ["new"]
    np.testing.assert_allclose(again[:2], first[::-1], rtol=1e-6)


def test_make_embedder_names_every_backend():
    with pytest.raises(ValueError, match="unknown embedder 'tfidf'; valid: local, openai, precomputed"):
        make_embedder("tfidf", "m")
    with pytest.raises(ValueError, match="pass its vector cache"):
        make_embedder("precomputed", "m")
    assert isinstance(make_embedder("openai", "m", base_url="http://127.0.0.1:9/v1"), OpenAIEmbedder)
