"""The ``toolatlas`` command line, end to end on a tiny catalog with the real model."""

import json

import pytest

from core.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture
def files(tmp_path, tiny_tools, tiny_queries):
    tools = tmp_path / "tiny.json"
    tools.write_text(json.dumps([t.to_openai() for t in tiny_tools]))
    queries = tmp_path / "tiny_q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": q.id, "query": q.text, "gold": list(q.gold), "split": q.split})
                                 for q in tiny_queries))
    return tools, queries, f"sqlite:///{tmp_path / 'cli.db'}"


def test_import_index_search_eval(files, capsys):
    tools, queries, db = files
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


def test_bad_file_is_a_clear_error(files, capsys, tmp_path):
    _, _, db = files
    bad = tmp_path / "bad.json"
    bad.write_text("")
    assert main(["import", str(bad), "--name", "x", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "empty" in err


def test_evolve_prints_per_method_metrics(files, capsys):
    tools, queries, db = files
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


def test_llm_transport_options_are_passed_and_kept_out_of_the_run_identity():
    from argparse import Namespace

    from core.cli import _llm

    base = dict(llm="openai", base_url="http://127.0.0.1:9/v1", llm_model="m", replay=False,
                llm_timeout=None, llm_retries=None, llm_concurrency=None)
    plain = _llm(Namespace(**base))
    tuned = _llm(Namespace(**{**base, "llm_timeout": 5.0, "llm_retries": 0, "llm_concurrency": 2}))
    assert plain.options == {} and tuned.options == {"timeout": 5.0, "max_retries": 0, "concurrency": 2}
    assert tuned.identity() == plain.identity()  # a retuned client still resumes the same run
    with pytest.raises(ValueError, match="--llm openai only"):
        _llm(Namespace(**{**base, "llm": "offline", "llm_retries": 2}))


def test_search_options_reach_strategies_that_take_them_and_are_refused_elsewhere():
    from argparse import Namespace

    from core.cli import _search_options

    params = {}
    _search_options(Namespace(strategy="toolscope", mode=None, alpha=0.3), params)
    assert params == {"alpha": 0.3}  # it used to be dropped for every strategy but `query`
    params = {"alpha": 0.9}
    _search_options(Namespace(strategy="query", mode="hybrid", alpha=0.3), params)
    assert params == {"alpha": 0.9, "mode": "hybrid"}  # an explicit --param wins
    with pytest.raises(ValueError, match="--alpha does not apply to strategy 'memetic'"):
        _search_options(Namespace(strategy="memetic", mode=None, alpha=0.3), {})


def test_query_set_is_chosen_explicitly_never_silently(db, hashing_embedder, tiny_tools, tiny_queries):
    from core.cli import pick_query_set
    from core.workspace import Workspace
    from storage.catalogs import import_queries

    ws = Workspace(db, hashing_embedder)
    ws.import_tools("shop", tiny_tools)
    with pytest.raises(ValueError, match="has no query set"):
        pick_query_set(ws, "shop", None)
    assert pick_query_set(ws, "shop", None, required=False) is None
    import_queries(db, "shop", "beta", tiny_queries)
    assert pick_query_set(ws, "shop", None).name == "beta"  # the only one
    import_queries(db, "shop", "alpha", tiny_queries)
    with pytest.raises(ValueError, match=r"several query sets \(alpha, beta\); choose one with --query-set"):
        pick_query_set(ws, "shop", None)
    assert pick_query_set(ws, "shop", "beta").name == "beta"
    import_queries(db, "shop", "shop", tiny_queries)
    assert pick_query_set(ws, "shop", None).name == "shop"  # the one named after the catalog
    with pytest.raises(ValueError, match="no query set 'gamma'; it has: alpha, beta, shop"):
        pick_query_set(ws, "shop", "gamma")


def test_export_formats_and_delete(files, capsys, tmp_path):
    tools, queries, db = files
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
