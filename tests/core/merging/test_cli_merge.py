"""``toolatlas merge`` end to end on the demo catalog with the real model."""

import json

import pytest

from core.cli import main

pytestmark = pytest.mark.slow


def test_merge_demo_prints_measures_and_reuses_its_run(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'merge.db'}"
    assert main(["merge", "demo", "--threshold", "0.77", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("catalog", "size_before", "size_after", "clusters", "merge_ok", "merge_bad", "silhouette_before",
                "silhouette_after", "silhouette_ks", "recall_at_5_before", "recall_at_5_after", "csr_at_5_before",
                "csr_at_5_after", "tccr", "ucc", "run_id"):
        assert key in out, key
    assert out["catalog"] == "demo" and out["clusters"] >= 1
    assert out["size_after"] < out["size_before"]
    assert out["merge_ok"] + out["merge_bad"] == out["clusters"]
    assert 0.0 <= out["recall_at_5_after"] <= 1.0 and out["queries"] > 0
    # the same merge again is rebuilt from the stored run: same run id, same sizes
    assert main(["merge", "demo", "--threshold", "0.77", "--db", db, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["run_id"] == out["run_id"] and again["size_after"] == out["size_after"]
    # another threshold is another run
    assert main(["merge", "demo", "--threshold", "0.9", "--no-autocorrect", "--db", db, "--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["run_id"] != out["run_id"] and other["merge_ok"] == other["merge_bad"] == 0
