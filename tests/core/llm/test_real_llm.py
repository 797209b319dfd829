"""Every strategy against a real small model (opt-in: set TOOLATLAS_TEST_LLM_URL to an OpenAI-compatible
endpoint, or TOOLATLAS_TEST_GGUF to a GGUF file served through the local-model server)."""

import os

import pytest

from core.strategies.registry import strategy_names

pytestmark = [pytest.mark.slow, pytest.mark.llm]

URL = os.environ.get("TOOLATLAS_TEST_LLM_URL")
GGUF = os.environ.get("TOOLATLAS_TEST_GGUF")


@pytest.fixture(scope="module")
def endpoint():
    if URL:
        yield URL, os.environ.get("TOOLATLAS_TEST_LLM_MODEL", "local")
        return
    if not GGUF:
        pytest.skip("no real model configured: set TOOLATLAS_TEST_LLM_URL or TOOLATLAS_TEST_GGUF")
    from core.llm.local_server import LocalModelServer

    with LocalModelServer(GGUF, start_timeout=300) as server:
        yield server.base_url, "local"


@pytest.mark.parametrize("name", [n for n in strategy_names() if n != "query"])
def test_strategy_with_real_model(endpoint, name, tiny_tools, hashing_embedder):
    from core.llm.ledger import MemoryLedger
    from core.llm.openai_backend import OpenAIChatBackend
    from core.llm.prompted import PromptedOperators
    from core.search.engine import SearchEngine
    from core.strategies.registry import make_strategy

    url, model = endpoint
    ledger = MemoryLedger()
    ops = PromptedOperators(OpenAIChatBackend(url, model, "none", timeout=300, max_retries=1, concurrency=2),
                            ledger, seed=0, max_tokens=120)
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    small = {"memetic": {"population": 3, "generations": 2}, "memetic_v2": {"population": 3, "generations": 2},
             "scattershot": {"fan_out": 2}, "dbd": {"turns": 1}, "ibi": {"turns": 1}, "reinvoke": {"m": 2}}
    res = make_strategy(name, engine, context={"operators": ops}, **small.get(name, {})).retrieve(
        "What's the weather in Oslo, and convert 20 dollars to euros", 3)
    assert len(res.keys) == 3 and ledger.records
    ok = sum(1 for r in ledger.records if r.error is None)
    assert ok >= 1, [r.error for r in ledger.records]
