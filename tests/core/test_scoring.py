import math

import pytest

from core.scoring import (
    DEFAULT_METRICS,
    Metric,
    Run,
    RunQuery,
    params_label,
    parse_metric,
    resolve_metrics,
    score,
)


def _run(*queries, k=3, run_id=7):
    return Run(run_id, "query", {"mode": "bm25"}, k, tuple(queries))


# q1: gold a at rank 1; q2: gold {x, y}, y at rank 2 only; q3: gold m at rank 3
Q1 = RunQuery("q1", "first", ("a",), ("a", "b", "c"), selected=("a",))
Q2 = RunQuery("q2", "second", ("x", "y"), ("n", "y", "z"), selected=())
Q3 = RunQuery("q3", "third", ("m",), ("p", "q", "m"))  # stored before selections were kept


def test_parse_metric_one_way_and_errors_list_valid_names():
    assert parse_metric("ndcg@5") == Metric("ndcg", 5) and parse_metric(" Recall@10 ") == Metric("recall", 10)
    assert parse_metric("mrr") == Metric("mrr") and parse_metric("csr") == Metric("csr")
    assert parse_metric("precision").at(4).label == "precision@4" and parse_metric("mrr").at(4).label == "mrr"
    with pytest.raises(ValueError, match=r"unknown metric 'map@5'; valid metrics: recall@K, ndcg@K, .*mrr"):
        parse_metric("map@5")
    with pytest.raises(ValueError, match="mrr has no cut-off"):
        parse_metric("mrr@3")
    for bad in ("ndcg@0", "ndcg@x", "ndcg@"):
        with pytest.raises(ValueError, match="at least 1"):
            parse_metric(bad)


def test_score_hand_checked_at_the_runs_own_k():
    report = score(_run(Q1, Q2, Q3))
    # q2: y at rank 2 of gold {x, y}: DCG 1/log2(3), ideal 1 + 1/log2(3); q3: m at rank 3: 1/log2(4) = 0.5
    ndcg_q2 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert report.values("ndcg") == pytest.approx((1.0, ndcg_q2, 0.5))
    assert report.values("recall") == (1.0, 0.5, 1.0) and report.values("comprehensiveness") == (1.0, 0.0, 1.0)
    assert report.values("mrr") == pytest.approx((1.0, 0.5, 1 / 3))
    # CSR: q1 picked exactly its gold, q2 picked nothing, q3 (no stored selection) falls back to the stand-in,
    # the first |gold| = 1 key of its top 3, p: a miss
    assert report.values("csr") == (1.0, 0.0, 0.0) and report.csr_stand_in == 1
    assert report.as_dict() == {
        "n_queries": 3, "ndcg@3": round((1 + ndcg_q2 + 0.5) / 3, 6), "precision@3": round(1 / 3, 6),
        "recall@3": round(2.5 / 3, 6), "comprehensiveness@3": round(2 / 3, 6), "mrr": round((1 + 0.5 + 1 / 3) / 3, 6),
        "csr@3": round(1 / 3, 6), "csr_stand_in_queries": 1,
    }
    # the order an evaluation run has always stored its metrics in
    assert list(report.as_dict())[1:7] == [f"{m}@3" if m != "mrr" else m for m in DEFAULT_METRICS]
    assert report.query_ids == ("q1", "q2", "q3") and report.label == "#7 query (mode=bm25)"


def test_a_stored_run_is_rescored_at_a_shallower_cutoff_but_not_deeper():
    run = _run(Q1, Q2, Q3)
    at1 = score(run, metrics=["ndcg@1", "recall@1", "mrr"])
    assert [m.label for m in at1.metrics] == ["ndcg@1", "recall@1", "mrr"]
    assert at1.values("recall@1") == (1.0, 0.0, 0.0) and at1.values("ndcg") == (1.0, 0.0, 0.0)
    assert at1.mean("mrr") == score(run).mean("mrr")  # no cut-off: the same either way
    with pytest.raises(ValueError, match=r"ndcg@5 needs the top 5 .* run #7 was made at k = 3"):
        score(run, metrics=["ndcg@5"])
    with pytest.raises(ValueError, match=r"csr@2: run #7's selector picked from its top 3"):
        score(run, metrics=["csr@2"])
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        score(run, metrics=["f1"])


def test_report_lookups_and_repeats():
    report = score(_run(Q1, Q2), metrics=["recall@1", "recall@3", "recall@3", "mrr"])
    assert [m.label for m in report.metrics] == ["recall@1", "recall@3", "mrr"]  # the repeat dropped
    with pytest.raises(ValueError, match="recall is ambiguous in run #7; scored: recall@1, recall@3, mrr"):
        report.values("recall")
    with pytest.raises(ValueError, match="ndcg was not scored"):
        report.mean("ndcg")
    assert report.csr_stand_in == 0  # no CSR asked: nothing stood in


def test_qrels_given_replace_the_stored_gold_and_must_cover_the_run():
    run = _run(Q1, Q2)
    assert score(run, {"q1": ["b"], "q2": ["n"]}, ["recall@1"]).values("recall@1") == (0.0, 1.0)
    with pytest.raises(ValueError, match="'q2' has a ranking but no gold"):
        score(run, {"q1": ["a"]}, ["recall@1"])
    with pytest.raises(ValueError, match="no metric to score"):
        resolve_metrics(3, [])


def test_an_empty_run_scores_zero():
    report = score(_run())
    assert report.n_queries == 0 and report.as_dict()["recall@3"] == 0.0


def test_params_label():
    assert params_label({"mode": "bm25", "alpha": 0.5}) == "alpha=0.5, mode=bm25" and params_label({}) == ""
