"""A store written by the code before the JSON-column change (schema 2, tests/assets/legacy_store_v1.sqlite.gz:
two eval runs, a Re-Invoke index, a merge run with two review decisions, a trials run, a timeline, the
ledger's calls and a registered MCP server on the demo catalog) still opens and reads back exactly what
that code read (tests/assets/legacy_store_v1.expect.json, written by the old code through the same public
functions)."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from storage import catalogs, ledger, merges, runs
from storage.db import make_engine

ASSETS = Path(__file__).resolve().parents[1] / "assets"


def _h(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()[:16]


def fingerprint(engine) -> dict:
    """What the old code's storage functions returned, hashed (the recipe the expectation was made with)."""
    out: dict = {"runs": {}, "catalogs": {}, "decisions": {}}
    for r in runs.list_runs(engine, limit=100):
        items = runs.load_items(engine, r.id)
        out["runs"][str(r.id)] = {"kind": r.kind, "status": r.status, "strategy": r.strategy, "config": _h(r.config),
                                  "metrics": _h(r.metrics), "n_items": len(items), "items": _h(items)}
    for c in catalogs.list_catalogs(engine):
        entry = {str(v.number): _h([[t.key, t.name, t.description, t.parameters, t.extra]
                                    for t in catalogs.load_tools(engine, v.id)]) for v in c.versions}
        entry["query_sets"] = {qs.name: _h([[q.id, q.text, list(q.gold), q.split]
                                            for q in catalogs.load_queries(engine, qs.id)])
                               for qs in catalogs.list_query_sets(engine, c.name)}
        out["catalogs"][c.name] = entry
    for r in merges.list_merge_runs(engine):
        out["decisions"][str(r.id)] = [[d.cluster_id, d.action, dict(d.payload)] for d in merges.list_decisions(engine, r.id)]
    calls = ledger.list_calls(engine, limit=100_000)
    out["ledger"] = {"n": len(calls), "hash": _h([[c.role, c.request_hash, c.prompt, c.response, c.error, c.run_id]
                                                  for c in calls])}
    out["mcp"] = {c.name: [[list(m.command), m.cwd] for m in catalogs.list_mcp_servers(engine, c.name)]
                  for c in catalogs.list_catalogs(engine)}
    return out


@pytest.fixture()
def legacy_engine(tmp_path):
    path = tmp_path / "legacy.sqlite"
    with gzip.open(ASSETS / "legacy_store_v1.sqlite.gz", "rb") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return make_engine(f"sqlite:///{path}")


def test_a_store_from_before_reads_back_unchanged(legacy_engine):
    expected = json.loads((ASSETS / "legacy_store_v1.expect.json").read_text(encoding="utf-8"))
    assert fingerprint(legacy_engine) == expected


def test_the_upgraded_store_takes_new_writes_and_reads_old_and_new(legacy_engine):
    decision = merges.record_decision(legacy_engine, 4, "c003", "move", {"key": "demo/x", "to_group": 1})
    back = merges.list_decisions(legacy_engine, 4)
    assert [d.action for d in back] == ["reject", "edit_doc", "move"]
    assert back[-1].payload == {"key": "demo/x", "to_group": 1} == dict(decision.payload)
    assert back[1].payload["description"] == "Convertit des unités — «métrique» ✓"
