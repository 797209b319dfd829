import pytest

from core.evolution.evaluate import (
    CALL_FAILED,
    NOT_RETRIEVED,
    NOT_SELECTED,
    REMOVED,
    MemoSelector,
    evaluate_step,
)
from core.evolution.offline import OfflineAdaptationOperators
from core.models import Query, Tool

TOOLS = [Tool("a", "a", "A."), Tool("b", "b", "B."), Tool("c", "c", "C.")]
QUERIES = [Query("q1", "one", ("a",)), Query("q2", "two", ("gone",)), Query("q3", "three", ("c",)),
           Query("q4", "four", ("b",)), Query("q5", "five", ("a", "b"))]


def retrieve(tools, texts, k):
    # fixed ranking over the tools on offer: a, b, c
    return [[t.key for t in tools][:k] for _ in texts]


def test_success_needs_available_retrieved_and_selected():
    picks = {"one": ["a"], "four": ["a"], "five": ["a", "b"]}
    ev = evaluate_step(1, "original", TOOLS, {}, QUERIES, retrieve, lambda q, c: picks[q], k=2)
    by = {o.qid: o for o in ev.outcomes}
    assert by["q1"].success and by["q1"].cause == ""
    assert by["q2"].cause == REMOVED and by["q2"].retrieved == ()
    assert by["q3"].cause == NOT_RETRIEVED and by["q3"].retrieved == ("a", "b")
    assert by["q4"].cause == NOT_SELECTED and by["q4"].selected == ("a",)
    assert by["q5"].success  # every gold tool, not just one
    assert ev.success_rate == pytest.approx(2 / 5)
    assert ev.causes() == {REMOVED: 1, NOT_RETRIEVED: 1, NOT_SELECTED: 1, CALL_FAILED: 0}


def test_selector_sees_the_methods_documentation():
    seen = []
    evaluate_step(0, "contda", TOOLS, {"a": "A, refined."}, QUERIES[:1], retrieve,
                  lambda q, c: seen.append(c) or ["a"], k=1)
    assert seen == [[("a", "a: A, refined.")]]


def test_json_round_trip_and_k_check():
    from core.evolution.evaluate import StepEvaluation

    ev = evaluate_step(0, "original", TOOLS, {}, QUERIES, retrieve, lambda q, c: [c[0][0]], k=3)
    assert StepEvaluation.from_json(ev.to_json()).outcomes == ev.outcomes
    with pytest.raises(ValueError, match="k must be"):
        evaluate_step(0, "original", TOOLS, {}, QUERIES, retrieve, lambda q, c: [], k=0)


def test_memo_selector_asks_once_per_distinct_question():
    class Ops(OfflineAdaptationOperators):
        n = 0

        def select_tools(self, query, candidates):
            Ops.n += 1
            return super().select_tools(query, candidates)

    select = MemoSelector(Ops())
    assert select("weather", [("w", "weather now")]) == ("w",)
    select("weather", [("w", "weather now")])
    select("weather", [("w", "weather now, refined")])
    assert Ops.n == 2 and select.calls == 2


def test_execution_judge_fails_a_picked_tool_whose_call_fails():
    verdicts = {"a": False, "b": None}  # a's call failed; nothing reaches b
    ev = evaluate_step(0, "original", TOOLS, {}, [QUERIES[0], QUERIES[3]], retrieve, lambda q, c: [k for k, _ in c],
                       k=2, verify=lambda q, tool: verdicts[tool.key])
    by = {o.qid: o for o in ev.outcomes}
    assert by["q1"].cause == CALL_FAILED and not by["q1"].success
    assert by["q4"].success  # without an executor the selection verdict stands
    assert ev.causes()[CALL_FAILED] == 1


# -- fallback after a failed call (CONTDA Fig. 9) ----------------------------------------------------------

FX_TOOLS = [Tool("fx_old", "currency_converter", "Converts money."), Tool("fx", "convert_currency", "Converts money."),
            Tool("fx_beta", "fx_beta", "Converts money.")]
FX_Q = [Query("q1", "10 USD in EUR", ("fx",))]
NOTED = {"fx_old": "Converts money.\n\n### Relational notes\n- Fallback: `fx` when this tool fails."}


def _fx(docs, verdicts, *, fallback=True, select=("fx_old",), k=3):
    ops = OfflineAdaptationOperators()
    selector = MemoSelector(ops)
    calls = []

    def verify(q, tool):
        calls.append(tool.key)
        return verdicts[tool.key]
    ev = evaluate_step(1, "contda", FX_TOOLS, docs, FX_Q, retrieve, lambda q, c: list(select), k=k, verify=verify,
                       fallback=selector.fallback if fallback else None)
    return ev.outcomes[0], calls, selector


def test_a_failed_pick_falls_back_to_the_tool_its_notes_name():
    out, calls, selector = _fx(NOTED, {"fx_old": False, "fx": True, "fx_beta": True})
    assert out.success and out.cause == "" and out.fallbacks == (("fx_old", "fx", True),)
    assert calls == ["fx_old", "fx"] and selector.calls == 1
    off, _, _ = _fx(NOTED, {"fx_old": False, "fx": True, "fx_beta": True}, fallback=False)
    assert not off.success and off.cause == NOT_SELECTED and off.fallbacks == ()  # the one-pass rule
    bare, _, _ = _fx({}, {"fx_old": False, "fx": True, "fx_beta": True})
    assert not bare.success and bare.fallbacks == ()  # no notes: nothing to follow


def test_a_fallback_outside_the_top_k_is_reachable_and_a_failing_one_is_a_call_failure():
    out, _, _ = _fx(NOTED, {"fx_old": False, "fx": True, "fx_beta": True}, k=1)
    assert out.retrieved == ("fx_old",) and out.success  # the notes name it; it is in the toolset
    broken, _, _ = _fx(NOTED, {"fx_old": False, "fx": False, "fx_beta": True})
    assert not broken.success and broken.cause == CALL_FAILED and broken.fallbacks == (("fx_old", "fx", False),)


def test_a_chain_of_fallbacks_stops_after_the_limit():
    from core.evolution.evaluate import MAX_FALLBACK_CALLS

    chain = {"fx_old": "M.\n\n### Relational notes\n- Fallback: `fx_beta` when this tool fails.",
             "fx_beta": "M.\n\n### Relational notes\n- Fallback: `fx` when this tool fails."}
    out, _, _ = _fx(chain, {"fx_old": False, "fx": True, "fx_beta": False})
    assert MAX_FALLBACK_CALLS == 2 and out.success
    assert out.fallbacks == (("fx_old", "fx_beta", False), ("fx_beta", "fx", True))


def test_without_failures_fallback_on_and_off_agree():
    verdicts = {"a": True, "b": None, "c": True}
    runs = [evaluate_step(0, "original", TOOLS, {}, QUERIES, retrieve, lambda q, c: ["a", "b"], k=2,
                          verify=lambda q, tool: verdicts[tool.key], fallback=fallback).outcomes
            for fallback in (None, MemoSelector(OfflineAdaptationOperators()).fallback)]
    assert runs[0] == runs[1]
    assert [(o.qid, o.success, o.cause) for o in runs[0]] == [
        ("q1", True, ""), ("q2", False, REMOVED), ("q3", False, NOT_RETRIEVED), ("q4", True, ""), ("q5", True, "")]


def test_outcomes_stored_before_fallbacks_still_read():
    from core.evolution.evaluate import QueryOutcome

    old = ["q1", False, NOT_SELECTED, ["a", "b"], ["a"]]
    assert QueryOutcome.from_json(old) == QueryOutcome("q1", False, NOT_SELECTED, ("a", "b"), ("a",))
    assert QueryOutcome.from_json(old).to_json() == old  # no fallback: the old five-field shape
    hop = QueryOutcome("q1", True, "", ("a",), ("a",), (("a", "b", True),))
    assert QueryOutcome.from_json(hop.to_json()) == hop


def test_a_fallback_that_answers_stands_in_for_a_failed_gold_tool():
    ops = OfflineAdaptationOperators()
    gold_old = [Query("q1", "10 USD in EUR", ("fx_old",))]
    verdicts = {"fx_old": False, "fx": True, "fx_beta": True}
    ev = evaluate_step(1, "contda", FX_TOOLS, NOTED, gold_old, retrieve, lambda q, c: ["fx_old"], k=3,
                       verify=lambda q, tool: verdicts[tool.key], fallback=MemoSelector(ops).fallback)
    out = ev.outcomes[0]
    assert out.success and out.fallbacks == (("fx_old", "fx", True),) and ev.rescued == 1
    off = evaluate_step(1, "contda", FX_TOOLS, NOTED, gold_old, retrieve, lambda q, c: ["fx_old"], k=3,
                        verify=lambda q, tool: verdicts[tool.key]).outcomes[0]
    assert not off.success and off.cause == CALL_FAILED
    # a failed pick that is not gold, rescued by a tool that is not gold either, solves nothing
    other = [Query("q2", "10 USD in EUR", ("fx_beta",))]
    miss = evaluate_step(1, "contda", FX_TOOLS, NOTED, other, retrieve, lambda q, c: ["fx_old"], k=3,
                         verify=lambda q, tool: verdicts[tool.key], fallback=MemoSelector(ops).fallback).outcomes[0]
    assert not miss.success and miss.cause == NOT_SELECTED and miss.fallbacks == (("fx_old", "fx", True),)
