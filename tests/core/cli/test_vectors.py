"""``toolatlas import-vectors``, ``--embedder`` and the command line's progress bars, end to end against a local
server that speaks the OpenAI embeddings protocol (no model is loaded)."""

import json

import numpy as np
import pytest

from core.cli import main
from storage.cache import SqlVectorCache
from storage.db import make_engine
from tests.core.llm.fake_openai import FakeOpenAI

ENV = ("TOOLATLAS_EMBEDDER", "TOOLATLAS_EMBEDDING_MODEL", "TOOLATLAS_EMBEDDING_BASE_URL", "TOOLATLAS_EMBEDDING_API_KEY",
       "TOOLATLAS_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "TOOLATLAS_TOOL_TEXT")


@pytest.fixture
def fake(monkeypatch):
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    server = FakeOpenAI().start()
    yield server
    server.close()


@pytest.fixture
def imported(tiny_files, capsys):
    tools, queries, db = tiny_files
    assert main(["import", str(tools), "--queries", str(queries), "--name", "tiny", "--db", db, "--json"]) == 0
    capsys.readouterr()
    return db


def count(db, model):
    engine = make_engine(db)
    try:
        return SqlVectorCache(engine).count(model)
    finally:
        engine.dispose()


def test_progress_is_a_bar_on_stderr_and_quiet_under_json(fake, imported, capsys):
    db = imported
    remote = ["--embedder", "openai", "--embedding-base-url", fake.url, "--model", "tiny-embed"]
    assert main(["index", "tiny", "--db", db, "--json", *remote]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --json: one JSON document on stdout, nothing else anywhere
    out = json.loads(captured.out)
    assert (out["tools"], out["encoded"]) == (6, 6)
    assert main(["index", "tiny", "--db", db, "--model", "other-embed", *remote[:4]]) == 0
    err = capsys.readouterr().err
    assert "embedding" in err and "6/6" in err and "it/s" in err  # tqdm's bar: label, count, rate
    assert count(db, "tiny-embed") == count(db, "other-embed") == 6


def test_import_vectors_then_search_with_them(fake, imported, capsys, tmp_path):
    db = imported
    vectors = np.eye(6, dtype=np.float32) * 2  # tool i along axis i, in the stored order
    np.save(tmp_path / "tools.npy", vectors)
    assert main(["import-vectors", "tiny", str(tmp_path / "tools.npy"), "--model-id", "mine", "--db", db,
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"catalog": "tiny", "model_id": "mine", "target": "tools",
                                                   "of": "tiny v1", "vectors": 6, "dim": 6}
    (tmp_path / "q.txt").write_text("q2\n")
    np.save(tmp_path / "q.npy", vectors[[2]])  # q2's vector points at the third tool
    assert main(["import-vectors", "tiny", str(tmp_path / "q.npy"), "--model-id", "mine", "--queries", "tiny_q",
                 "--keys", str(tmp_path / "q.txt"), "--db", db]) == 0
    assert "stored 1 6-dimensional vectors for the queries of tiny_q" in capsys.readouterr().out
    use = ["--embedder", "precomputed", "--model", "mine", "--db", db, "--json", "-k", "1"]
    assert main(["search", "tiny", "convert 100 dollars to euros", *use]) == 0
    third = json.loads(capsys.readouterr().out)["hits"][0]
    assert third["key"] == "convert_currency" and third["score"] == pytest.approx(1.0, abs=1e-5)
    assert main(["search", "tiny", "a query with no imported vector", *use]) == 2
    assert "no imported vector for model id 'mine'" in capsys.readouterr().err
    fake.embedding_dim = 6  # an endpoint serving the same model embeds what was not imported
    assert main(["search", "tiny", "a query with no imported vector", *use, "--embedding-base-url", fake.url]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 1
    assert [s["body"]["input"] for s in fake.seen] == [["a query with no imported vector"]]


def test_a_bad_vector_file_is_exit_2_and_stores_nothing(fake, imported, capsys, tmp_path):
    db = imported
    bad = np.eye(6, dtype=np.float32)
    bad[3, 2] = np.nan
    np.save(tmp_path / "v.npy", bad)
    assert main(["import-vectors", "tiny", str(tmp_path / "v.npy"), "--model-id", "mine", "--db", db]) == 2
    assert "1 vectors hold NaN or infinite values (first: row 3" in capsys.readouterr().err
    np.save(tmp_path / "v.npy", np.eye(5, dtype=np.float32))
    assert main(["import-vectors", "tiny", str(tmp_path / "v.npy"), "--model-id", "mine", "--db", db]) == 2
    assert "5 vectors for the 6 tools of tiny v1" in capsys.readouterr().err
    assert count(db, "mine") == 0
    with pytest.raises(SystemExit):
        main(["index", "tiny", "--db", db, "--embedder", "tfidf"])
    assert "invalid choice: 'tfidf'" in capsys.readouterr().err
