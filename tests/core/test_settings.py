import pytest

from core.settings import Settings


def test_engine_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("TOOLATLAS_ENGINE_BUDGET", "5000")
    assert Settings.from_env().engine_budget == 5000
    monkeypatch.delenv("TOOLATLAS_ENGINE_BUDGET")
    assert Settings.from_env().engine_budget is None
    for bad in ("0", "-3", "lots", "1.5"):
        monkeypatch.setenv("TOOLATLAS_ENGINE_BUDGET", bad)
        with pytest.raises(ValueError, match="TOOLATLAS_ENGINE_BUDGET"):
            Settings.from_env()


def test_tool_text_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("TOOLATLAS_TOOL_TEXT", raising=False)
    assert Settings.from_env().text_with_parameters is True
    monkeypatch.setenv("TOOLATLAS_TOOL_TEXT", "name-description")
    assert Settings.from_env().text_with_parameters is False
    monkeypatch.setenv("TOOLATLAS_TOOL_TEXT", "description")
    with pytest.raises(ValueError, match="TOOLATLAS_TOOL_TEXT must be one of name-description-parameters, "
                                         "name-description, not 'description'"):
        Settings.from_env()
    # the Settings page's override is a plain False, which with_overrides must not drop as "unset"
    assert Settings().with_overrides(text_with_parameters=False).text_with_parameters is False


# -- the embedding backend: chosen by environment, its key sent to the operator's endpoint only ---------------

EMBED_ENV = ("TOOLATLAS_EMBEDDER", "TOOLATLAS_EMBEDDING_MODEL", "TOOLATLAS_EMBEDDING_BASE_URL",
             "TOOLATLAS_EMBEDDING_API_KEY", "TOOLATLAS_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY")
EMBED_KEY = "sk-embedding-operator-0123456789abcdef"
LLM_KEY = "sk-llm-operator-0123456789abcdef"


@pytest.fixture
def two_servers(monkeypatch):
    from tests.core.llm.fake_openai import FakeOpenAI

    for var in EMBED_ENV:
        monkeypatch.delenv(var, raising=False)
    servers = FakeOpenAI().start(), FakeOpenAI().start()  # the operator's endpoint, and another one
    yield servers
    for s in servers:
        s.close()


def _auth(server) -> set:
    return {s["auth"] for s in server.seen}


def test_the_embedding_backend_comes_from_the_environment(monkeypatch):
    from core.embedding import SentenceTransformerEmbedder
    from core.embeddings.openai import OpenAIEmbedder
    from core.embeddings.precomputed import PrecomputedEmbedder
    from core.settings import embedder_for

    for var in EMBED_ENV:
        monkeypatch.delenv(var, raising=False)
    assert Settings.from_env().embedder == "local"
    assert isinstance(embedder_for(Settings.from_env()), SentenceTransformerEmbedder)
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "openai")
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_MODEL", "text-embedding-3-small")
    e = embedder_for(Settings.from_env())
    assert isinstance(e, OpenAIEmbedder) and e.base_url == "https://api.openai.com/v1"
    assert e.model_id == "text-embedding-3-small"
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "precomputed")
    p = embedder_for(Settings.from_env(), cache=object())
    assert isinstance(p, PrecomputedEmbedder) and p.fallback is None  # no endpoint named: none is guessed
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_BASE_URL", "http://127.0.0.1:9/v1")
    assert embedder_for(Settings.from_env(), cache=object()).fallback.base_url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "word2vec")
    with pytest.raises(ValueError, match="TOOLATLAS_EMBEDDER must be one of local, openai, precomputed, "
                                         "static, not 'word2vec'"):
        Settings.from_env()


def test_the_embedding_key_goes_to_the_operators_endpoint_only(two_servers, monkeypatch):
    from core.settings import embedder_for

    own, other = two_servers
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "openai")
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_BASE_URL", own.url)
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_API_KEY", EMBED_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", LLM_KEY)
    settings = Settings.from_env()
    embedder_for(settings).encode(["hello"])
    assert _auth(own) == {f"Bearer {EMBED_KEY}"}
    # another endpoint (an operator's session override, a trailing slash) gets no key at all
    for url in (other.url, other.url + "/"):
        embedder_for(settings.with_overrides(embedding_base_url=url)).encode(["hello"])
    assert all(EMBED_KEY not in str(a) and LLM_KEY not in str(a) for a in _auth(other))
    assert _auth(other) == {"Bearer not-needed"}


def test_the_llm_key_serves_embeddings_only_at_the_llm_endpoint(two_servers, monkeypatch):
    from core.settings import embedder_for

    llm, other = two_servers
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "openai")
    monkeypatch.setenv("TOOLATLAS_LLM_BASE_URL", llm.url)
    monkeypatch.setenv("OPENAI_API_KEY", LLM_KEY)
    embedder_for(Settings.from_env()).encode(["hello"])  # no embedding endpoint: the LLM endpoint, its key
    assert _auth(llm) == {f"Bearer {LLM_KEY}"}
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_BASE_URL", other.url)  # another endpoint with no key of its own
    embedder_for(Settings.from_env()).encode(["hello"])
    assert _auth(other) == {"Bearer not-needed"}


def test_a_workspace_on_an_endpoint_keeps_the_key_out_of_the_store(two_servers, monkeypatch, tmp_path, tiny_tools):
    from core.settings import build_workspace

    own, _ = two_servers
    monkeypatch.setenv("TOOLATLAS_EMBEDDER", "openai")
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_BASE_URL", own.url)
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_API_KEY", EMBED_KEY)
    monkeypatch.setenv("TOOLATLAS_EMBEDDING_MODEL", "tiny-embed")
    settings = Settings.from_env().with_overrides(db_url=f"sqlite:///{tmp_path / 'k.db'}")
    assert EMBED_KEY not in repr(settings)
    ws = build_workspace(settings)
    version = ws.import_tools("tiny", tiny_tools).version
    assert ws.index(version.id)["encoded"] == 6 and ws.search_engine(version.id).search("weather", k=1).hits
    assert _auth(own) == {f"Bearer {EMBED_KEY}"} and EMBED_KEY not in repr(ws.embedder)
    ws.db.dispose()
    raw = b"".join(f.read_bytes() for f in tmp_path.glob("k.db*"))  # the store with any journal beside it
    assert EMBED_KEY.encode() not in raw and EMBED_KEY[3:].encode() not in raw
