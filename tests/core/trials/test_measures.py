import pytest

from core.trials.evidence import Rerank, Trial, TrialOutcome, TrialReport
from core.trials.measures import failure_shares, measure_rows, passes, passes_all, score_reports
from core.trials.pipeline import TrialConfig


def _report(qid, gold, before, outcomes, after):
    trials = tuple(Trial(k, k, i + 1, outcomes[k], "", ()) for i, k in enumerate(before))
    return TrialReport(qid, qid, tuple(gold), tuple(before), trials, Rerank(tuple(after)))


def test_hand_worked_scores_before_and_after():
    # q1: gold g sits at rank 3 behind two broken tools, and worked; the re-rank lifts it to 1.
    q1 = _report("q1", ["g"], ["x", "y", "g"], {"x": TrialOutcome.EXECUTION_FAILURE, "y": TrialOutcome.PLANNING_FAILED,
                                                 "g": TrialOutcome.FUNCTIONAL_SUCCESS},
                 ["g", "x", "y"])
    # q2: gold h at rank 1 but returned nothing: it never passes.
    q2 = _report("q2", ["h"], ["h", "z", "w"], {"h": TrialOutcome.SEMANTIC_MISMATCH, "z": TrialOutcome.FUNCTIONAL_SUCCESS,
                                                 "w": TrialOutcome.NOT_EXECUTED},
                 ["z", "h", "w"])
    assert passes(q1, q1.before, 2) is False and passes(q1, q1.after, 1) is True
    assert passes(q2, q2.before, 3) is False
    m = score_reports([q1, q2], k=2)
    assert m["before"]["recall@2"] == 0.5 and m["after"]["recall@2"] == 1.0
    assert m["before"]["pass@2"] == 0.0 and m["after"]["pass@2"] == 0.5
    # nDCG@2 with one gold: q1 before 0, after 1; q2 before 1, after 1/log2(3)
    assert m["before"]["ndcg@2"] == 0.5
    assert abs(m["after"]["ndcg@2"] - round((1 + 1 / 1.584962500721156) / 2, 4)) < 1e-4


def test_pass_at_k_needs_one_working_gold_tool_and_pass_all_needs_every_one():
    # two gold tools: g1 worked at rank 1, g2 only simulated at rank 2; a gold tool never tried does not pass
    q = _report("q", ["g1", "g2"], ["g1", "g2", "x"],
                {"g1": TrialOutcome.FUNCTIONAL_SUCCESS, "g2": TrialOutcome.SEMANTIC_MISMATCH,
                 "x": TrialOutcome.FUNCTIONAL_SUCCESS}, ["g1", "g2", "x"])
    assert passes(q, q.before, 1) is True and passes_all(q, q.before, 3) is False
    assert passes(q, ["x", "g1"], 1) is False  # the working tool in the top 1 is not gold
    both = _report("b", ["g1", "g2"], ["g2", "g1"],
                   {"g1": TrialOutcome.FUNCTIONAL_SUCCESS, "g2": TrialOutcome.FUNCTIONAL_SUCCESS}, ["g2", "g1"])
    assert passes_all(both, both.before, 2) is True and passes_all(both, both.before, 1) is False
    untried = _report("u", ["g"], ["x"], {"x": TrialOutcome.FUNCTIONAL_SUCCESS}, ["x"])
    assert passes(untried, ["g", "x"], 2) is False
    m = score_reports([q, both], k=1)
    assert m["before"]["pass@1"] == 1.0 and m["before"]["pass_all@1"] == 0.0


def test_failure_shares_count_planning_failures_as_parameter_mismatch():
    q1 = _report("q1", ["g"], ["x", "y", "g"], {"x": TrialOutcome.EXECUTION_FAILURE, "y": TrialOutcome.PLANNING_FAILED,
                                                 "g": TrialOutcome.FUNCTIONAL_SUCCESS},
                 ["g", "x", "y"])
    q2 = _report("q2", ["h"], ["h", "z", "w"], {"h": TrialOutcome.SEMANTIC_MISMATCH, "z": TrialOutcome.FUNCTIONAL_SUCCESS,
                                                 "w": TrialOutcome.NOT_EXECUTED},
                 ["z", "h", "w"])
    f = failure_shares([q1, q2], k=3)
    assert f["judged"] == 5 and f["counts"][TrialOutcome.NOT_EXECUTED] == 1
    assert f["table4"]["shares"] == {"PARAMETER_MISMATCH": 0.2, "SEMANTIC_MISMATCH": 0.2, "EXECUTION_FAILURE": 0.2,
                                     "FUNCTIONAL_SUCCESS": 0.4}
    assert f["table4"]["counts"] == {"PARAMETER_MISMATCH": 1, "SEMANTIC_MISMATCH": 1, "EXECUTION_FAILURE": 1,
                                     "FUNCTIONAL_SUCCESS": 2}


def test_every_share_is_its_own_count_over_the_judged_trials():
    """The bug: PARAMETER_MISMATCH printed 0.33 next to a count of 0 (planning failures were folded into
    the share but not the count). Each class's share must be that class's count over the judged trials."""
    q = _report("q", ["g"], ["a", "b", "c", "d"], {"a": TrialOutcome.PLANNING_FAILED, "b": TrialOutcome.PLANNING_FAILED,
                                                   "c": TrialOutcome.FUNCTIONAL_SUCCESS, "d": TrialOutcome.NOT_EXECUTED},
                ["c", "a", "b", "d"])
    f = failure_shares([q], k=4)
    assert f["judged"] == 3
    assert f["counts"]["PARAMETER_MISMATCH"] == 0 and f["shares"]["PARAMETER_MISMATCH"] == 0.0
    assert f["counts"]["PLANNING_FAILED"] == 2 and f["shares"]["PLANNING_FAILED"] == 0.6667
    for outcome, share in f["shares"].items():
        assert share == round(f["counts"][outcome] / f["judged"], 4), outcome
    assert f["table4"]["counts"]["PARAMETER_MISMATCH"] == 2 and f["table4"]["shares"]["PARAMETER_MISMATCH"] == 0.6667


def test_a_pool_larger_than_the_cutoff_lets_at_10_move():
    # 12 candidates tried; the gold tool sits at 11, the ten above it failed: the re-rank lifts it into the top 10
    before = [f"t{i}" for i in range(1, 11)] + ["g", "z"]
    outcomes = {k: TrialOutcome.EXECUTION_FAILURE for k in before} | {"g": TrialOutcome.FUNCTIONAL_SUCCESS}
    q = _report("q", ["g"], before, outcomes, ["g", *before[:10], "z"])
    m = score_reports([q], cutoffs=[10, 5])
    assert m["k"] == 5 and m["cutoffs"] == [5, 10]
    assert m["before"]["recall@10"] == 0.0 and m["after"]["recall@10"] == 1.0
    assert m["before"]["pass@10"] == 0.0 and m["after"]["pass@10"] == 1.0 and m["after"]["pass@5"] == 1.0
    assert m["failures"]["k"] == 5 and m["failures"]["judged"] == 5  # Table 4 over the top 5


def test_measure_rows_read_new_runs_and_the_at_k_block_of_old_ones():
    new = {"before": {"recall@5": 0.5, "recall@10": 0.75}, "after": {"recall@5": 1.0, "recall@10": 1.0}}
    assert measure_rows(new) == [("recall@5", 0.5, 1.0), ("recall@10", 0.75, 1.0)]
    old = {"before": {"recall@5": 0.5}, "after": {"recall@5": 0.5},
           "at_10": {"before": {"recall@10": 0.8}, "after": {"recall@10": 0.8}}}
    assert measure_rows(old) == [("recall@5", 0.5, 0.5), ("recall@10", 0.8, 0.8)]


def test_trial_config_pool_cutoffs_and_stored_configs():
    config = TrialConfig()
    assert (config.k, config.cutoffs, config.report_at) == (20, (5, 10), (5, 10))
    assert TrialConfig(k=8).report_at == (5,) and TrialConfig(k=3).report_at == (3,)
    assert TrialConfig.from_json(config.to_json()) == config
    # a config stored before the pool existed reads as it ran: K=10, @5 and @10, no judge, simulated below success
    old = TrialConfig.from_json({"k": 10, "simulate": True, "simulate_on": ["server"], "simulate_unexecuted": False,
                                 "timeout": 8.0, "concurrency": 4, "today": "2025-06-02"})
    assert (old.cutoffs, old.judge, old.simulated_evidence, old.simulate_on) == ((5, 10), False, "below_success",
                                                                                  ("server",))
    with pytest.raises(ValueError, match="cutoffs"):
        TrialConfig(cutoffs=(0,))
