"""``toolatlas evolve``: a CONTDA timeline run end to end on the tiny catalog with the real model."""

import json

import pytest

from core.cli import main

pytestmark = pytest.mark.slow


def test_evolve_prints_per_method_metrics(tiny_files, capsys):
    tools, queries, db = tiny_files
    assert main(["import", str(tools), "--queries", str(queries), "--name", "tiny", "--db", db, "--json"]) == 0
    capsys.readouterr()
    args = ["evolve", "tiny", "--pattern", "mixture", "--steps", "2", "--seeds", "2", "--rate", "0.2",
            "--method", "original", "--method", "contda", "--db", db, "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "markov" and out["pattern"] == "mixture" and out["steps"] == 3
    assert set(out["methods"]) == {"original", "contda"}
    for m in out["methods"].values():
        assert set(m["avg_perf"]) == {"mean", "se", "n"} and m["avg_perf"]["n"] == 2
        assert len(m["success_by_step"]) == 3
    assert [row["method"] for row in out["table"]] == ["original", "contda"]
    # 2 seeds x steps 1-2: four (seed, step) cells, too few for the paired test, which says so by its absence
    # (a seed whose cell replays another seed's is counted once: cells + replicas = 4)
    [test] = out["paired_tests"]
    assert set(test) == {"baseline", "method", "cells", "replicas"} and test["cells"] + test["replicas"] == 4
    assert all(m["rescued_by_fallback"] == 0 for m in out["methods"].values())  # selection judge: no calls
    assert main(args) == 0  # the same command again: the stored run is shown, not stored twice
    captured = capsys.readouterr()
    again = json.loads(captured.out)
    assert again["methods"] == out["methods"] and again["run_id"] == out["run_id"]
    assert f"timeline #{out['run_id']} already holds this run" in captured.err
    assert main([*args, "--fresh"]) == 0  # asked anew: a new run, seeded the same way
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["methods"] == out["methods"] and fresh["run_id"] != out["run_id"]
    assert main(["evolve", "tiny", "--versions", "--db", db, "--json"]) == 2  # one stored version only
    assert "at least two versions" in capsys.readouterr().err
