from types import SimpleNamespace

import numpy as np
import pytest

from core.models import Tool
from core.overlap import (
    KEPT_APART,
    LOOK_ALIKE,
    MERGED,
    SINGLE,
    SMALLER,
    OverlapLink,
    cluster_groups,
    merge_links,
    merged_layer,
    neighbour_links,
)


def _tools(*keys):
    return [Tool(k, f"{k}_fn", f"{k} tool", {"type": "object"}) for k in keys]


def test_merged_layer_keeps_each_kept_tool_label_from_the_original_map():
    tools = _tools("a", "b", "c", "d")
    coords = np.arange(8, dtype=np.float32).reshape(4, 2)
    phi = {"a": "a", "b": "a", "c": "c", "d": "d"}
    layer = merged_layer(tools, coords, phi, ("weather", "weather", "money", "maps"))
    assert layer.keys == ("a", "c", "d") and layer.groups == ("weather", "money", "maps")
    assert layer.coords.tolist() == [[0, 1], [4, 5], [6, 7]]
    # without labels, the merge clusters: a stands for {a, b}; c and d merged with nothing
    assert merged_layer(tools, coords, phi).groups == ("a_fn", SINGLE, SINGLE) == tuple(
        g for g, t in zip(cluster_groups(tools, phi), tools, strict=True) if t.key != "b")
    with pytest.raises(ValueError, match="3 groups"):
        merged_layer(tools, coords, phi, ("x", "y", "z"))


def test_merge_links_follow_phi_after_review():
    pair = lambda a, b, cos, same: SimpleNamespace(a=a, b=b, cosine=cos, same=same)  # noqa: E731 - a PairVerdict's fields
    phi = {"a": "a", "b": "a", "c": "c", "d": "d"}
    links = merge_links([pair("a", "b", 0.91, True), pair("c", "d", 0.85, True), pair("a", "zz", 0.9, False)], phi)
    assert links == (OverlapLink("a", "b", 0.91, MERGED, True),
                     # the judge said same job, the reviewer rejected the cluster: kept apart
                     OverlapLink("c", "d", 0.85, KEPT_APART, True))


def test_neighbour_links_are_the_close_pairs_only():
    tools = _tools("a", "b", "c")
    vectors = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]], dtype=np.float32)  # cos(a, b) = 0.96
    links = neighbour_links(tools, vectors, 0.9, k=2)
    assert [(x.a, x.b, x.kind) for x in links] == [("a", "b", LOOK_ALIKE)] and links[0].cosine == pytest.approx(0.96)
    assert len(neighbour_links(tools, vectors, 0.2, k=2)) == 2  # b–c (0.28) joins; a–c (0.0) never
    with pytest.raises(ValueError, match="link kind"):
        OverlapLink("a", "b", 0.9, "similar")


def test_cluster_groups_pool_the_smaller_clusters_past_top():
    tools = _tools(*"abcdefg")
    # a stands for {a, b, c}; d for {d, e}; f for {f, g}: three clusters, room for two
    phi = {"a": "a", "b": "a", "c": "a", "d": "d", "e": "d", "f": "f", "g": "f"}
    assert cluster_groups(tools, phi, top=2) == ("a_fn",) * 3 + ("d_fn",) * 2 + (SMALLER,) * 2  # ties by name
    assert cluster_groups(tools, {**phi, "f": "f", "g": "g"}, top=2)[-2:] == (SINGLE, SINGLE)
