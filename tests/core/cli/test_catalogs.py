"""``toolatlas import``, ``import-benchmark``, ``index``, ``search``, ``catalogs``, ``export`` and ``delete``, end to
end with the real model. ``import-benchmark``: a benchmark folder or zip in its published layout becomes a catalog
and a query set, with what was left out reported; bad input stores nothing."""

import json
import shutil
from pathlib import Path

import pytest

from core.cli import main
from storage.catalogs import list_catalogs, list_query_sets, load_queries
from storage.db import make_engine

BENCH = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"

pytestmark = pytest.mark.slow


def test_import_index_search_eval(tiny_files, capsys):
    tools, queries, db = tiny_files
    assert main(["import", str(tools), "--queries", str(queries), "--name", "tiny", "--db", db, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"catalog": "tiny", "version": 1, "tools": 6, "reused": False, "query_set": "tiny_q", "queries": 3,
                   "dropped_launch_fields": []}

    assert main(["index", "tiny", "--db", db, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["encoded"] == 6 and first["tools_per_second"] > 0
    assert main(["index", "tiny", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["encoded"] == 0  # second start re-encodes nothing

    assert main(["search", "tiny", "how much is 20 pounds in yen", "--db", db, "--json", "-k", "2"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits[0]["key"] == "convert_currency" and len(hits) == 2

    assert main(["eval", "--tools", str(tools), "--queries", str(queries), "--strategy", "query",
                 "--mode", "hybrid", "-k", "5", "--db", db, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("n_queries", "ndcg@5", "precision@5", "recall@5", "comprehensiveness@5", "mrr", "seconds"):
        assert key in result
    assert result["n_queries"] == 3 and result["strategy"] == "query"
    assert result["recall@5"] >= 0.5


def test_bad_file_is_a_clear_error(tiny_files, capsys, tmp_path):
    _, _, db = tiny_files
    bad = tmp_path / "bad.json"
    bad.write_text("")
    assert main(["import", str(bad), "--name", "x", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "empty" in err


def test_export_formats_and_delete(tiny_files, capsys, tmp_path):
    tools, queries, db = tiny_files
    assert main(["import", str(tools), "--queries", str(queries), "--name", "tiny", "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["export", "tiny", "--db", db]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain and all(set(e) == {"type", "function"} for e in plain)  # nothing but what the API reads
    out = tmp_path / "atlas.json"
    assert main(["export", "tiny", "--format", "atlas", "--out", str(out), "--db", db]) == 0
    assert all("key" in e for e in json.loads(out.read_text()))

    assert main(["delete", "tiny", "--db", db]) == 1  # without --yes: says what would go, deletes nothing
    assert "1 version(s), 1 query set(s)" in capsys.readouterr().err
    assert main(["catalogs", "--db", db, "--json"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)] == ["tiny"]
    assert main(["delete", "tiny", "--yes", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"deleted": "tiny", "versions": 1, "tools": 6, "query_sets": 1,
                                                   "runs": 0}
    assert main(["catalogs", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["delete", "tiny", "--yes", "--db", db]) == 2
    assert "no catalog named 'tiny'" in capsys.readouterr().err


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
