from dataclasses import replace

import numpy as np
import pytest

from core.embedding import encode_cached
from core.evolution.maps import step_counts, step_map, step_status, union_keys
from core.evolution.service import EvolutionRun
from core.models import tool_text
from core.projection import project
from core.workspace import Workspace

# a hand-made sequence: b leaves at t1 while d arrives; a leaves at t2 while e arrives; c is rewritten at t2
SEQ = {
    "source": "versions", "labels": ["v1", "v2", "v3"], "config": {},
    "keys": [["a", "b", "c"], ["a", "c", "d"], ["c", "d", "e"]],
    "diffs": [
        {"added": ["d"], "removed": ["b"], "retained": ["a", "c"], "changed": [], "renamed": []},
        {"added": ["e"], "removed": ["a"], "retained": ["c", "d"], "changed": ["c"], "renamed": []},
    ],
}


def test_union_keeps_first_seen_order():
    assert union_keys(SEQ) == ["a", "b", "c", "d", "e"]


def test_step_status_by_hand():
    assert step_status(SEQ, 0) == {"a": "retained", "b": "retained", "c": "retained", "d": "absent",
                                   "e": "absent"}
    assert step_status(SEQ, 1) == {"a": "retained", "b": "removed", "c": "retained", "d": "added",
                                   "e": "absent"}
    assert step_status(SEQ, 2) == {"a": "removed", "b": "absent", "c": "retained", "d": "retained",
                                   "e": "added"}
    with pytest.raises(ValueError, match="out of range"):
        step_status(SEQ, 3)


def test_step_counts_from_the_diffs():
    counts = step_counts(SEQ)
    assert counts[0] == {"retained": 3, "added": 0, "removed": 0, "changed": 0, "renamed": 0}
    assert counts[1] == {"retained": 2, "added": 1, "removed": 1, "changed": 0, "renamed": 0}
    assert counts[2] == {"retained": 2, "added": 1, "removed": 1, "changed": 1, "renamed": 0}


def _tool(key, desc):
    from core.models import Tool

    return Tool(key=key, name=key, description=desc,
                parameters={"type": "object", "properties": {}, "required": []}, category="misc")


@pytest.fixture
def ws(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    ws.import_tools("tiny", [_tool("a", "weather now in a city"), _tool("b", "send an email"),
                             _tool("c", "convert money between currencies")], label="v1")
    ws.import_tools("tiny", [_tool("a", "weather now in a city"), _tool("c", "convert money between currencies"),
                             _tool("d", "translate text to another language")], label="v2")
    ws.import_tools("tiny", [_tool("c", "convert an amount of money into another currency"),
                             _tool("d", "translate text to another language"), _tool("e", "stock price quote")],
                    label="v3")
    return ws


def test_step_map_places_every_tool_of_the_union(ws, hashing_embedder):
    run = EvolutionRun(1, {"catalog": "tiny"}, (), {0: SEQ}, (), {})
    keys, coords = step_map(ws, run, 0)
    assert keys == ["a", "b", "c", "d", "e"]
    assert coords.shape == (5, 2) and np.isfinite(coords).all()
    # the catalog text as imported, each key from the newest version holding it (c's v3 rewrite)
    from storage.catalogs import get_catalog

    versions = {v.number: v.id for v in get_catalog(ws.db, "tiny").versions}
    newest = {t.key: t for n in (1, 2, 3) for t in ws.tools(versions[n])}
    vectors, _ = encode_cached(hashing_embedder, [tool_text(newest[k]) for k in keys], None)
    expected, _ = project(vectors, "pca")
    assert np.allclose(coords, expected.coords, atol=1e-5)
    # vectors come from the cache the second time
    encoded = hashing_embedder.encoded
    again_keys, again = step_map(ws, run, 0)
    assert again_keys == keys and np.allclose(again, coords) and hashing_embedder.encoded == encoded


def test_step_map_rejects_an_unknown_seed(ws):
    run = EvolutionRun(1, {"catalog": "tiny"}, (), {0: SEQ}, (), {})
    with pytest.raises(ValueError, match="no sequence for seed 3"):
        step_map(ws, run, 3)
    empty = replace(run, sequences={0: {"keys": [[]], "diffs": []}})
    keys, coords = step_map(ws, empty, 0)
    assert keys == [] and coords.shape == (0, 2)
