"""``toolatlas eval``. With ``--tools FILE`` the file is stored under a name the user sees (or gives), never a
made-up one; ``--mode`` / ``--alpha`` reach the strategies that take them."""

import json

import pytest

from core.cli import main
from core.cli.entry import build_parser

pytestmark = pytest.mark.slow  # the CLI loads the real embedding model


@pytest.fixture
def files(tmp_path, tiny_tools, tiny_queries):
    tools = tmp_path / "shop.json"
    tools.write_text(json.dumps([t.to_openai() for t in tiny_tools]))
    queries = tmp_path / "shop_q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": q.id, "query": q.text, "gold": list(q.gold), "split": q.split})
                                 for q in tiny_queries))
    other = tmp_path / "elsewhere" / "shop.json"  # the same file name, other tools
    other.parent.mkdir()
    other.write_text(json.dumps([t.to_openai() for t in tiny_tools[:4]]))
    return tools, queries, other, f"sqlite:///{tmp_path / 'cli.db'}"


def _catalogs(db):
    from storage.catalogs import list_catalogs
    from storage.db import make_engine

    engine = make_engine(db)
    try:
        return {c.name: [v.number for v in c.versions] for c in list_catalogs(engine)}
    finally:
        engine.dispose()


def test_the_file_is_stored_under_its_own_name_and_reused(files, capsys):
    tools, queries, _, db = files
    args = ["eval", "--tools", str(tools), "--queries", str(queries), "-k", "3", "--db", db, "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # stdout stays one JSON line
    assert (out["catalog"], out["version"], out["query_set"], out["n_queries"]) == ("shop", 1, "shop_q", 3)
    assert "shop.json is catalog 'shop' v1 (stored as a new catalog)" in captured.err
    assert main(args) == 0
    assert "catalog 'shop' v1 (unchanged, reused)" in capsys.readouterr().err
    # the queries are kept with the catalog: a later eval of the same file needs no --queries
    assert main(["eval", "--tools", str(tools), "-k", "3", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["query_set"] == "shop_q"
    assert _catalogs(db) == {"shop": [1]}  # no hash-named catalogs


def test_another_file_under_a_taken_name_is_refused_unless_named(files, capsys):
    tools, queries, other, db = files
    assert main(["eval", "--tools", str(tools), "--queries", str(queries), "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["eval", "--tools", str(other), "--queries", str(queries), "--db", db, "--json"]) == 2
    err = capsys.readouterr().err
    assert "a catalog named 'shop' already exists with other tools (v1, 6 tools)" in err
    assert "toolatlas eval NEW_NAME --tools" in err
    assert _catalogs(db) == {"shop": [1]}  # nothing stored

    small_queries = queries.parent / "small_q.jsonl"
    small_queries.write_text(queries.read_text().splitlines()[1] + "\n")  # q2: convert_currency, still a tool
    assert main(["eval", "shop_small", "--tools", str(other), "--queries", str(small_queries), "--db", db,
                 "--json"]) == 0
    assert "catalog 'shop_small' v1 (stored as a new catalog)" in capsys.readouterr().err
    assert main(["eval", "shop", "--tools", str(other), "--queries", str(small_queries), "--db", db, "--json"]) == 0
    captured = capsys.readouterr()
    assert "catalog 'shop' v2 (stored as a new version)" in captured.err
    assert json.loads(captured.out)["version"] == 2
    assert _catalogs(db) == {"shop": [1, 2], "shop_small": [1]}


def test_help_says_where_the_file_goes():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = sub.choices["eval"].format_help()
    assert "stored as catalog NAME" in text and "file name without" in text and "extension" in text


def test_search_options_reach_strategies_that_take_them_and_are_refused_elsewhere():
    from argparse import Namespace

    from core.cli.evaluate import _search_options

    params = {}
    _search_options(Namespace(strategy="toolscope", mode=None, alpha=0.3), params)
    assert params == {"alpha": 0.3}  # it used to be dropped for every strategy but `query`
    params = {"alpha": 0.9}
    _search_options(Namespace(strategy="query", mode="hybrid", alpha=0.3), params)
    assert params == {"alpha": 0.9, "mode": "hybrid"}  # an explicit --param wins
    with pytest.raises(ValueError, match="--alpha does not apply to strategy 'memetic'"):
        _search_options(Namespace(strategy="memetic", mode=None, alpha=0.3), {})


def test_memetic_eval_reports_fitness_against_the_truth_and_takes_a_session_memory(files, capsys):
    tools, queries, _, db = files
    assert main(["eval", "--tools", str(tools), "--queries", str(queries), "-k", "3", "--db", db, "--json",
                 "--strategy", "memetic", "--param", "generations=2", "--param", "memory=session"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fitness_truth_members"] > 0 and "fitness_truth_spearman" in out
    assert main(["eval", "--tools", str(tools), "-k", "3", "--db", db, "--strategy", "memetic",
                 "--param", "memory=always"]) == 2
    assert "valid modes: query, session" in capsys.readouterr().err
