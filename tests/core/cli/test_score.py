"""``toolatlas score``: a stored eval run scored again on other metrics (and against a baseline) without
running anything."""

import json

import pytest

from core.cli import main
from storage import runs
from storage.db import make_engine


@pytest.fixture
def store(tmp_path):
    """Two finished eval runs at k = 3 on the same 10 queries, each with one gold tool g: the baseline finds g at
    rank 2 every time, the other at rank 1 on q0..q4 and at rank 3 on q5..q9."""
    url = f"sqlite:///{tmp_path / 'score.db'}"
    engine = make_engine(url)
    ids = []
    for strategy, ranks in (("query", [2] * 10), ("memetic", [1] * 5 + [3] * 5)):
        run = runs.open_run(engine, "eval", {"k": 3, "strategy": strategy, "params": {}}, strategy=strategy)
        for i, rank in enumerate(ranks):
            keys = ["x", "y"]
            keys.insert(rank - 1, "g")
            runs.add_item(engine, run.id, f"q{i}", {"query": f"q{i}", "gold": ["g"], "keys": keys, "selected": ["g"]})
        runs.finish_run(engine, run.id, {"recall@3": 1.0})
        ids.append(run.id)
    engine.dispose()
    return url, ids


def test_score_rescores_a_stored_run_as_json_and_text(store, capsys):
    url, (base, other) = store
    assert main(["score", str(other), "--metric", "recall@1", "--metric", "mrr", "--json", "--db", url]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"run_id": other, "strategy": "memetic", "params": "", "k": 3, "n_queries": 10, "recall@1": 0.5,
                   "mrr": round((5 * 1 + 5 / 3) / 10, 6)}
    assert main(["score", str(base), "--db", url]) == 0  # every metric at the run's own k
    text = capsys.readouterr().out
    assert "recall@3: 1.0" in text and "mrr: 0.5" in text and "csr@3: 1.0" in text


def test_score_against_a_baseline(store, capsys):
    url, (base, other) = store
    assert main(["score", str(other), "--metric", "recall@1", "--baseline", str(base), "--json", "--db", url]) == 0
    test = json.loads(capsys.readouterr().out)["vs baseline recall@1"]
    # 5 queries better by 1, 5 tied: of the 2^10 sign flips, those keeping all five gains reach the mean (2^5 of
    # them, the tied signs free) and so do their mirror images: p = 2 * 2^5 / 2^10
    assert test["shared"] == 10 and test["mean_difference"] == 0.5 and test["p"] == round(2 * 2**5 / 2**10, 6)
    assert (test["wins"], test["ties"], test["losses"]) == (5, 5, 0)


def test_score_refuses_what_the_run_cannot_answer(store, capsys):
    url, (base, _) = store
    assert main(["score", str(base), "--metric", "ndcg@5", "--db", url]) == 2
    assert "stored its top 3 only" in capsys.readouterr().err
    assert main(["score", str(base), "--metric", "f1", "--db", url]) == 2
    assert "valid metrics: recall@K" in capsys.readouterr().err
    assert main(["score", "999", "--db", url]) == 2
    assert "no run with id 999" in capsys.readouterr().err
