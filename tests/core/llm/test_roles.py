import inspect

import pytest

from core.llm.base import ChatReply
from core.llm.offline import OfflineOperators
from core.llm.prompted import PromptedOperators
from core.llm.roles import ROLES, Operators
from core.llm.vocabulary import CatalogVocabulary


class Echo:
    name = "echo"
    model = "e"

    def chat(self, messages, *, temperature, max_tokens=None, seed=None):
        return ChatReply("{BEGIN} x {END}", self.model)


IMPLEMENTATIONS = [OfflineOperators(CatalogVocabulary.from_texts([])), PromptedOperators(Echo())]


@pytest.mark.parametrize("ops", IMPLEMENTATIONS, ids=["offline", "prompted"])
def test_implementations_match_the_protocol_signatures(ops):
    assert isinstance(ops, Operators)
    for role in ROLES:
        expected = inspect.signature(getattr(Operators, role))
        actual = inspect.signature(getattr(type(ops), role))
        assert list(actual.parameters) == list(expected.parameters), role
        for name, p in expected.parameters.items():
            assert actual.parameters[name].kind == p.kind, (role, name)
            assert actual.parameters[name].default == p.default, (role, name)


@pytest.mark.parametrize("ops", IMPLEMENTATIONS, ids=["offline", "prompted"])
def test_every_role_returns_a_role_call_named_after_it(ops):
    calls = {
        "pseudo_tools": lambda: ops.pseudo_tools("send an email"),
        "refine": lambda: ops.refine("a", "b", ["c"], "q"),
        "refine_all": lambda: ops.refine_all(["a"], ["c"], "q"),
        "judge_sufficiency": lambda: ops.judge_sufficiency("q", ["c"]),
        "scatter": lambda: ops.scatter("a", ["c"]),
        "seed_population": lambda: ops.seed_population("a", ["c"], 2),
        "crossover": lambda: ops.crossover("a b", "c d", "a"),
        "mutate": lambda: ops.mutate("a", "a"),
        "guided_mutate": lambda: ops.guided_mutate("a", ["c"]),
        "score_retrieval": lambda: ops.score_retrieval("q", ["c"]),
        "synthetic_queries": lambda: ops.synthetic_queries("f: does things", 2),
        "extract_intents": lambda: ops.extract_intents("q"),
        "select_tools": lambda: ops.select_tools("q", [("k", "c")]),
        "doc_quality": lambda: ops.doc_quality("Name: f\nDescription: does things\nParameters:\n(none)"),
    }
    assert set(calls) == set(ROLES)
    for role, call in calls.items():
        rc = call()
        assert rc.role == role and (rc.ok or rc.error)
