import numpy as np

from core.compare import RunScores, paired_test


def run(label, values):
    qids = tuple(f"q{i}" for i in range(len(values)))
    arr = np.array(values, dtype=float)
    return RunScores(1, label, 5, qids, {"recall": arr}, {}, {}, {}, {})


def test_clear_improvement_is_significant():
    a = run("base", [0.0] * 30)
    b = run("better", [1.0] * 25 + [0.0] * 5)
    t = paired_test(a, b, "recall")
    assert t.n == 30 and t.mean_difference == 25 / 30 and t.p_value < 0.001
    assert t.ci_low > 0.6 and t.ci_high <= 1.0
    assert (t.wins, t.ties, t.losses) == (25, 5, 0)


def test_no_difference_is_not_significant_and_small_sets_are_skipped():
    rng = np.random.default_rng(1)
    vals = rng.random(40)
    t = paired_test(run("a", vals), run("b", vals[::-1]), "recall")
    assert t.p_value > 0.05
    assert paired_test(run("a", [1.0] * 5), run("b", [0.0] * 5), "recall") is None


def test_stored_selections_score_csr_and_old_items_fall_back(db):
    from core.compare import load_run_scores
    from storage import runs

    run = runs.open_run(db, "eval", {"k": 3, "strategy": "query"}, strategy="query")
    # q1 selected exactly its gold, q2 a superset of it, q3 nothing
    runs.add_item(db, run.id, "q1", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": ["a"]})
    runs.add_item(db, run.id, "q2", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": ["a", "b"]})
    runs.add_item(db, run.id, "q3", {"keys": ["a", "b", "c"], "gold": ["a"], "selected": []})
    # stored before selections were kept: the stand-in takes the first |gold| = 1 key, [a] == {a}
    runs.add_item(db, run.id, "q4", {"keys": ["a", "b", "c"], "gold": ["a"]})
    scores = load_run_scores(db, run.id)
    assert scores.scores["csr"].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert scores.scores["recall"].tolist() == [1.0] * 4  # the ranking metrics ignore the selection
    assert scores.csr_stand_in == 1
