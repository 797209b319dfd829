"""``core.grid``: a grid file is checked strictly, expands into a stable, hand-countable list of cells, shards
into disjoint slices that cover it, and runs each cell once with ``evaluate`` (a finished cell is skipped, in
this grid or another that shares it)."""

from __future__ import annotations

import pytest

from core.grid import (
    RAN,
    SKIPPED,
    Backend,
    QueryInput,
    cell_status,
    expand,
    parse_grid,
    parse_shard,
    run_cells,
    shard,
)

SWEEP = """
name: sweep
catalog: demo@v5
query_set: [demo, demo_timeline]
limit: 3
k: [3, 5]
strategies:
  - query
  - name: query
    params: {mode: [bm25, hybrid], alpha: [0.3, 0.7]}
  - name: single_pass
    params: {k_ret: 10}
llm: [offline, {kind: openai, base_url: "http://127.0.0.1:9/v1", model: tiny}]
"""


def test_a_grid_expands_in_a_stable_hand_checkable_order():
    spec = parse_grid(SWEEP)
    assert (spec.catalog, spec.version, spec.query_sets, spec.ks, spec.limit) == ("demo", 5, ("demo", "demo_timeline"),
                                                                                 (3, 5), 3)
    cells = expand(spec)
    # per query set and k: query (1) + query mode x alpha (2 x 2) + single_pass x 2 backends (2) = 7; x 2 sets x 2 k
    assert len(cells) == 2 * 2 * (1 + 4 + 2) == 28
    assert [c.index for c in cells] == list(range(28))
    first = cells[:7]
    assert [(c.strategy, c.params, c.llm and c.llm.kind) for c in first] == [
        ("query", (), None),
        ("query", (("mode", "bm25"), ("alpha", 0.3)), None),  # the last parameter varies fastest
        ("query", (("mode", "bm25"), ("alpha", 0.7)), None),
        ("query", (("mode", "hybrid"), ("alpha", 0.3)), None),
        ("query", (("mode", "hybrid"), ("alpha", 0.7)), None),
        ("single_pass", (("k_ret", 10),), "offline"),
        ("single_pass", (("k_ret", 10),), "openai"),
    ]
    assert {(c.query_set, c.k) for c in first} == {("demo", 3)}
    assert [(c.query_set, c.k) for c in cells[::7]] == [("demo", 3), ("demo", 5), ("demo_timeline", 3),
                                                         ("demo_timeline", 5)]
    assert cells[6].label == 'single_pass (k_ret=10) [openai:tiny] k=3 on demo'
    assert expand(parse_grid(SWEEP)) == cells  # the same file, the same list


def test_the_same_configuration_twice_is_one_cell():
    spec = parse_grid("""
name: twice
catalog: demo
strategies: [query, query, {name: query, params: {alpha: [0.5, 0.5]}}, {name: query, params: {alpha: 0.5}}]
llm: [offline, offline, {kind: openai, model: m}]
""")
    cells = expand(spec)
    # `query` takes no LLM: one cell per configuration whatever the backends
    assert [(c.strategy, c.params, c.llm) for c in cells] == [("query", (), None), ("query", (("alpha", 0.5),), None)]
    assert spec.llms == (Backend("offline"), Backend("openai", None, "m"))


@pytest.mark.parametrize("text, message", [
    ("name: x\ncatalog: demo\nstrategies: [query]\nqueries: 5", "unknown key 'queries' in the grid; valid keys"),
    ("name: x\ncatalog: demo\nstrategies: [nope]", "unknown strategy 'nope'; valid strategies: query, single_pass"),
    ("name: x\ncatalog: demo\nstrategies: [{name: query, params: {beta: 1}}]",
     "strategy 'query' has no parameter 'beta'; valid parameters: alpha, mode, rerank"),
    ("name: x\ncatalog: demo\nstrategies: [{name: query, param: {alpha: 1}}]", "unknown key 'param' in strategy"),
    ("name: x\ncatalog: demo\nstrategies: []", "'strategies' must be a non-empty list"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nk: 0", "'k' must be a positive integer, got 0"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nlimit: true", "'limit' must be a positive integer, got True"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nk: []", "'k' is an empty list"),
    ("name: x\ncatalog: demo@5\nstrategies: [query]", "'catalog' is NAME or NAME@vN"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nllm: gpt", "unknown llm kind 'gpt'; valid kinds: offline, openai"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nllm: {kind: openai}", "an openai llm backend needs 'model'"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nllm: {kind: openai, model: m, key: s}",
     "unknown key 'key' in an llm backend"),
    ("catalog: demo\nstrategies: [query]", "missing 'name'"),
    ("- just a list", "a grid file is a mapping"),
    ("name: [unclosed", "not valid YAML"),
    ("name: x\ncatalog: demo\nstrategies: [query]\nseed: !!python/object/apply:os.system [echo]", "not valid YAML"),
])
def test_a_bad_grid_file_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match="^GRID.yaml: ") as info:
        parse_grid(text, source="GRID.yaml")
    assert message in str(info.value)


def test_shards_are_disjoint_and_cover_the_grid():
    cells = expand(parse_grid(SWEEP))
    for count in (1, 2, 3, 5, 28, 40):
        slices = [shard(cells, i, count) for i in range(count)]
        indices = [c.index for s in slices for c in s]
        assert sorted(indices) == list(range(28)) and len(indices) == len(set(indices))
    assert [c.index for c in shard(cells, 1, 4)] == [1, 5, 9, 13, 17, 21, 25]  # round-robin
    assert shard(cells, 39, 40) == ()  # more shards than cells: some run nothing


@pytest.mark.parametrize("text, parsed", [("0/1", (0, 1)), ("3/4", (3, 4)), (" 1 / 2 ", (1, 2))])
def test_a_shard_spec_is_zero_based(text, parsed):
    assert parse_shard(text) == parsed


@pytest.mark.parametrize("text", ["2/2", "4/4", "0/0", "1", "-1/2", "a/b", "1/2/3", ""])
def test_a_bad_shard_spec_is_refused(text):
    with pytest.raises(ValueError, match="0-based"):
        parse_shard(text)


def test_cells_run_once_and_finished_ones_are_skipped_in_any_grid(db, hashing_embedder):
    from core.evaluation import run_rows
    from core.workspace import Workspace
    from storage.catalogs import get_version, list_query_sets, load_queries
    from storage.runs import grid_names, grid_run_ids, list_runs

    ws = Workspace(db, hashing_embedder)
    ws.ensure_demo()
    version = get_version(db, "demo", 5)
    demo = next(s for s in list_query_sets(db, "demo") if s.name == "demo")
    inputs = {"demo": QueryInput(demo.id, tuple(load_queries(db, demo.id)[:3]))}
    spec = parse_grid("name: a\ncatalog: demo@v5\nquery_set: demo\nk: 3\nstrategies:\n"
                      "  - {name: query, params: {mode: [dense, bm25]}}\n")
    cells = expand(spec)
    assert [cell_status(ws, version.id, inputs, c)[0] for c in cells] == ["todo", "todo"]

    first = run_cells(ws, "a", cells, version.id, inputs)
    assert [r.status for r in first] == [RAN, RAN]
    assert [cell_status(ws, version.id, inputs, c) for c in cells] == [("done", r.run_id) for r in first]
    again = run_cells(ws, "a", cells, version.id, inputs)
    assert [(r.status, r.run_id) for r in again] == [(SKIPPED, r.run_id) for r in first]
    assert len(list_runs(db, kind="eval")) == 2  # nothing stored twice

    # another grid sharing the bm25 cell: it is not run again, and it is a run of both grids
    other = expand(parse_grid("name: b\ncatalog: demo@v5\nquery_set: demo\nk: 3\nstrategies:\n"
                              "  - {name: query, params: {mode: [bm25, hybrid]}}\n"))
    shared = run_cells(ws, "b", other, version.id, inputs)
    assert [r.status for r in shared] == [SKIPPED, RAN] and shared[0].run_id == first[1].run_id
    assert grid_names(db) == ("a", "b")
    assert set(grid_run_ids(db, "a")) == {r.run_id for r in first}
    assert set(grid_run_ids(db, "b")) == {r.run_id for r in shared}
    rows = run_rows(ws, grid="b")
    assert [r.run_id for r in rows] == sorted((r.run_id for r in shared), reverse=True)
    assert {r.params for r in rows} == {"mode=bm25", "mode=hybrid"}
    assert len(run_rows(ws)) == 3 and run_rows(ws, grid="nope") == ()


def test_the_readme_grid_expands_to_the_cells_it_says():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Grids of runs", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    cells = expand(parse_grid(example, source="README.md"))
    assert "This grid has 1 + 3 + 2 × 2 = 8 cells" in section and len(cells) == 8
    assert [c.strategy for c in cells] == ["query"] * 4 + ["memetic"] * 4
    assert [c.llm.kind for c in cells[4:]] == ["offline", "openai", "offline", "openai"]
