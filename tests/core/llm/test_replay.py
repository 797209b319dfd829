import pytest

from core.llm.base import ChatReply
from core.llm.ledger import MemoryLedger
from core.llm.prompted import PromptedOperators
from core.llm.replay import ReplayingBackend, ReplayMiss


class Counting:
    name = "openai"
    model = "m1"

    def __init__(self):
        self.n = 0

    def chat(self, messages, *, temperature, max_tokens=None, seed=None):
        self.n += 1
        return ChatReply(f"{{BEGIN}} answer {self.n} {{END}}", self.model, 20, 4)


def test_a_repeated_request_is_answered_from_the_ledger():
    ledger, inner = MemoryLedger(), Counting()
    ops = PromptedOperators(ReplayingBackend(inner, ledger), ledger, seed=3)
    first = ops.mutate("d", "a", nonce=1)
    again = ops.mutate("d", "a", nonce=1)
    other = ops.mutate("d", "a", nonce=2)  # another seed: another request
    assert first.value == again.value == "answer 1" and other.value == "answer 2" and inner.n == 2
    assert [r.tokens_in for r in ledger.records] == [20, 0, 20]  # a replay costs nothing
    assert ops.backend.hits == 1 and ops.backend.misses == 2


def test_replay_only_answers_exactly_and_never_calls():
    ledger = MemoryLedger()
    live = PromptedOperators(Counting(), ledger, seed=0)
    recorded = [live.pseudo_tools("q1").value, live.refine("a", "b", ["e"], "q").value]
    replay = PromptedOperators(ReplayingBackend(None, ledger, "replay-only", name="openai", model="m1"), ledger,
                               seed=0)
    assert [replay.pseudo_tools("q1").value, replay.refine("a", "b", ["e"], "q").value] == recorded
    miss = replay.pseudo_tools("never asked")
    assert not miss.ok and miss.error.startswith("ReplayMiss: replay-only")


def test_failed_calls_are_never_replayed_and_direct_chat_uses_the_role():
    ledger = MemoryLedger()
    backend = ReplayingBackend(None, ledger, "replay-only", name="openai", model="m1")
    with pytest.raises(ReplayMiss):
        backend.chat([{"role": "user", "content": "x"}], temperature=0.0)
    reply_backend = ReplayingBackend(Counting(), ledger)
    first = reply_backend.chat([{"role": "user", "content": "x"}], temperature=0.0)
    assert not first.cached  # nothing recorded it: the ledger is written by the operators


def test_mode_validation():
    with pytest.raises(ValueError, match="mode must be one of"):
        ReplayingBackend(Counting(), MemoryLedger(), "sometimes")
    with pytest.raises(ValueError, match="inner must be a backend"):
        ReplayingBackend(None, MemoryLedger())
    with pytest.raises(ValueError, match="ledger"):
        ReplayingBackend(Counting(), None)
