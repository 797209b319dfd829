"""Shared fixtures: a fresh store per test, a tiny catalog, the real embedding model."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from core.models import Query, Tool

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"


def dataset_dir(name: str) -> Path:
    path = DATASETS / name
    if not (path / "tools.json").exists():
        pytest.skip(f"../shared/datasets/{name} not present: real-data test skipped")
    return path


@pytest.fixture
def db(tmp_path, test_db_url):
    from storage.db import make_engine

    engine = make_engine(test_db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def test_db_url(tmp_path):
    """A fresh, empty store per test: a SQLite file, or with ``TOOLATLAS_TEST_DB_URL`` (PostgreSQL)
    a schema of its own in that database, picked through ``search_path`` and dropped afterwards."""
    server = os.environ.get("TOOLATLAS_TEST_DB_URL", "").strip()
    if not server:
        yield f"sqlite:///{tmp_path / 'atlas.db'}"
        return
    import uuid

    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    base = make_url(server)
    if base.get_backend_name() != "postgresql":
        yield server
        return
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield base.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


class HashingEmbedder:
    """A deterministic bag-of-words embedder for logic tests that must not depend on a model.

    Each token maps to a fixed random direction, so texts sharing words are similar.
    """

    model_id = "test-hashing-64"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls = 0
        self.encoded = 0

    def _vec(self, token: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(token.encode()).digest()[:4], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def encode(self, texts, *, batch_size=64, progress=None):
        from core.search.tokenize import tokenize

        self.calls += 1
        self.encoded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in tokenize(text):
                out[i] += self._vec(tok)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        if progress:
            progress(len(texts), len(texts))
        return out / norms


@pytest.fixture
def hashing_embedder():
    return HashingEmbedder()


@pytest.fixture(scope="session")
def minilm():
    from core.embedding import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


def _tool(key, desc, params=(), category="misc"):
    props = {p: {"type": "string", "description": p} for p in params}
    return Tool(key=key, name=key, description=desc, parameters={"type": "object", "properties": props,
                                                                   "required": list(params[:1])}, category=category)


@pytest.fixture
def tiny_tools():
    return (
        _tool("get_weather", "Current weather conditions for a city", ("city",), "Weather"),
        _tool("weather_forecast", "Seven day weather forecast for a location", ("location", "days"), "Weather"),
        _tool("convert_currency", "Convert an amount of money from one currency to another", ("amount", "to"), "Finance"),
        _tool("stock_quote", "Latest stock price quote for a ticker symbol", ("ticker",), "Finance"),
        _tool("send_email", "Send an email message to a recipient", ("to", "subject", "body"), "Messaging"),
        _tool("translate_text", "Translate text into another language", ("text", "target"), "Language"),
    )


@pytest.fixture
def tiny_queries():
    return (
        Query("q1", "what is the weather in Paris right now", ("get_weather",), "test"),
        Query("q2", "convert 100 dollars to euros", ("convert_currency",), "test"),
        Query("q3", "email my boss the stock price of ACME", ("send_email", "stock_quote"), "dev"),
    )
