"""``toolatlas report RUN_ID -o OUT.html``: a stored run written as one HTML file; an unknown id or a kind
without a report exits 2 and writes nothing."""

import pytest

from core.cli import main
from storage import runs
from storage.db import make_engine


@pytest.fixture
def store(tmp_path):
    """One finished eval run at k = 2 over two queries (gold g found at rank 1, then missed), and one run of a kind
    with no report."""
    url = f"sqlite:///{tmp_path / 'report.db'}"
    engine = make_engine(url)
    run = runs.open_run(engine, "eval", {"k": 2, "strategy": "query", "params": {}}, strategy="query")
    runs.add_item(engine, run.id, "q0", {"query": "find <b>g</b>", "gold": ["g"], "keys": ["g", "x"], "selected": ["g"]})
    runs.add_item(engine, run.id, "q1", {"query": "find g again", "gold": ["g"], "keys": ["x", "y"], "selected": []})
    runs.finish_run(engine, run.id, {"recall@2": 0.5})
    other = runs.open_run(engine, "reinvoke_index", {"m": 1}, strategy="reinvoke")
    runs.finish_run(engine, other.id, {})
    engine.dispose()
    return url, run.id, other.id


def test_report_writes_the_run_as_one_html_file(store, tmp_path, capsys):
    url, run_id, _ = store
    out = tmp_path / "run.html"
    assert main(["report", str(run_id), "-o", str(out), "--db", url]) == 0
    doc = out.read_text(encoding="utf-8")
    assert f"evaluation run #{run_id} · strategy query (defaults) · k=2 · 2 queries" in doc
    assert "recall@2</td><td>0.5000" in doc and "find &lt;b&gt;g&lt;/b&gt;" in doc and "<b>g</b>" not in doc
    assert "class=\"plotly-graph-div\"" in doc
    assert f"report: {out}" in capsys.readouterr().err


@pytest.mark.parametrize("which", ["unknown", "no report"])
def test_an_unknown_id_or_a_kind_without_a_report_exits_2_and_writes_nothing(store, tmp_path, capsys, which):
    url, _, other = store
    out = tmp_path / "run.html"
    run_id = 999 if which == "unknown" else other
    assert main(["report", str(run_id), "-o", str(out), "--db", url]) == 2
    err = capsys.readouterr().err
    assert ("no run with id 999" in err) if which == "unknown" else ("reports exist for eval" in err)
    assert not out.exists()


def test_a_missing_folder_exits_2_before_the_store_is_read(store, tmp_path, capsys):
    url, run_id, _ = store
    assert main(["report", str(run_id), "-o", str(tmp_path / "nope" / "run.html"), "--db", url]) == 2
    assert "does not exist" in capsys.readouterr().err
