"""The committed demo catalog meets its brief and is exactly what the generator writes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"


def load(name):
    return json.loads((DEMO / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tools():
    return load("tools.json")


@pytest.fixture(scope="module")
def queries():
    return [json.loads(line) for line in (DEMO / "queries.jsonl").read_text(encoding="utf-8").splitlines()]


def test_catalog_size_categories_and_schemas(tools):
    keys = [t["key"] for t in tools]
    assert len(tools) >= 300 and len(set(keys)) == len(keys)
    assert len({t["category"] for t in tools}) >= 12
    for t in tools:
        fn = t["function"]
        assert fn["name"] and fn["description"]
        params = fn["parameters"]
        assert params["type"] == "object" and isinstance(params["properties"], dict)
        assert set(params["required"]) <= set(params["properties"])


def test_overlap_groups(tools):
    keys = {t["key"] for t in tools}
    groups = load("overlap_groups.json")
    members = [k for g in groups for k in g["keys"]]
    assert len(members) == len(set(members)), "a tool sits in two groups"
    assert set(members) <= keys
    assert len(groups) >= 30 and all(2 <= len(g["keys"]) <= 5 for g in groups)
    assert sum(g["kind"] == "duplicate" for g in groups) >= 18
    assert sum(g["kind"] == "lookalike" for g in groups) >= 10


def test_queries(tools, queries):
    keys = {t["key"] for t in tools}
    assert len(queries) >= 200 and len({q["id"] for q in queries}) == len(queries)
    assert sum(len(q["gold"]) > 1 for q in queries) / len(queries) >= 0.40
    for q in queries:
        assert q["query"].strip() and set(q["gold"]) <= keys and set(q.get("gold_alternatives", [])) <= keys
        assert q["split"] in {"dev", "test"}


def test_versions_grow_with_additions_removals_rewrites(tools):
    versions = [load(f"versions/v{i}.json") for i in range(1, 6)]
    assert versions[-1] == tools
    added = removed = rewritten = 0
    for prev, cur in zip(versions, versions[1:], strict=False):
        a, b = {t["key"]: t for t in prev}, {t["key"]: t for t in cur}
        added += len(b.keys() - a.keys())
        removed += len(a.keys() - b.keys())
        rewritten += sum(1 for k in a.keys() & b.keys() if a[k] != b[k])
        assert all(a[k]["category"] == b[k]["category"] for k in a.keys() & b.keys())
    assert added >= 15 and removed >= 10 and rewritten >= 10


def test_generator_reproduces_committed_files(tmp_path):
    subprocess.run([sys.executable, str(DEMO / "build_demo.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    for name in ["tools.json", "overlap_groups.json", "queries.jsonl", "versions/v1.json", "versions/v3.json",
                 "versions/CHANGES.md"]:
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name
