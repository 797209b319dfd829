"""Precomputed vectors: imported whole or not at all, then served to search from the store."""

import json

import numpy as np
import pandas as pd
import pytest

from core.embedding import EmbeddingError, make_embedder
from core.embeddings.precomputed import import_vectors
from core.models import text_hash, tool_text
from core.workspace import Workspace

MODEL = "my-model-v1"


@pytest.fixture
def ws(db, hashing_embedder, tiny_tools, tiny_queries):
    w = Workspace(db, hashing_embedder)
    w.import_tools("tiny", tiny_tools, queries=tiny_queries, query_set="tiny")
    return w


def one_hot(n, dim=6, *, scale=3.0):
    """Row i points along axis i (mod dim), scaled so normalisation is visible."""
    m = np.zeros((n, dim), dtype=np.float64)
    for i in range(n):
        m[i, i % dim] = scale
        m[i, (i + 1) % dim] = scale / 3
    return m


def stored(ws):
    return ws.cache.count(MODEL)


def test_a_good_npy_file_follows_the_stored_tool_order(ws, tiny_tools, tmp_path):
    path = tmp_path / "v.npy"
    np.save(path, one_hot(len(tiny_tools)))
    done = import_vectors(ws, "tiny", path, model_id=MODEL)
    assert (done.target, done.count, done.dim, done.name) == ("tools", 6, 6, "tiny v1")
    first = tool_text(tiny_tools[0], with_parameters=True)
    vec = ws.cache.get_many(MODEL, [text_hash(first)])[text_hash(first)]
    np.testing.assert_allclose(vec, np.array([3, 1, 0, 0, 0, 0]) / np.sqrt(10), rtol=1e-6)  # L2-normalised


def test_a_good_parquet_file_with_keys_in_any_order_drives_search(ws, tiny_tools, db, tmp_path):
    keys = [t.key for t in tiny_tools][::-1]
    vectors = one_hot(len(keys))
    path = tmp_path / "v.parquet"
    pd.DataFrame({"key": keys, "vector": [list(v) for v in vectors]}).to_parquet(path)
    import_vectors(ws, "tiny", path, model_id=MODEL)
    # a query vector imported for query q1: along the axis of the row of keys[2]
    qpath = tmp_path / "q.parquet"
    pd.DataFrame({"id": ["q1"], **{f"d{i}": [float(vectors[2][i])] for i in range(6)}}).to_parquet(qpath)
    assert import_vectors(ws, "tiny", qpath, model_id=MODEL, query_set="tiny").target == "queries"
    pre = Workspace(db, make_embedder("precomputed", MODEL, cache=ws.cache))
    engine = pre.search_engine(pre.catalogs()[0].latest.id)
    hit = engine.search("what is the weather in Paris right now", k=1).hits[0]
    assert hit.key == keys[2] and hit.score == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(EmbeddingError, match=r"1 of 1 texts have no imported vector for model id 'my-model-v1'.*"
                                             r"--queries SET.*TOOLATLAS_EMBEDDING_BASE_URL"):
        engine.search("a typed-in query nobody imported", k=1, persist=False)


def test_a_keys_file_names_the_rows(ws, tiny_tools, tmp_path):
    keys = [t.key for t in tiny_tools]
    kpath = tmp_path / "keys.txt"
    kpath.write_text("\n".join(reversed(keys)) + "\n\n")
    path = tmp_path / "v.npy"
    np.save(path, one_hot(6))
    import_vectors(ws, "tiny", path, model_id=MODEL, keys_path=kpath)
    last = text_hash(tool_text(tiny_tools[-1], with_parameters=True))
    assert np.argmax(ws.cache.get_many(MODEL, [last])[last]) == 0  # the first row went to the last tool
    (tmp_path / "keys.json").write_text(json.dumps(keys))
    import_vectors(ws, "tiny", path, model_id=MODEL, keys_path=tmp_path / "keys.json")  # replaced, not ignored
    assert np.argmax(ws.cache.get_many(MODEL, [last])[last]) == 5
    assert stored(ws) == 6


@pytest.mark.parametrize("matrix, keys, message", [
    (one_hot(5), None, r"5 vectors for the 6 tools of tiny v1; the counts must match"),
    (one_hot(7), "all", r"7 vectors for 6 keys; the counts must match"),
    (np.where(np.eye(6, 6) == 1, np.nan, 1.0), None, r"6 vectors hold NaN or infinite values \(first: row 0"),
    (np.vstack([one_hot(5), [[0, 0, 0, np.inf, 0, 0]]]), None, r"1 vectors hold NaN or infinite .*row 5"),
    (np.vstack([one_hot(5), np.zeros((1, 6))]), None, r"1 vectors are all zeros \(first: row 5"),
    (np.ones((6,)), None, r"2-D matrix"),
    (np.array([["a"] * 6] * 6), None, r"vectors must be numbers"),
])
def test_bad_files_are_clear_errors_and_store_nothing(ws, tiny_tools, tmp_path, matrix, keys, message):
    path = tmp_path / "v.npy"
    np.save(path, matrix)
    kpath = None
    if keys == "all":
        kpath = tmp_path / "keys.txt"
        kpath.write_text("\n".join(t.key for t in tiny_tools))
    with pytest.raises(ValueError, match=message):
        import_vectors(ws, "tiny", path, model_id=MODEL, keys_path=kpath)
    assert stored(ws) == 0


def test_a_wrong_dimension_against_stored_vectors_stores_nothing(ws, tmp_path):
    path = tmp_path / "v.npy"
    np.save(path, one_hot(6))
    import_vectors(ws, "tiny", path, model_id=MODEL)
    np.save(path, one_hot(6, dim=4))
    with pytest.raises(ValueError, match="vectors have 4 dimensions, but the vectors already stored for this "
                                         "model id have 6"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    assert ws.cache.dim(MODEL) == 6 and stored(ws) == 6


def test_bad_parquet_files_store_nothing(ws, tiny_tools, tmp_path):
    keys = [t.key for t in tiny_tools]
    path = tmp_path / "v.parquet"
    pd.DataFrame({"key": keys, "vector": [[1.0, 2.0]] * 5 + [[1.0, 2.0, 3.0]]}).to_parquet(path)
    with pytest.raises(ValueError, match="'vector' column's rows are not lists of one length"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    pd.DataFrame({"key": keys, "vector": [[1.0, float("nan")]] + [[1.0, 2.0]] * 5}).to_parquet(path)
    with pytest.raises(ValueError, match=r"NaN or infinite values \(first: row 0, key 'get_weather'\)"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    pd.DataFrame({"key": keys[:-1] + ["no_such_tool"], "vector": [[1.0, 2.0]] * 6}).to_parquet(path)
    with pytest.raises(ValueError, match="1 keys are not a tool key of tiny v1 \\(first: 'no_such_tool'\\)"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    pd.DataFrame({"key": keys[:-1] + keys[:1], "vector": [[1.0, 2.0]] * 6}).to_parquet(path)
    with pytest.raises(ValueError, match="tool key 'get_weather' is listed twice"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    pd.DataFrame({"key": keys[:-1], "vector": [[1.0, 2.0]] * 5}).to_parquet(path)
    with pytest.raises(ValueError, match="1 tools of tiny v1 would have no vector .*'translate_text'"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    with pytest.raises(ValueError, match="has its own key column; leave out --keys"):
        import_vectors(ws, "tiny", path, model_id=MODEL, keys_path=path)
    (tmp_path / "v.csv").write_text("1,2\n")
    with pytest.raises(ValueError, match=r"must be a \.npy or \.parquet file"):
        import_vectors(ws, "tiny", tmp_path / "v.csv", model_id=MODEL)
    with pytest.raises(ValueError, match="no query set 'nope'; it has: tiny"):
        import_vectors(ws, "tiny", path, model_id=MODEL, query_set="nope")
    assert stored(ws) == 0


def test_a_pickled_npy_is_refused(ws, tmp_path):
    path = tmp_path / "v.npy"
    np.save(path, np.array([{"a": 1}] * 6, dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="not a plain numeric .npy array"):
        import_vectors(ws, "tiny", path, model_id=MODEL)
    assert stored(ws) == 0


def test_texts_without_vectors_go_to_the_fallback_endpoint(ws, tiny_tools, db, tmp_path, fake):
    fake.embedding_dim = 6
    path = tmp_path / "v.npy"
    np.save(path, one_hot(6))
    import_vectors(ws, "tiny", path, model_id=MODEL)
    pre = make_embedder("precomputed", MODEL, cache=ws.cache, base_url=fake.url, backoff=0.01)
    texts = [tool_text(tiny_tools[1], with_parameters=True), "typed in"]
    vecs = pre.encode(texts)
    assert np.argmax(vecs[0]) == 1 and vecs.shape == (2, 6)
    assert [s["body"]["input"] for s in fake.seen] == [["typed in"]]  # only the text without an import
    fake.embedding_dim = 3  # the endpoint now serves another model under the id
    with pytest.raises(EmbeddingError, match="vectors have 3 dimensions, earlier answers had 6"):
        pre.encode(["another typed-in text"])
    fresh = make_embedder("precomputed", MODEL, cache=ws.cache, base_url=fake.url, backoff=0.01)
    with pytest.raises(EmbeddingError, match="vectors of \\[3, 6\\] dimensions"):
        fresh.encode([texts[0], "another typed-in text"])
