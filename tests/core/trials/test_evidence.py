import pytest

from core.trials.evidence import (
    Rerank,
    Step,
    Trial,
    TrialOutcome,
    TrialReport,
    classify,
    is_empty,
    reported_failure,
)


@pytest.mark.parametrize("data,empty", [
    (None, True), ("", True), ([], True), ({}, True), ({"origin": "SFO", "flights": []}, True),
    ({"result": 0}, False), ({"flights": [{"id": 1}]}, False), ("42", False), (0, False),
])
def test_empty_answers(data, empty):
    assert is_empty(data) is empty


def test_classification_follows_the_taxonomy():
    assert classify(True, {"km": 42.16})[0] == TrialOutcome.FUNCTIONAL_SUCCESS
    assert classify(True, {"flights": []})[0] == TrialOutcome.SEMANTIC_MISMATCH
    assert classify(False, None, "invalid_params", "missing 'carrier'")[0] == TrialOutcome.PARAMETER_MISMATCH
    for kind in ("auth", "not_found", "server", "timeout", "crash"):
        assert classify(False, None, kind, "boom")[0] == TrialOutcome.EXECUTION_FAILURE


@pytest.mark.parametrize("data,failure", [
    ({"error": "city not found"}, "error: city not found"),
    ({"errors": [{"code": 404}]}, "errors: [{'code': 404}]"),
    ({"status": "FAILED", "message": "quota exceeded"}, "status 'FAILED': quota exceeded"),
    ({"success": False}, "success: false"),
    ({"ok": False, "detail": "bad date"}, "success: false: bad date"),
    # answers that carry a result, including fields named like failures but empty or benign
    ({"km": 42.16, "error": None}, None), ({"status": "ok", "temp": 3}, None), ({"errors": []}, None),
    ({"success": True, "id": 7}, None), ("error", None), ([{"error": "x"}], None),
])
def test_failures_reported_inside_an_answer(data, failure):
    assert reported_failure(data) == failure


def test_an_answer_that_reports_a_failure_is_a_semantic_mismatch():
    outcome, reason = classify(True, {"error": "no route between the two cities"})
    assert outcome == TrialOutcome.SEMANTIC_MISMATCH and "no route between the two cities" in reason
    assert classify(True, {"status": "done", "km": 12})[0] == TrialOutcome.FUNCTIONAL_SUCCESS


def test_report_round_trips_and_reports_moves():
    steps = (Step("plan", "ok", {"tool": "a"}, {"arguments": {"x": 1}}, 0.01),)
    trials = (Trial("a", "a", 1, TrialOutcome.EXECUTION_FAILURE, "auth: no key", steps),
              Trial("b", "b", 2, TrialOutcome.FUNCTIONAL_SUCCESS, "ok", steps))
    report = TrialReport("q1", "text", ("b",), ("a", "b"), trials, Rerank(("b", "a"), {"b": "worked"}, "offline"))
    again = TrialReport.from_json(report.to_json())
    assert again == report
    assert report.moves() == {"b": 1, "a": -1}
    assert report.trial("a").arguments == {"x": 1}
    with pytest.raises(ValueError, match="outcome"):
        Trial("a", "a", 1, "GREAT", "", ())
