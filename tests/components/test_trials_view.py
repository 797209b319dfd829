"""The Trials page's reading of a trial: plan → call → answer → verdict rows built from stored steps."""

from __future__ import annotations

import json

from components.trials_view import (
    ArgumentRow,
    answer_preview,
    arguments_frame,
    full_json,
    md_code,
    metrics_table,
    outcome_words,
    ranking_table,
    reports_table,
    seconds_label,
    short_value,
    step_status,
    taxonomy_chart,
    trial_row,
)
from core.trials.evidence import Rerank, Step, Trial, TrialOutcome, TrialReport

FLIGHTS = {"origin": "JFK", "destination": "LHR",
           "flights": [{"flight_number": "EU692", "airline": "EuroJet"}, {"flight_number": "SK985"}]}


def _plan(arguments, *, missing=(), sources=None, status="ok", note=""):
    out = {"arguments": arguments, "missing": list(missing), "note": note}
    if sources is not None:
        out["sources"] = sources
    return Step("plan", status, {"tool": "t"}, out, 0.0104)


def _success() -> Trial:
    steps = (
        _plan({"origin": "JFK", "destination": "LHR"},
              sources={"origin": "a three-letter code in the query", "destination": "the\nsecond code"}),
        Step("execute", "ok", {"executor": "mcp-demo", "tool": "search_flights",
                               "arguments": {"origin": "JFK", "destination": "LHR"}, "isolation": "bwrap+seccomp"},
             FLIGHTS, 0.0208),
        Step("classify", "ok", {}, {"outcome": TrialOutcome.FUNCTIONAL_SUCCESS}, 0.0,
             note="the call ran and returned a result"),
    )
    return Trial("k1", "search_flights", 3, TrialOutcome.FUNCTIONAL_SUCCESS, "the call ran and returned a result",
                 steps,
                 executor="mcp-demo")


def test_a_successful_trial_reads_as_plan_call_answer_verdict():
    row = trial_row(_success())
    assert row.plan.status == "ok" and row.plan.seconds == 0.0104
    assert row.plan.arguments == (
        ArgumentRow("origin", "JFK", "a three-letter code in the query"),
        ArgumentRow("destination", "LHR", "the second code"),  # a line break in a source is folded
    )
    assert (row.call.status, row.call.executor, row.call.isolation, row.call.seconds) == (
        "ok", "mcp-demo", "bwrap+seccomp", 0.0208)
    assert row.answer.kind == "real" and row.answer.full == FLIGHTS
    assert row.answer.lines == ("origin: JFK", "destination: LHR",
                                "flights: 2 items — first: {flight_number: EU692, airline: EuroJet}")
    assert (row.outcome, row.reason, row.simulated) == (
        TrialOutcome.FUNCTIONAL_SUCCESS, "the call ran and returned a result", False)
    # the row reads the same from a stored record
    assert trial_row(Trial.from_json(json.loads(json.dumps(_success().to_json())))) == row


def test_a_plan_that_misses_a_value_stops_the_row_and_works_without_sources():
    trial = Trial("k2", "get_seat_map", 4, TrialOutcome.PLANNING_FAILED,
                  "required input the request cannot supply: flight",
                  (_plan({"date": "2026-03-12"}, missing=["flight"], status="failed"),))
    row = trial_row(trial)
    assert row.plan.arguments == (ArgumentRow("date", "2026-03-12"), ArgumentRow("flight", "missing", "", True))
    assert row.call.status == "not reached" and row.call.executor == ""
    assert row.answer.kind == "none" and row.answer.full is None
    frame = arguments_frame(row.plan)
    assert list(frame.columns) == ["argument", "value"]  # no word on sources when the planner named none
    assert list(frame["value"]) == ["`2026-03-12`", "**missing**"]
    with_source = arguments_frame(trial_row(_success()).plan)
    assert list(with_source.columns) == ["argument", "value · where it came from"]
    assert with_source.iloc[1].tolist() == ["destination", "`LHR`  \n:gray[the second code]"]


def test_a_planner_that_gave_no_plan_shows_its_error():
    trial = Trial("k3", "x", 1, TrialOutcome.PLANNING_FAILED, "no usable plan (bad JSON)",
                  (Step("plan", "failed", {"tool": "x"}, None, 0.2, note="the planner gave no usable plan: bad JSON"),))
    row = trial_row(trial)
    assert row.plan.arguments == () and row.plan.note == "the planner gave no usable plan: bad JSON"
    assert row.call.status == "not reached"


def test_a_simulated_answer_is_flagged_and_the_call_error_kept():
    sim = {"result": 42}
    steps = (
        _plan({"q": "x"}, sources={"q": "the request"}),
        Step("execute", "failed", {"executor": "http", "arguments": {"q": "x"}},
             {"error": "read timed out", "kind": "timeout"}, 8.0),
        Step("simulate", "ok", {"error": "read timed out"}, sim, 0.05),
        Step("classify", "ok", {}, {"outcome": TrialOutcome.EXECUTION_FAILURE, "simulation_used": True}, 0.0,
             note="timeout: read timed out"),
    )
    row = trial_row(Trial("k4", "calc", 2, TrialOutcome.EXECUTION_FAILURE, "timeout: read timed out", steps, True,
                          "http"))
    assert row.call.status == "failed" and row.call.note == "error kind: timeout"
    assert row.answer.kind == "simulated" and row.answer.lines == ("result: 42",) and row.answer.full == sim
    assert "not by the tool" in row.answer.note and "read timed out" in row.answer.note
    assert row.simulated and row.judge == ""  # a stand-in answer is not judged


def test_the_judge_verdict_reads_in_words_and_says_when_the_rule_stood_in():
    base = _success()
    judged = Trial(base.key, base.name, base.rank, TrialOutcome.SEMANTIC_MISMATCH, "off-topic",
                   (*base.steps[:2], Step("judge", "failed", {}, {"relevant": False, "reason": "off-topic"}, 0.0,
                                          note="judge failed (timeout); the offline rule decided"), base.steps[2]))
    assert trial_row(judged).judge == "judge: does not serve the request (offline rule, the judge call failed)"
    assert trial_row(base).judge == ""
    agreed = Trial(base.key, base.name, base.rank, base.outcome, "the call ran and its answer serves the request",
                   (*base.steps[:2], Step("judge", "ok", {}, {"relevant": True, "reason": "names JFK"}, 0.0),
                    base.steps[2]))
    assert trial_row(agreed).judge == ""  # the reason already says so: one line, not two
    off = Trial(base.key, base.name, base.rank, TrialOutcome.SEMANTIC_MISMATCH, "off-topic",
                (*base.steps[:2], Step("judge", "ok", {}, {"relevant": False, "reason": "off-topic"}, 0.0),
                 base.steps[2]))
    assert trial_row(off).judge == "judge: does not serve the request"


def test_a_failed_call_without_simulation_shows_the_error_as_the_answer():
    steps = (_plan({}), Step("execute", "failed", {"executor": "sandbox"},
                             {"error": "ValueError: no such city", "kind": "invalid_params"}, 0.3))
    row = trial_row(Trial("k5", "f", 1, TrialOutcome.EXECUTION_FAILURE, "x", steps))
    assert row.call.note == "error kind: invalid_params"
    assert row.answer.kind == "error" and row.answer.lines == ("ValueError: no such city",)
    assert row.plan.arguments == ()


def test_a_tool_no_executor_reaches_is_skipped():
    steps = (_plan({"a": 1}), Step("execute", "skipped", {"arguments": {"a": 1}}, None, 0.0,
                                   note="no executor can reach this tool"))
    row = trial_row(Trial("k6", "f", 1, TrialOutcome.NOT_EXECUTED, "no executor can reach this tool", steps))
    assert (row.call.status, row.call.note) == ("skipped", "no executor can reach this tool")
    assert row.answer.kind == "none"
    assert row.plan.arguments == (ArgumentRow("a", "1"),)  # a number shown as JSON


def test_answer_preview_trims_text_counts_lists_and_lists_fields():
    assert answer_preview("  first\n\n second  line \nthird\nfourth", lines=2) == ("first", "second line",
                                                                                "… 2 more lines")
    assert answer_preview("x" * 50, width=10) == ("xxxxxxxxx…",)
    assert answer_preview([1, 2, 3, 4], lines=3) == ("4 items", "• 1", "• 2", "… 2 more")
    assert answer_preview([{"a": 1}]) == ("1 item", "• {a: 1}")
    assert answer_preview({"a": 1, "b": None, "c": True, "d": "x"}, lines=2) == ("a: 1", "b: null",
                                                                              "… 2 more fields")
    assert answer_preview({"nested": {"k": [1, 2]}}) == ("nested: {k: 2 items}",)
    assert answer_preview(0) == ("0",) and answer_preview(None) == ("null",)
    assert answer_preview("") == ("(empty text)",) and answer_preview([]) == ("empty list",)
    assert answer_preview({}) == ("{} (an empty object)",)


def test_short_value_folds_and_cuts():
    assert short_value("a\n  b\tc") == "a b c"
    assert short_value("abcdefgh", 5) == "abcd…"
    assert short_value("") == '""'
    assert short_value(False) == "false" and short_value(2.5) == "2.5"
    assert short_value(list(range(7))) == "7 items" and short_value([]) == "empty list"
    assert short_value({f"k{i}": i for i in range(10)}, 200).endswith(", k7: 7, …}")


def test_arguments_table_escapes_what_the_tool_and_planner_wrote():
    from components.trials_view import PlanCell

    plan = PlanCell("ok", 0.0, (ArgumentRow("[x](http://e.x)", "**bold** <b>", "`code` | pipe ](x)"),))
    row = arguments_frame(plan).iloc[0].to_dict()
    assert row == {"argument": r"\[x\]\(http\:" + "\u200b" + r"//e\.x\)",  # a zero-width space stops autolinks
                   "value · where it came from": "`**bold** <b>`  \n" + r":gray[\`code\` \| pipe \]\(x\)]"}


def test_a_code_span_holds_any_text_literally():
    assert md_code("https://e.x/a") == "`https://e.x/a`"
    assert md_code("a `b` c") == "``a `b` c``"  # a longer fence than any run inside
    assert md_code("`x``") == "``` `x`` ```"  # padded when the text starts or ends with a backtick
    assert md_code("one\n\ntwo") == "`one two`"  # a blank line would end the span
    assert md_code("") == '`""`'


def test_full_json_is_whole_below_the_limit_and_says_when_cut():
    assert json.loads(full_json({"a": [1, 2]})) == {"a": [1, 2]}
    cut = full_json({"text": "y" * 500}, limit=100)
    assert cut.startswith('{\n  "text": "yyy') and cut.endswith("more characters")
    assert seconds_label(0.0208) == "21 ms" and seconds_label(8.04) == "8.0 s"


def test_step_headings_and_verdict_words():
    assert step_status("ok", 0.057) == "✓ 57 ms"
    assert step_status("failed", 8.0) == "✗ failed · 8.0 s"
    assert step_status("skipped", 0.0) == "○ skipped"
    assert step_status("not reached", 0.0) == "not reached"
    assert outcome_words(TrialOutcome.FUNCTIONAL_SUCCESS) == "Functional success"


def test_ranking_table_shows_moves_and_drops_the_gold_column_without_gold():
    trials = (_success(),
              Trial("k2", "other", 1, TrialOutcome.PLANNING_FAILED, "missing", (_plan({}, status="failed"),)))
    rerank = Rerank(("k1", "k2"), {"k1": "tier 0", "k2": "tier 4"})
    free = TrialReport("free", "fly me", (), ("k2", "k1"), trials, rerank)
    table = ranking_table(free, {"k1": "search_flights", "k2": "other"})
    assert list(table.columns) == ["after", "before", "move", "tool", "evidence", "outcome", "why"]
    assert table.to_dict("records")[0] == {"after": 1, "before": 2, "move": "▲ 1", "tool": "search_flights",
                                           "evidence": "✓ real answer", "outcome": "✓ FUNCTIONAL_SUCCESS",
                                           "why": "tier 0"}
    assert table["evidence"].tolist() == ["✓ real answer", "✗ failed"]
    assert table["move"].tolist() == ["▲ 1", "▼ 1"]
    gold = TrialReport("q1", "fly me", ("k1",), ("k2", "k1"), trials, rerank)
    assert ranking_table(gold, {})["gold"].tolist() == ["★", ""]


def test_query_set_tables_and_the_taxonomy_chart():
    metrics = {"before": {"recall@5": 0.5, "pass@5": 1, "recall@10": 0.5}, "after": {"recall@5": 0.75, "pass@5": 1,
                                                                                   "recall@10": 1.0}}
    assert metrics_table(metrics).to_dict("records") == [
        {"measure": "recall@5", "before": 0.5, "after": 0.75, "change": 0.25},
        {"measure": "pass@5", "before": 1.0, "after": 1.0, "change": 0.0},
        {"measure": "recall@10", "before": 0.5, "after": 1.0, "change": 0.5}]
    # a run stored before the pool kept @10 in its own block: shown in the same table
    old = {"before": {"recall@5": 0.5}, "after": {"recall@5": 0.5},
           "at_10": {"before": {"recall@10": 0.5}, "after": {"recall@10": 0.5}}}
    assert metrics_table(old)["measure"].tolist() == ["recall@5", "recall@10"]
    rerank = Rerank(("k1",), {})
    long = TrialReport("q1", "word " * 40, ("k9",), ("k1",), (_success(),), rerank)
    (row,) = reports_table([long], 5).to_dict("records")
    assert len(row["text"]) == 90 and row["text"].endswith("…") and row["gold rank before"] is None
    assert row["successes in top 5"] == 1
    fig = taxonomy_chart({"counts": {TrialOutcome.FUNCTIONAL_SUCCESS: 3, TrialOutcome.PLANNING_FAILED: 1},
                          "judged": 4, "k": 5})
    bar = fig.data[0]
    assert list(bar.text) == ["3 (75%)", "0 (0%)", "0 (0%)", "1 (25%)", "0 (0%)"]
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text and "top-5" in fig.layout.title.text
