"""The timeline's closing table: mean ± standard error over seeds, and no spread over one seed."""

from core.evolution.metrics import mean_se
from core.evolution.report import pct, same_series, table_rows


def _method(label, values):
    stats = mean_se(values).to_json()
    return {"label": label, "seeds": list(range(len(values))), "avg_perf": stats, "forget": stats,
            "discover": stats}


def test_one_seed_shows_the_value_without_a_spread():
    assert pct(mean_se([0.54]).to_json()) == "54.00"
    rows = table_rows({"methods": {"original": _method("Original docs", [0.25])}})
    assert rows == [{"method": "original", "label": "Original docs", "AvgPerf": "25.00", "Forget": "25.00",
                     "Discover": "25.00", "seeds": 1}]


def test_several_seeds_show_mean_and_standard_error():
    # 0.2 and 0.4: mean 0.3, sample sd 0.1414, se 0.1
    assert pct(mean_se([0.2, 0.4]).to_json()) == "30.00 ± 10.00"
    assert table_rows({"methods": {"contda": _method("CONTDA", [0.2, 0.4])}})[0]["Forget"] == "30.00 ± 10.00"


def test_same_series_names_the_earlier_methods_a_line_coincides_with():
    def method(values):
        return {"success_by_step": [mean_se([v]).to_json() for v in values]}

    summary = {"methods": {"original": method([0.0, 0.3, 0.6]), "contda": method([0.0, 0.3, 0.5]),
                           "contda_no_adjust": method([0.0, 0.3, 0.5]), "contda_no_discovery": method([0.0, 0.3, 0.6])}}
    assert same_series(summary) == {"original": (), "contda": (), "contda_no_adjust": ("contda",),
                                    "contda_no_discovery": ("original",)}
    assert same_series({"methods": {}}) == {}


def _results(method, grid):
    """StepResults of ``method`` from ``grid[seed][step]`` = solved queries out of 4."""
    from core.evolution.evaluate import QueryOutcome, StepEvaluation
    from core.evolution.pipeline import StepResult

    return [StepResult(seed, t, method, StepEvaluation(t, method, tuple(
        QueryOutcome(f"q{i}", i < solved, "" if i < solved else "not selected") for i in range(4))))
        for seed, row in enumerate(grid) for t, solved in enumerate(row)]


def test_paired_tests_compare_methods_over_seed_step_cells_after_step_zero():
    from core.evolution.report import paired_rows, paired_tests

    base = [[1, 1, 1, 1, 1]] * 3  # 3 seeds x steps 0-4: 12 cells from step 1
    better = [[1, 2, 2, 2, 2]] * 3  # +1 query of 4 in every cell from step 1
    mixed = [[1, 2, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]]
    results = _results("original", base) + _results("contda", better) + _results("contda_no_adjust", mixed)
    # Every seed here replays the others (same outcomes): counted as the (seed, step) cells only when
    # asked; by default they are one observation per step.
    tests = paired_tests(results, ["original", "contda", "contda_no_adjust"], collapse_replicas=False)
    assert [(t.baseline, t.method, t.cells) for t in tests] == [("original", "contda", 12),
                                                                ("original", "contda_no_adjust", 12)]
    up, one = tests[0].test, tests[1].test
    assert up.mean_difference == 0.25 and (up.wins, up.ties, up.losses) == (12, 0, 0)
    assert up.p_value < 0.001  # 12 sign flips all one way: exact p = 2 / 4096
    assert one.wins == 1 and one.ties == 11 and one.p_value == 1.0  # one cell of twelve cannot be significant
    rows = paired_rows(tests)
    assert rows[0]["method"] == "CONTDA" and rows[0]["Δ success (pp)"] == "+25.00" and rows[0]["cells"] == 12
    short = paired_tests(_results("original", base[:1]) + _results("contda", better[:1]), ["original", "contda"],
                         collapse_replicas=False)
    assert short[0].cells == 4 and short[0].test is None  # fewer than 10 cells: no test
    assert paired_rows(short)[0]["p"].startswith("n/a")


def test_seeds_that_replay_each_other_count_once():
    from core.evolution.report import paired_rows, paired_tests

    base = [[1, 1, 1, 1, 1]] * 5
    better = [[1, 2, 2, 2, 2]] * 5  # five seeds, all the same outcomes: 4 independent cells, not 20
    replayed = paired_tests(_results("original", base) + _results("contda", better), ["original", "contda"])
    assert (replayed[0].cells, replayed[0].replicas, replayed[0].test) == (4, 16, None)  # too few for a test
    assert paired_rows(replayed)[0]["replayed cells left out"] == 16
    # Seeds that differ are separate observations: 3 seeds x 4 steps, each seed's cells its own.
    varied = [[1, 2, 2, 2, 2], [1, 3, 2, 2, 2], [1, 2, 3, 2, 3]]
    distinct = paired_tests(_results("original", [[1, 1, 1, 1, 1], [1, 1, 0, 1, 1], [1, 0, 1, 1, 1]])
                            + _results("contda", varied), ["original", "contda"])
    # step 3: seeds 1 and 2 repeat seed 0's (1, 2); step 4: seed 1 repeats it; every other cell is new
    assert (distinct[0].cells, distinct[0].replicas) == (9, 3)
    every = paired_tests(_results("original", [[1, 1, 1, 1, 1], [1, 1, 0, 1, 1], [1, 0, 1, 1, 1]])
                         + _results("contda", varied), ["original", "contda"], collapse_replicas=False)
    assert (every[0].cells, every[0].replicas) == (12, 0) and every[0].test is not None
