"""The playground's fitness figures drawn beside the truth (title, axis labels, legend)."""

import pytest

from components.playground_charts import fitness_lines, fitness_truth_scatter

EVENTS = [  # two generations of two members; in generation 2 the fitter member is the worse one
    {"id": "a0g0m0", "generation": 1, "f": 0.6, "s_ret": 0.6, "mem": 0.0, "ndcg": 1.0, "recall": 1.0},
    {"id": "a0g0m1", "generation": 1, "f": 0.4, "s_ret": 0.4, "mem": 0.0, "ndcg": 0.5, "recall": 1.0},
    {"id": "a0g1m0", "generation": 2, "f": 0.7, "s_ret": 0.7, "mem": 0.0, "ndcg": 0.0, "recall": 0.0},
    {"id": "a0g1m1", "generation": 2, "f": 0.5, "s_ret": 0.5, "mem": 0.0, "ndcg": 1.0, "recall": 1.0},
]


def test_fitness_lines_show_the_truth_beside_fitness():
    fig = fitness_lines(EVENTS, k=5)
    names = [t.name for t in fig.data]
    assert "mean nDCG@5 against gold (truth)" in names and "nDCG@5 of the fittest member" in names
    truth = next(t for t in fig.data if t.name == "mean nDCG@5 against gold (truth)")
    assert list(truth.y) == pytest.approx([0.75, 0.5])
    fittest = next(t for t in fig.data if t.name == "nDCG@5 of the fittest member")
    assert list(fittest.y) == [1.0, 0.0]  # the fittest of generation 2 found nothing
    assert fig.layout.title.text == "Fitness per generation beside the truth"
    assert fig.layout.xaxis.title.text == "generation" and fig.layout.yaxis.title.text
    no_gold = fitness_lines([{k: v for k, v in e.items() if k not in ("ndcg", "recall")} for e in EVENTS])
    assert not any("nDCG" in (t.name or "") for t in no_gold.data) and no_gold.layout.title.text == \
        "Fitness per generation"


def test_fitness_truth_scatter_gives_rho_axes_and_one_legend_entry_per_generation():
    fig = fitness_truth_scatter(EVENTS, k=5)
    # ranks of f: 3, 1, 4, 2; of nDCG: 3.5, 2, 1, 3.5 -> Spearman's rho = -0.316
    assert "Spearman ρ = -0.32" in fig.layout.title.text
    assert fig.layout.xaxis.title.text == "fitness" and fig.layout.yaxis.title.text == "nDCG@5 against gold"
    assert [t.name for t in fig.data] == ["generation 1", "generation 2"]
    flat = fitness_truth_scatter([{**e, "ndcg": 0.0} for e in EVENTS])
    assert "ρ undefined" in flat.layout.title.text
    assert fitness_truth_scatter([{"id": "m", "generation": 1, "f": 0.2}]) is None  # no gold, no figure
