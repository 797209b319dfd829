import pytest

from core.llm.factory import make_operators
from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators
from core.llm.openai_backend import OpenAIChatBackend
from core.llm.prompted import PromptedOperators
from core.llm.replay import ReplayingBackend
from core.llm.vocabulary import CatalogVocabulary


def test_offline_is_built_with_its_vocabulary_seed_and_ledger():
    vocab, ledger = CatalogVocabulary.from_texts(["a b", "b c"]), MemoryLedger()
    ops = make_operators("offline", vocabulary=vocab, ledger=ledger, seed=5)
    assert isinstance(ops, OfflineOperators) and (ops.vocab, ops.ledger, ops.seed) == (vocab, ledger, 5)
    assert make_operators("offline").vocab.n_docs == 0
    with pytest.raises(ValueError, match="take no options"):
        make_operators("offline", temperatures={"mutate": 1.0})


def test_openai_with_backend_and_operator_options(fake):
    ops = make_operators("openai", base_url=fake.url, model="tiny-model", api_key="k", seed=2, timeout=5,
                         max_retries=1, temperatures={"mutate": 0.3}, max_tokens=50)
    assert isinstance(ops, PromptedOperators) and isinstance(ops.backend, OpenAIChatBackend)
    assert (ops.backend.timeout, ops.backend.max_retries, ops.temperatures["mutate"], ops.max_tokens) == \
        (5.0, 1, 0.3, 50)
    assert ops.mutate("d", "a").value == "default"  # the fake server's default answer
    with pytest.raises(ValueError, match="model must be given"):
        make_operators("openai", base_url=fake.url)


def test_replay_modes():
    ledger = MemoryLedger()
    ops = make_operators("openai", model="m", api_key="k", ledger=ledger, replay=True)
    assert isinstance(ops.backend, ReplayingBackend) and ops.backend.mode == "replay-or-call"
    only = make_operators("openai", model="m", ledger=ledger, replay="replay-only")
    assert only.backend.inner is None and not only.mutate("d", "a").ok  # a miss, no network
    with pytest.raises(ValueError, match="replay needs a ledger"):
        make_operators("openai", model="m", api_key="k", replay=True)
    with pytest.raises(ValueError, match="replay must be"):
        make_operators("openai", model="m", api_key="k", ledger=ledger, replay="always")


def test_unknown_kind_lists_the_valid_names():
    with pytest.raises(ValueError, match="unknown LLM backend 'claude'; valid backends: offline, openai"):
        make_operators("claude")
