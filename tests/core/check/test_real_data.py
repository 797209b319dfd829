"""The check on real catalogs with the real embedding model: the demo's v4 → v5 (assets/demo/versions, see
CHANGES.md there) and a slice of Seal-Tools with a planted duplicate."""

from __future__ import annotations

import dataclasses
import json

import pytest

from core.check.inputs import CatalogInput
from core.check.service import CheckConfig, run_check
from core.importers.openai_tools import load_openai_tools
from core.importers.queries import parse_queries_jsonl
from core.search.engine import BoundedVectorCache
from core.workspace import DEMO_DIR
from tests.conftest import dataset_dir

pytestmark = pytest.mark.slow  # the real embedding model


def _version(n: int) -> CatalogInput:
    return CatalogInput(f"demo v{n}", load_openai_tools(DEMO_DIR / "versions" / f"v{n}.json", source="demo"), "file")


def test_demo_v4_to_v5_expected_findings(minilm):
    base, new = _version(4), _version(5)
    qpath = DEMO_DIR / "queries.jsonl"
    queries = parse_queries_jsonl(qpath.read_bytes(), str(qpath), known_keys={t.key for t in new.tools})
    result = run_check(base, new, embedder=minilm, cache=BoundedVectorCache(), queries=queries,
                       config=CheckConfig(k=5))
    d = result.changes.diff
    assert (len(base.tools), len(new.tools)) == (306, 312)
    assert set(d.added) == {"hourly_forecast", "get_bank_holidays_for_markets", "find_grocery_stores",
                            "share_calendar", "upload_file", "rewrite_text", "text_to_speech",
                            "radio_station_search", "cron_explain"}
    assert set(d.removed) == {"book_taxi_legacy", "print_document", "sms_gateway_v1"}
    assert len(d.changed) == 4 and d.renamed == ()
    assert {(b.key, b.kind) for b in result.changes.breaking} == {(k, "tool removed") for k in d.removed}
    assert not any(o.same for o in result.overlaps)  # v5 adds no second copy of a tool
    r = result.retrieval
    assert [q.causes[0].by[:1] for q in r.regressions] == [("hourly_forecast",)]  # outranked by the new tool
    assert r.after["ndcg@5"] < r.before["ndcg@5"] and r.discovered == ()
    assert result.fired == ("breaking", "regression") and result.exit_code == 1


def test_seal_tools_slice_with_a_planted_duplicate(minilm):
    tools = load_openai_tools(dataset_dir("seal_tools") / "tools.json", source="seal")
    base = tuple(t for t in tools if t.category.startswith(("Chemical Engineering", "Library Science")))
    victim = next(t for t in base if t.key == "analyzeEvidence")
    twin = dataclasses.replace(victim, key="analyze_evidence", name="analyze_evidence",
                               description=victim.description + ".")
    result = run_check(CatalogInput("seal slice", base, "file"), CatalogInput("seal slice + twin", (*base, twin), "file"),
                       embedder=minilm, cache=BoundedVectorCache(), config=CheckConfig())
    same = [(o.key, o.other) for o in result.overlaps if o.same]
    assert same == [("analyze_evidence", "analyzeEvidence")]
    assert result.fired == ("overlap",) and result.changes.diff.added == ("analyze_evidence",)
    assert json.loads(json.dumps(result.to_json()))["overlaps"][0]["nearest_existing"] == "analyzeEvidence"
