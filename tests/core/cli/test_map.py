"""``toolatlas map`` on the demo catalog: one row per tool from the store's cached map (the Overlap page's)."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.cli import main
from core.projection import project

REPO = Path(__file__).resolve().parents[3]
ENV = ("TOOLATLAS_EMBEDDER", "TOOLATLAS_EMBEDDING_MODEL", "TOOLATLAS_EMBEDDING_BASE_URL", "TOOLATLAS_TOOL_TEXT")


@pytest.fixture(scope="module")
def demo_map(tmp_path_factory):
    """The demo's PCA map written once to CSV (the demo is embedded once, with the packaged model)."""
    tmp = tmp_path_factory.mktemp("map")
    db = f"sqlite:///{tmp / 'map.db'}"
    with pytest.MonkeyPatch.context() as mp:
        for var in ENV:
            mp.delenv(var, raising=False)
        out = tmp / "demo.csv"
        assert main(["map", "demo", "--method", "pca", "-o", str(out), "--db", db, "--json"]) == 0
        yield db, out, tmp


def workspace(db):
    from core.settings import Settings, build_workspace

    return build_workspace(Settings.from_env().with_overrides(db_url=db))


def test_one_row_per_tool_with_key_name_category_and_coordinates(demo_map):
    db, out, _ = demo_map
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    ws = workspace(db)
    from storage.catalogs import get_version

    version = get_version(ws.db, "demo", None)
    tools = ws.tools(version.id)
    assert list(rows[0]) == ["key", "name", "category", "x", "y"]
    assert len(rows) == len(tools) == version.n_tools
    assert [r["key"] for r in rows] == [t.key for t in tools]
    assert [(r["name"], r["category"]) for r in rows] == [(t.name, t.category) for t in tools]
    coords = np.array([[float(r["x"]), float(r["y"])] for r in rows])
    # the page's cached map, and PCA recomputed from the stored vectors: the same numbers (PCA is deterministic)
    np.testing.assert_allclose(coords, ws.projection(version.id, "pca"), atol=1e-6)
    np.testing.assert_allclose(coords, project(ws.search_engine(version.id).vectors, "pca")[0].coords, atol=1e-5)


def test_a_second_run_reads_the_cached_map_and_every_format_holds_the_same_rows(demo_map, capsys):
    db, out, tmp = demo_map
    with out.open(encoding="utf-8") as fh:
        rows = [{**r, "x": float(r["x"]), "y": float(r["y"])} for r in csv.DictReader(fh)]
    capsys.readouterr()
    assert main(["map", "demo", "--method", "pca", "-o", str(tmp / "demo.json"), "--db", db, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    from storage.catalogs import get_version

    latest = get_version(workspace(db).db, "demo", None).number
    assert summary == {"catalog": "demo", "version": latest, "method": "pca", "params": {}, "tools": len(rows),
                       "cached": True, "out": str(tmp / "demo.json")}
    assert json.loads((tmp / "demo.json").read_text(encoding="utf-8")) == rows
    assert main(["map", "demo", "--method", "pca", "-o", str(tmp / "demo.parquet"), "--db", db]) == 0
    assert pd.read_parquet(tmp / "demo.parquet").to_dict("records") == rows
    assert "tools: " in capsys.readouterr().out  # without --json: the summary as text
    assert main(["map", "demo", "--method", "pca", "--db", db, "--json"]) == 0  # no -o: the rows on stdout
    assert json.loads(capsys.readouterr().out) == rows


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_a_bad_method_is_exit_2_listing_the_valid_ones():
    done = run_cli("map", "demo", "--method", "mds")
    assert done.returncode == 2
    assert "invalid choice: 'mds'" in done.stderr and "'umap', 'tsne', 'pca'" in done.stderr


def test_a_bad_parameter_or_file_name_is_exit_2_before_anything_is_computed(tmp_path):
    db = f"sqlite:///{tmp_path / 'bad.db'}"
    done = run_cli("map", "demo", "--param", "neighbors=5", "--db", db)
    assert done.returncode == 2 and "umap has no parameter 'neighbors'; valid parameters:" in done.stderr
    assert "n_neighbors" in done.stderr
    done = run_cli("map", "demo", "--method", "pca", "-o", str(tmp_path / "map.xlsx"), "--db", db)
    assert done.returncode == 2 and ".csv, .json, .parquet" in done.stderr
    assert not (tmp_path / "bad.db").exists() and not (tmp_path / "map.xlsx").exists()


@pytest.mark.slow
def test_umap_parameters_reach_the_map_and_each_setting_is_its_own_cached_map(demo_map, capsys):
    db, _, tmp = demo_map
    capsys.readouterr()
    assert main(["map", "demo", "--param", "n_epochs=30", "-o", str(tmp / "u30.csv"), "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cached"] is False
    assert main(["map", "demo", "--param", "n_epochs=30", "--param", "seed=0", "-o", str(tmp / "again.csv"),
                 "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cached"] is True  # seed=0 is the default: the same map
    first, again = (pd.read_csv(tmp / name) for name in ("u30.csv", "again.csv"))
    assert first.equals(again) and np.isfinite(first[["x", "y"]].to_numpy()).all()
