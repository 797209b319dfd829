import hashlib
import inspect
import json
import random

import numpy as np
import pytest

from core.llm.base import ChatReply, request_hash
from core.llm.framework import (
    ROLE_FAMILIES,
    OfflineRoles,
    PromptedRoles,
    _load,
    check_seed,
    make_roles,
    record_role_call,
)
from core.llm.ledger import MemoryLedger
from core.llm.offline import OfflineOperators
from core.llm.openai_backend import OpenAIChatBackend
from core.llm.prompted import PromptedOperators
from core.llm.replay import ReplayingBackend
from core.llm.vocabulary import CatalogVocabulary
from core.merging.prompted_judge import PromptedJudge


class Echo:
    name, model = "echo", "e1"

    def chat(self, messages, *, temperature, max_tokens=None, seed=None):
        return ChatReply("{BEGIN} an answer {END}", self.model, 2, 1)


class Dice(OfflineRoles):
    model = "dice-v1"

    def roll(self, faces: int):
        return self._call("roll", {"faces": faces}, lambda rng: rng.randint(1, faces))

    def broken(self):
        return self._call("broken", {"x": 1}, lambda rng: 1 / 0)


# -- the factory ---------------------------------------------------------------------------------

def test_offline_strategy_roles_get_their_vocabulary_seed_and_ledger():
    vocab, ledger = CatalogVocabulary.from_texts(["a b", "b c"]), MemoryLedger()
    ops = make_roles("strategy", "offline", vocabulary=vocab, ledger=ledger, seed=5)
    assert isinstance(ops, OfflineOperators) and (ops.vocab, ops.ledger, ops.seed) == (vocab, ledger, 5)
    assert make_roles("strategy", "offline").vocab.n_docs == 0
    with pytest.raises(ValueError, match="take no options"):
        make_roles("strategy", "offline", temperatures={"mutate": 1.0})
    with pytest.raises(ValueError, match=r"offline merge roles take no options \['vocabulary'\]"):
        make_roles("merge", "offline", vocabulary=vocab)


def test_openai_with_backend_and_operator_options(fake):
    ops = make_roles("strategy", "openai", base_url=fake.url, model="tiny-model", api_key="k", seed=2, timeout=5,
                     max_retries=1, temperatures={"mutate": 0.3}, max_tokens=50)
    assert isinstance(ops, PromptedOperators) and isinstance(ops.backend, OpenAIChatBackend)
    assert (ops.backend.timeout, ops.backend.max_retries, ops.temperatures["mutate"], ops.max_tokens) == \
        (5.0, 1, 0.3, 50)
    assert ops.mutate("d", "a").value == "default"  # the fake server's default answer
    with pytest.raises(ValueError, match="model must be given"):
        make_roles("strategy", "openai", base_url=fake.url)


def test_openai_builds_the_operators_a_family_asks_through():
    ledger = MemoryLedger()
    judge = make_roles("merge", "openai", model="m", ledger=ledger, replay="replay-only")
    assert isinstance(judge, PromptedJudge) and isinstance(judge.ops.backend, ReplayingBackend)
    assert judge.ops.ledger is ledger and (judge.name, judge.model) == ("openai", "m")
    with pytest.raises(ValueError, match="kind='prompted'"):
        make_roles("merge", "openai", operators=judge.ops, model="m")


def test_replay_modes():
    ledger = MemoryLedger()
    ops = make_roles("strategy", "openai", model="m", api_key="k", ledger=ledger, replay=True)
    assert isinstance(ops.backend, ReplayingBackend) and ops.backend.mode == "replay-or-call"
    only = make_roles("strategy", "openai", model="m", ledger=ledger, replay="replay-only")
    assert only.backend.inner is None and not only.mutate("d", "a").ok  # a miss, no network
    with pytest.raises(ValueError, match="replay needs a ledger"):
        make_roles("strategy", "openai", model="m", api_key="k", replay=True)
    with pytest.raises(ValueError, match="replay must be"):
        make_roles("strategy", "openai", model="m", api_key="k", ledger=ledger, replay="always")


def test_a_miss_lists_the_valid_names():
    with pytest.raises(ValueError, match="unknown role family 'judge'; valid families: strategy, merge, trials, "
                                         "adaptation"):
        make_roles("judge", "offline")
    with pytest.raises(ValueError, match="unknown role kind 'claude'; valid kinds: offline, prompted, openai"):
        make_roles("strategy", "claude")


def test_prompted_roles_share_the_operators_they_are_given():
    ops = PromptedOperators(Echo(), MemoryLedger(), seed=1)
    assert make_roles("strategy", "prompted", operators=ops) is ops
    for family in ("merge", "trials", "adaptation"):
        roles = make_roles(family, "prompted", operators=ops, ledger=None, seed=9)  # ledger, seed: the operators'
        assert isinstance(roles, PromptedRoles) and roles.ops is ops and (roles.name, roles.model) == ("echo", "e1")
    with pytest.raises(ValueError, match="take their options from the operators"):
        make_roles("trials", "prompted", operators=ops, max_tokens=10)


@pytest.mark.parametrize("family", list(ROLE_FAMILIES))
def test_prompted_roles_need_an_endpoint_in_every_family(family):
    for operators in (None, make_roles("strategy", "offline")):
        with pytest.raises(ValueError, match=f"the prompted {family} roles need prompted LLM operators"):
            make_roles(family, "prompted", operators=operators)


@pytest.mark.parametrize("family", list(ROLE_FAMILIES))
def test_each_family_resolves_and_both_kinds_answer_every_role_of_its_protocol(family):
    spec = ROLE_FAMILIES[family]
    roles = [n for n, _ in inspect.getmembers(_load(spec.protocol), inspect.isfunction) if not n.startswith("_")]
    assert roles
    offline = make_roles(family, "offline")
    prompted = make_roles(family, "prompted", operators=PromptedOperators(Echo()))
    assert isinstance(offline, OfflineRoles) and offline.name == "offline"
    for impl in (offline, prompted):
        missing = [r for r in roles if not callable(getattr(impl, r, None))]
        assert not missing, (family, type(impl).__name__, missing)


# -- the offline base ----------------------------------------------------------------------------

def test_offline_draws_depend_on_seed_role_and_payload_only():
    a, b = Dice(seed=3), Dice(seed=3)
    first = [a.roll(6).value for _ in range(3)]
    assert len(set(first)) == 1  # same (seed, role, payload): same draw every time
    b.roll(20)  # another call first changes nothing
    assert b.roll(6).value == first[0]
    assert {Dice(seed=s).roll(1000).value for s in range(5)} != {Dice(seed=0).roll(1000).value}


def test_offline_seed_recipe_is_pinned():
    """Stored offline runs replay only while the recipe holds: sha256 of json [seed, role, payload], first
    8 bytes; the strategy rules read them little-endian, CONTDA's rules big-endian."""
    digest = hashlib.sha256(json.dumps([3, "roll", {"faces": 6}], sort_keys=True).encode()).digest()[:8]
    assert Dice(seed=3).roll(6).value == random.Random(int.from_bytes(digest, "little")).randint(1, 6)
    adaptation = make_roles("adaptation", "offline", seed=3)
    assert adaptation.rng_byteorder == "big"
    assert adaptation._rng("roll", {"faces": 6}).random() == random.Random(int.from_bytes(digest, "big")).random()


def test_offline_calls_are_recorded_like_model_calls():
    ledger = MemoryLedger()
    call = Dice(seed=2, ledger=ledger).roll(6)
    (rec,) = ledger.records
    assert call.ok and call.call_id == rec.id == 1 and call.role == "roll"
    assert (rec.backend, rec.model, rec.role, rec.temperature, rec.error) == ("offline", "dice-v1", "roll", 0.0, None)
    assert rec.prompt == '{"faces": 6}' and rec.response == str(call.value)
    assert rec.request_hash == request_hash("offline", "dice-v1", "roll", 0.0, 2, {"faces": 6})


def test_a_rule_that_raises_is_a_failed_recorded_call():
    ledger = MemoryLedger()
    call = Dice(ledger=ledger).broken()
    assert not call.ok and call.value is None and call.error == "ZeroDivisionError: division by zero"
    assert ledger.records[0].error == call.error and ledger.records[0].response == "null"


def test_seeds_are_plain_integers():
    assert check_seed(np.int64(4)) == 4 and type(check_seed(np.int64(4))) is int
    for bad in (True, 1.5, "3", None):
        with pytest.raises(ValueError, match="seed must be an integer"):
            Dice(seed=bad)


# -- the one way to record a call ----------------------------------------------------------------

def test_record_role_call_hashes_the_request_and_survives_a_broken_ledger():
    ledger = MemoryLedger()
    messages = [{"role": "user", "content": "héllo"}]
    call_id = record_role_call(ledger, role="mutate", backend="b", model="m", temperature=0.70000001, seed=7,
                               request=messages, response="r", started=0.0, tokens=(3, 4))
    rec = ledger.records[0]
    assert call_id == 1 and rec.prompt == '[{"role": "user", "content": "héllo"}]'
    assert rec.request_hash == request_hash("b", "m", "mutate", 0.7, 7, messages)
    assert (rec.tokens_in, rec.tokens_out, rec.response) == (3, 4, "r")
    assert record_role_call(None, role="x", backend="b", model="m", temperature=0, seed=None, request={},
                            response="", started=0.0) is None

    class Broken:
        def record(self, record):
            raise OSError("disk full")

    assert Dice(ledger=Broken()).roll(6).call_id is None  # the answer survives, unrecorded
