"""``toolatlas trials`` text output: no Python reprs, arguments as name=value, shares that match counts."""

import re

from core.cli.trials import format_run
from core.trials.evidence import Rerank, Step, Trial, TrialOutcome, TrialReport
from core.trials.measures import failure_shares


def _report():
    ok = Trial("get_current_time", "get_current_time", 2, TrialOutcome.FUNCTIONAL_SUCCESS, "the call ran and returned a result", (
        Step("plan", "ok", {"tool": "get_current_time"}, {"arguments": {"timezone": "Asia/Tokyo"}, "missing": [],
                                                         "sources": {"timezone": "IANA zone for 'Tokyo'"}}),
        Step("execute", "ok", {"executor": "mcp-1"}, {"timezone": "Asia/Tokyo", "datetime": "2026-01-05T18:00:00+09:00"},
             0.05),
        Step("classify", "ok", {}, {"outcome": TrialOutcome.FUNCTIONAL_SUCCESS})), False, "mcp-1")
    bad = Trial("convert_time", "convert_time", 1, TrialOutcome.PARAMETER_MISMATCH, "the tool rejected the arguments: Invalid timezone", (
        Step("plan", "ok", {}, {"arguments": {"source_timezone": "Europe", "time": "16:30", "target_timezone": "New York"},
                                "sources": {}}),
        Step("execute", "failed", {"executor": "mcp-1"}, {"error": "Invalid timezone: 'Europe'", "kind": "invalid_params"},
             0.02)), False, "mcp-1")
    none = Trial("x", "x", 3, TrialOutcome.PLANNING_FAILED, "required input the request cannot supply: stop_name", (
        Step("plan", "failed", {}, {"arguments": {}, "missing": ["stop_name"], "sources": {"stop_name": "no place named"}}),))
    return TrialReport("t1", "What time is it in Tokyo?", ("get_current_time",), ("convert_time", "get_current_time", "x"),
                       (ok, bad, none), Rerank(("get_current_time", "x", "convert_time")))


def test_text_output_reads_as_plain_lines():
    report = _report()
    failures = failure_shares([report], k=3)
    out = {"catalog": "time", "version": 1, "strategy": "query", "candidates": 3, "simulate": True,
           "executors": {"servers": [{"command": ["python", "-m", "mcp_server_time"], "cwd": None}], "http_hosts": [],
                         "sandbox": False},
           "run_id": 7, "queries": 1, "seconds": 1.5, "resumed": 0, "k": 3,
           "before": {"recall@3": 1.0, "pass@3": 1.0}, "after": {"recall@3": 1.0, "pass@3": 1.0},
           "failures": failures, "simulated": 0, "trials": 3, "llm_calls": 4, "llm_errors": 0}
    text = format_run(out, [report])
    assert "{'" not in text and "':" not in text  # no dict reprs anywhere
    assert "executor: MCP server python -m mcp_server_time" in text
    assert "plan: timezone=Asia/Tokyo" in text and "from: timezone: IANA zone for 'Tokyo'" in text
    assert 'target_timezone="New York"' in text  # a value with a space is quoted, not repr'd
    assert "call: mcp-1 failed in 0.02 s → invalid_params: Invalid timezone: 'Europe'" in text
    assert "stop_name: no place named" in text
    # each outcome line's share is its own count over the judged trials (3 here)
    rows = dict(re.findall(r"^  ([A-Z_]+)\s+(\d+\s+[\d.]+%)$", text, re.MULTILINE))
    assert rows["PARAMETER_MISMATCH"].split()[0] == "1" and rows["PARAMETER_MISMATCH"].endswith("33.3%")
    assert rows["PLANNING_FAILED"].split()[0] == "1" and rows["FUNCTIONAL_SUCCESS"].split()[0] == "1"
    assert "planning failures as parameter mismatches: 2 (66.7%)" in text
    assert text.index("get_current_time  ★ gold") < text.index("convert_time  [PARAMETER_MISMATCH]")  # after order


def test_the_pool_and_both_cutoffs_are_options_and_in_the_header():
    from core.cli.entry import build_parser

    args = build_parser().parse_args(["trials", "demo"])
    assert (args.k, args.at, args.simulated_evidence, args.no_judge) == (20, [5, 10], "success", False)
    args = build_parser().parse_args(["trials", "demo", "-K", "30", "--at", "3", "10", "--no-judge"])
    assert (args.k, args.at, args.no_judge) == (30, [3, 10], True)
    out = {"catalog": "demo", "version": 5, "strategy": "query", "candidates": 20, "report_at": [5, 10],
           "simulate": True, "simulated_evidence": "success", "judge": True,
           "executors": {"servers": [], "http_hosts": [], "sandbox": False}, "run_id": 1, "queries": 1,
           "seconds": 1.0, "resumed": 0, "k": 5, "cutoffs": [5, 10],
           "before": {"recall@5": 0.0, "recall@10": 0.0}, "after": {"recall@5": 1.0, "recall@10": 1.0}}
    text = format_run(out)
    assert "20 candidates tried and re-ranked per query, measured at @5 and @10" in text
    assert "simulated answers count as success" in text and "relevance judge on" in text
    assert re.search(r"^recall@10\s+0\.0000\s+1\.0000\s+\+1\.0000$", text, re.MULTILINE)
