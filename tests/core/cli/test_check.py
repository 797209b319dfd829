"""``toolatlas check``: exit 0 / 1 / 2, the Markdown and JSON outputs, and bad input that writes nothing."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from tests.core.check.conftest import BASE, QUERIES, replace

pytestmark = pytest.mark.slow  # the CLI loads the real embedding model


def _write(path, tools):
    path.write_text(json.dumps([t.to_openai() for t in tools]))
    return str(path)


@pytest.fixture
def files(tmp_path):
    base = _write(tmp_path / "base.json", BASE)
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": q.id, "query": q.text, "gold": list(q.gold)}) for q in QUERIES))
    return tmp_path, base, str(queries), f"sqlite:///{tmp_path / 'store.db'}"


def test_an_unchanged_catalog_exits_0_and_writes_its_report(files, capsys):
    tmp, base, queries, db = files
    report = tmp / "out.html"
    code = main(["check", base, base, "--queries", queries, "--db", db, "--report", str(report),
                 "--map-method", "pca", "--markdown"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("### ✅ toolatlas check: PASS")
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_breaking_change_exits_1_unless_left_out_of_fail_on(files, capsys):
    tmp, base, _, db = files
    new = _write(tmp / "new.json", BASE[1:])  # get_weather removed
    assert main(["check", base, new, "--db", db, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["failed"] == ["breaking"] and out["changes"]["removed"] == ["get_weather"]
    assert main(["check", base, new, "--db", db, "--json", "--fail-on", "overlap,regression"]) == 0


def test_a_stored_version_is_a_side(files, capsys):
    tmp, base, _, db = files
    assert main(["import", base, "--name", "shop", "--db", db]) == 0
    new = _write(tmp / "new.json", replace(BASE, "stock_quote", description=""))
    capsys.readouterr()
    assert main(["check", "shop@v1", new, "--db", db, "--json", "--fail-on", "docs"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["base"] == "shop v1" and out["failed"] == ["docs"]


@pytest.mark.parametrize("case, message", [
    ("missing", "no such file"),
    ("not json", "base.json"),
    ("duplicate keys", "duplicate"),
    ("bad rule", "unknown --fail-on rule 'speed'"),
    ("report folder", "does not exist"),
    ("unknown gold", "'no_such_tool' is not a tool"),
    ("unknown version", "no stored catalog 'shop'"),
])
def test_bad_input_exits_2_with_a_message_and_writes_nothing(files, capsys, case, message):
    tmp, base, queries, db = files
    new = base
    args = []
    if case == "missing":
        new = str(tmp / "nope.json")
    elif case == "not json":
        (tmp / "base.json").write_text("{ not json")
    elif case == "duplicate keys":
        new = _write(tmp / "dup.json", (*BASE, BASE[0]))
    elif case == "bad rule":
        args = ["--fail-on", "breaking,speed"]
    elif case == "report folder":
        args = ["--report", str(tmp / "no" / "r.html")]
    elif case == "unknown gold":
        bad = tmp / "bad_q.jsonl"
        bad.write_text(json.dumps({"id": "x", "query": "hello", "gold": ["no_such_tool"]}))
        args = ["--queries", str(bad)]
    elif case == "unknown version":
        new = "shop@v2"
    report = tmp / "r.html"
    assert main(["check", base, new, "--db", db, "--report", str(report), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolatlas: error:") and message in err
    assert not report.exists()
    store = tmp / "store.db"
    if case != "unknown version":  # the store is opened only to read a stored version
        assert not store.exists()
    else:
        from storage.catalogs import list_catalogs
        from storage.db import make_engine

        engine = make_engine(db)
        assert list_catalogs(engine) == ()
        engine.dispose()
