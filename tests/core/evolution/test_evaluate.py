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
