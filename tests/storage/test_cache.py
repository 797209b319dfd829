import numpy as np
import pytest

from storage.cache import SqlVectorCache, get_projection, put_projection
from storage.catalogs import import_catalog

pytestmark = pytest.mark.pg


def test_vector_cache_round_trip_and_first_write_wins(db):
    cache = SqlVectorCache(db)
    a = np.arange(4, dtype=np.float32)
    cache.put_many("m", {"h1": a})
    cache.put_many("m", {"h1": a + 10, "h2": a + 1})  # h1 exists: kept as first written
    got = cache.get_many("m", ["h1", "h2", "h3"])
    assert set(got) == {"h1", "h2"}
    np.testing.assert_array_equal(got["h1"], a)
    np.testing.assert_array_equal(got["h2"], a + 1)
    assert cache.get_many("other-model", ["h1"]) == {}
    assert cache.count("m") == 2


def test_vector_cache_handles_more_keys_than_sqlite_parameters(db):
    cache = SqlVectorCache(db)
    vecs = {f"h{i}": np.full(3, i, dtype=np.float32) for i in range(1500)}
    cache.put_many("m", vecs)
    got = cache.get_many("m", list(vecs))
    assert len(got) == 1500 and got["h1499"][0] == 1499


def test_projection_cache_keyed_by_version_model_and_params(db, tiny_tools):
    v = import_catalog(db, "tiny", tiny_tools)
    coords = np.arange(12, dtype=np.float32).reshape(6, 2)
    assert get_projection(db, v.id, "m", '{"method":"pca"}') is None
    put_projection(db, v.id, "m", "pca", '{"method":"pca"}', coords, 0.1)
    np.testing.assert_array_equal(get_projection(db, v.id, "m", '{"method":"pca"}'), coords)
    assert get_projection(db, v.id, "other", '{"method":"pca"}') is None
    assert get_projection(db, v.id, "m", '{"method":"umap"}') is None


def test_replace_many_overwrites_and_drops_the_maps_of_replaced_vectors(db, tiny_tools):
    cache = SqlVectorCache(db)
    a = np.arange(3, dtype=np.float32)
    assert cache.dim("m") is None
    v = import_catalog(db, "tiny", tiny_tools)
    coords = np.zeros((6, 2), dtype=np.float32)
    for space in ("m", "m [text: name and description]", "m_x", "mm [x", "other"):
        put_projection(db, v.id, space, "pca", "p", coords)
    cache.replace_many("m", {"h1": a})  # nothing replaced: the maps stay
    assert get_projection(db, v.id, "m", "p") is not None
    cache.replace_many("m", {"h1": a + 5, "h2": a})
    got = cache.get_many("m", ["h1", "h2"])
    np.testing.assert_array_equal(got["h1"], a + 5)  # a corrected import wins, unlike put_many
    assert cache.count("m") == 2 and cache.dim("m") == 3
    gone = [s for s in ("m", "m [text: name and description]", "m_x", "mm [x", "other")
            if get_projection(db, v.id, s, "p") is None]
    assert gone == ["m", "m [text: name and description]"]  # only the replaced model id's vector spaces
