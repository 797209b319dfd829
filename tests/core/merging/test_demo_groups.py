"""The demo catalog's planted groups: duplicates should merge, look-alikes must not (real MiniLM vectors)."""

import itertools
import json
from pathlib import Path

import pytest

from core.importers.openai_tools import load_openai_tools
from core.llm.framework import make_roles
from core.merging.pipeline import MergeConfig, run_merge
from core.search.engine import SearchEngine

DEMO = Path(__file__).resolve().parents[3] / "assets" / "demo"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo(minilm):
    tools = load_openai_tools(DEMO / "tools.json")
    groups = json.loads((DEMO / "overlap_groups.json").read_text())
    pairs = {kind: {frozenset(p) for g in groups if g["kind"] == kind for p in itertools.combinations(g["keys"], 2)}
             for kind in ("duplicate", "lookalike")}
    return SearchEngine.build(tools, minilm), pairs


# Floors a little under what was measured (offline judge merge-rules-v2, MiniLM, Auto-Correction on), as
# shares of the 61 planted duplicate pairs: θ 0.82 P 1.00 R 0.15; θ 0.77 P 1.00 R 0.28; θ 0.72 P 1.00 R 0.41;
# θ 0.68 (recommended for MiniLM, core/merging/calibration.py) P 1.00 R 0.52. Recall is bounded by the
# candidates: most planted duplicates sit between cosine 0.5 and 0.8 with MiniLM, so few reach a high θ.
@pytest.mark.parametrize("threshold,min_precision,min_recall", [(0.82, 1.0, 0.14), (0.77, 0.95, 0.27),
                                                                (0.72, 0.95, 0.4), (0.68, 0.95, 0.5)])
def test_planted_duplicates_merge_and_lookalikes_do_not(demo, threshold, min_precision, min_recall):
    engine, planted = demo
    result = run_merge(engine.tools, engine.vectors, make_roles("merge", "offline"),
                       MergeConfig(threshold=threshold))
    merged = {frozenset(p) for c in result.clusters for g in c.groups for p in itertools.combinations(g, 2)}
    hits = merged & planted["duplicate"]
    assert merged, "nothing merged"
    assert len(hits) / len(merged) >= min_precision
    assert len(hits) / len(planted["duplicate"]) >= min_recall
    assert not merged & planted["lookalike"]


def test_autocorrection_splits_chained_clusters_at_a_low_threshold(demo):
    engine, planted = demo
    result = run_merge(engine.tools, engine.vectors, make_roles("merge", "offline"),
                       MergeConfig(threshold=0.72))
    assert result.merge_bad >= 1
    without = run_merge(engine.tools, engine.vectors, make_roles("merge", "offline"),
                        MergeConfig(threshold=0.72, autocorrect=False))
    assert without.merge_ok == without.merge_bad == 0
    assert len(set(result.phi.values())) > len(set(without.phi.values()))  # splits keep more tools
