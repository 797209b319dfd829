"""Trials through the real Python sandbox (one subprocess per call) with the offline and prompted roles."""

import pytest

from core.execution.router import ExecutorRouter
from core.execution.sandbox import PythonFunction, SandboxExecutor
from core.llm.framework import make_roles
from core.llm.ledger import MemoryLedger
from core.models import Tool
from core.trials.evidence import TrialOutcome
from core.trials.pipeline import TrialConfig, rerun_candidate, run_trials
from tests.core.llm.conftest import fake  # noqa: F401 - the fake chat server fixture

SCHEMA = {"type": "object", "properties": {"value": {"type": "number"}, "from_unit": {"type": "string"},
                                           "to_unit": {"type": "string"}}, "required": ["value", "from_unit", "to_unit"]}
SOURCE = '''
def convert(value, from_unit, to_unit):
    return {"value": round(value * 1.609344, 3), "unit": to_unit}

def empty(value, from_unit, to_unit):
    return {"results": []}

def picky(value, from_unit, to_unit, region):
    return {"value": value}

def flaky(value, from_unit, to_unit):
    raise RuntimeError("upstream answered 503")

def locked(value, from_unit, to_unit):
    raise PermissionError("401 Unauthorized: missing API key")

def horoscope(value, from_unit, to_unit):
    return {"sign": "leo", "forecast": "a lucky day for new friendships"}
'''
QUERY = "Convert 26.2 miles to kilometres"


def _tools():
    names = ["picky", "flaky", "empty", "convert", "locked", "unreachable", "horoscope"]
    tools = [Tool(n, n, f"Converts a value between units ({n}).", SCHEMA) for n in names]
    needs_id = Tool("needs_id", "needs_id", "Converts the units of a stored measurement.",
                    {"type": "object", "properties": {"measurement_id": {"type": "string"}},
                     "required": ["measurement_id"]})
    return [needs_id, *tools]


def _router():
    functions = {n: PythonFunction.from_source(SOURCE, n)
                 for n in ("convert", "empty", "picky", "flaky", "locked", "horoscope")}
    return ExecutorRouter([SandboxExecutor(functions, timeout=10.0)])


@pytest.mark.slow
def test_offline_trials_demote_broken_tools_and_keep_every_step():
    ops = make_roles("trials", "offline", ledger=MemoryLedger())
    with _router() as router:
        report = run_trials("q1", QUERY, ["convert"], _tools(), router, ops, TrialConfig(k=8, today="2026-11-23"))
    outcome = {t.key: t.outcome for t in report.trials}
    assert outcome == {"needs_id": TrialOutcome.PLANNING_FAILED, "picky": TrialOutcome.PARAMETER_MISMATCH,
                       "flaky": TrialOutcome.EXECUTION_FAILURE, "empty": TrialOutcome.SEMANTIC_MISMATCH,
                       "convert": TrialOutcome.FUNCTIONAL_SUCCESS, "locked": TrialOutcome.EXECUTION_FAILURE,
                       "unreachable": TrialOutcome.NOT_EXECUTED, "horoscope": TrialOutcome.SEMANTIC_MISMATCH}
    convert = report.trial("convert")
    assert convert.arguments == {"value": 26.2, "from_unit": "miles", "to_unit": "kilometres"}
    assert convert.step("execute").output == {"value": 42.165, "unit": "kilometres"}
    # a non-empty answer about something else: the judge role makes it a semantic mismatch, step kept
    assert [s.name for s in convert.steps] == ["plan", "execute", "judge", "classify"]
    assert convert.step("judge").output["relevant"] is True
    horoscope = report.trial("horoscope")
    assert horoscope.step("judge").output["relevant"] is False and "shares a word" in horoscope.reason
    # an outage the tool reports ("upstream answered 503") is transient: simulated and flagged; a refused
    # key (401) and rejected arguments are permanent, the tool's own defects: never simulated
    flaky = report.trial("flaky")
    assert flaky.simulation_used and not report.trial("locked").simulation_used
    assert flaky.evidence == "simulated" and flaky.to_json()["evidence"] == "simulated"
    assert report.trial("locked").step("simulate") is None and "auth" in report.trial("locked").reason
    assert not report.trial("picky").simulation_used and report.trial("picky").step("simulate") is None
    assert [s.name for s in flaky.steps] == ["plan", "execute", "simulate", "classify"]
    # GRETEL §3.2.2: simulation evidence is grouped with success (the initial rank breaks the tie: flaky was
    # #3, convert #5); a tool refusing its key is a real failure, below the unreached tool and the empty answer
    assert report.after == ("flaky", "convert", "unreachable", "empty", "horoscope", "locked", "needs_id", "picky")
    assert report.before[0] == "needs_id" and report.moves()["convert"] == 3
    # our variant keeps a simulated answer just below real success
    below = run_trials("q1", QUERY, ["convert"], _tools(), None, ops,
                       TrialConfig(k=8, today="2026-11-23", simulated_evidence="below_success"),
                       store=_Stored(report))
    assert below.after[:3] == ("convert", "flaky", "unreachable")
    with pytest.raises(ValueError, match="below_success"):
        TrialConfig(simulated_evidence="maybe")


class _Stored:
    """A store already holding a report's trials, so a second run re-ranks the same evidence."""

    def __init__(self, report):
        self.trials = {t.key: t for t in report.trials}

    def load(self, _qid):
        return self.trials

    def save(self, _qid, _trial):
        pass


@pytest.mark.slow
def test_no_simulation_and_resume_from_stored_trials():
    class Store(dict):
        def load(self, qid):
            return self.get(qid, {})

        def save(self, qid, trial):
            self.setdefault(qid, {})[trial.key] = trial

    store = Store()
    ops = make_roles("trials", "offline")
    config = TrialConfig(k=8, simulate=False, today="2026-11-23")
    with _router() as router:
        first = run_trials("q1", QUERY, ["convert"], _tools(), router, ops, config, store=store)
    assert not any(t.simulation_used for t in first.trials) and len(store["q1"]) == 8
    # every candidate is stored: with no executor at all the same evidence comes back, nothing is re-run
    again = run_trials("q1", QUERY, ["convert"], _tools(), None, ops, config, store=store)
    assert again.trials == first.trials and again.after == first.after


@pytest.mark.slow
def test_rerun_one_candidate_replaces_only_its_evidence():
    ops = make_roles("trials", "offline")
    config = TrialConfig(k=8, today="2026-11-23")
    with _router() as router:
        report = run_trials("q1", QUERY, ["convert"], _tools(), None, ops, config)
        assert report.trial("convert").outcome == TrialOutcome.NOT_EXECUTED
        fresh = rerun_candidate(report, _tools()[4], router, ops, config)
    assert fresh.trial("convert").outcome == TrialOutcome.FUNCTIONAL_SUCCESS and fresh.after[0] == "convert"
    assert fresh.trial("empty") == report.trial("empty")


def test_prompted_roles_against_a_chat_server(fake):  # noqa: F811
    fake.script = [
        ("ok", '{"arguments": {"value": 26.2, "from_unit": "mi", "to_unit": "km", "bogus": 1}, "missing": []}'),
        ("ok", "I cannot answer in JSON"),  # the re-rank answer is garbage: evidence order is used, error kept
    ]
    ledger = MemoryLedger()
    operators = make_roles("strategy", "openai", ledger=ledger, base_url=fake.url, model="tiny", api_key="k",
                           max_retries=0)
    ops = make_roles("trials", "prompted", operators=operators)
    tool = _tools()[4]
    report = run_trials("q1", QUERY, ["convert"], [tool], None, ops, TrialConfig(k=1, concurrency=1))
    trial = report.trial("convert")
    assert trial.outcome == TrialOutcome.NOT_EXECUTED
    assert trial.arguments == {"value": 26.2, "from_unit": "mi", "to_unit": "km"}
    assert "bogus" in trial.step("plan").output["note"]
    assert report.rerank.method == "evidence order (fallback)" and "JSON" in report.rerank.error
    assert [r.role for r in ledger.records] == ["plan_call", "holistic_rerank"]
    assert ledger.records[1].error is not None
    with pytest.raises(ValueError, match="prompted"):
        make_roles("trials", "prompted", operators=make_roles("strategy", "offline"))
    with pytest.raises(ValueError, match="valid kinds: offline, prompted"):
        make_roles("trials", "llama")


@pytest.mark.slow
def test_prompted_judge_and_the_simulated_answer_in_the_rerank_prompt(fake):  # noqa: F811
    plan = '{"arguments": {"value": 26.2, "from_unit": "mi", "to_unit": "km"}, "missing": []}'
    fake.script = [
        ("ok", plan),
        ("ok", '{"relevant": false, "reason": "it names a unit but not the distance asked for"}'),
        ("ok", plan),
        ("ok", '{"response": {"value": 42.16, "unit": "km", "note": "from the stand-in"}}'),
        ("ok", '{"ranking": ["flaky", "convert"], "reasons": {"flaky": "simulated answer serves it"}}'),
    ]
    ledger = MemoryLedger()
    operators = make_roles("strategy", "openai", ledger=ledger, base_url=fake.url, model="tiny", api_key="k",
                           max_retries=0)
    ops = make_roles("trials", "prompted", operators=operators)
    tools = {t.key: t for t in _tools()}
    with _router() as router:
        report = run_trials("q1", QUERY, ["convert"], [tools["convert"], tools["flaky"]], router, ops,
                            TrialConfig(k=2, concurrency=1))
    convert, flaky = report.trial("convert"), report.trial("flaky")
    # the model's verdict decides: a non-empty answer it finds off-topic is a semantic mismatch
    assert convert.outcome == TrialOutcome.SEMANTIC_MISMATCH and "distance asked for" in convert.reason
    assert convert.step("judge").call_id is not None
    assert [r.role for r in ledger.records] == ["plan_call", "judge_answer", "plan_call", "simulate_response",
                                                "holistic_rerank"]
    # the re-ranker reads the simulator's answer (not only the failed call) and is told it counts like success
    prompt = [s for s in fake.seen if "body" in s][-1]["body"]["messages"][-1]["content"]
    assert '\\"note\\": \\"from the stand-in\\"' in prompt and '"response_from": "simulator"' in prompt
    assert "503" in prompt and "same kind as a real success" in prompt
    assert report.after == ("flaky", "convert") and flaky.simulation_used


@pytest.mark.slow
def test_a_failed_judge_call_falls_back_to_the_offline_rule_and_says_so(fake):  # noqa: F811
    fake.script = [("ok", '{"arguments": {"value": 26.2, "from_unit": "miles", "to_unit": "kilometres"}}'),
                   ("ok", "relevant, I think")]
    operators = make_roles("strategy", "openai", ledger=MemoryLedger(), base_url=fake.url, model="tiny",
                           api_key="k", max_retries=0)
    ops = make_roles("trials", "prompted", operators=operators)
    with _router() as router:
        report = run_trials("q1", QUERY, ["convert"], [_tools()[4]], router, ops, TrialConfig(k=1, concurrency=1))
    judge = report.trial("convert").step("judge")
    assert judge.status == "failed" and "offline rule decided" in judge.note
    assert judge.output["relevant"] is True and report.trial("convert").outcome == TrialOutcome.FUNCTIONAL_SUCCESS
