"""``toolatlas import-benchmark``: a benchmark folder or zip in its published layout becomes a catalog and
a query set, with what was left out reported; bad input stores nothing."""

import json
import shutil
from pathlib import Path

import pytest

from core.cli import main
from storage.catalogs import list_catalogs, list_query_sets, load_queries
from storage.db import make_engine

BENCH = Path(__file__).resolve().parents[1] / "assets" / "benchmarks"


def test_a_bfcl_folder_imports_tools_queries_and_gold(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'b.db'}"
    assert main(["import-benchmark", "bfcl", str(BENCH / "bfcl"), "--name", "bfcl-raw", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {
        "catalog": "bfcl-raw", "version": 1, "tools": 5, "reused": False, "query_set": "bfcl-raw", "queries": 5,
        "skipped": ["BFCL_v4_irrelevance.json: 1 questions with no possible_answer file (no gold)",
                    "BFCL_v4_multi_turn_base.json: 1 questions without function docs in the question "
                    "(multi-turn/agentic layout)"],
        "dropped_launch_fields": [],
    }
    engine = make_engine(db)
    (qs,) = list_query_sets(engine, "bfcl-raw")
    queries = load_queries(engine, qs.id)
    assert {q.split for q in queries} == {"simple_python", "parallel_multiple"}
    assert all(q.gold for q in queries)
    # the same folder again is the same version, not a new one
    assert main(["import-benchmark", "bfcl", str(BENCH / "bfcl"), "--name", "bfcl-raw", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reused"] is True


def test_a_zip_of_the_folder_gives_the_same_catalog(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'b.db'}"
    archive = shutil.make_archive(str(tmp_path / "seal"), "zip", root_dir=BENCH, base_dir="seal_tools")
    assert main(["import-benchmark", "seal_tools", archive, "--db", db]) == 0
    text = capsys.readouterr().out
    assert text.startswith("imported 4 tools into seal_tools v1 (1 queries)")
    assert "left out: dev.jsonl: 1 queries calling an API missing from tool.jsonl" in text


def test_bad_input_names_the_file_and_stores_nothing(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'b.db'}"
    broken = tmp_path / "bfcl"
    shutil.copytree(BENCH / "bfcl", broken)
    target = broken / "BFCL_v4_simple_python.json"
    target.write_text(target.read_text().replace('"question"', '"question_"', 1))
    assert main(["import-benchmark", "bfcl", str(broken), "--db", db]) == 2
    err = capsys.readouterr().err
    assert "BFCL_v4_simple_python.json: record 1: field 'question'" in err, err
    assert main(["import-benchmark", "toolret", str(tmp_path / "nowhere"), "--db", db]) == 2
    assert "nowhere: no such file or folder" in capsys.readouterr().err
    assert not list_catalogs(make_engine(db))
    with pytest.raises(SystemExit):  # argparse lists the valid formats
        main(["import-benchmark", "toolbox", str(broken)])
