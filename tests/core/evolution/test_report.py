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
