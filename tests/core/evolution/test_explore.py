import random

import numpy as np
import pytest

from core.evolution.explore import (
    Anchors,
    ExploreConfig,
    execute_probe,
    explore_tool,
    filter_redundant,
    related_tools,
    trace_summary,
)
from core.evolution.offline import OfflineAdaptationOperators
from core.evolution.roles import KNOWN, Probe
from core.execution.router import ExecutorRouter
from core.execution.sandbox import PythonFunction, SandboxExecutor
from core.models import Tool
from core.trials.evidence import TrialOutcome

PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "City (e.g. 'Porto')."}},
          "required": ["city"]}
NEW = Tool("pollen", "pollen_count", "Pollen levels in a city.", PARAMS)
ANCHORS = (Tool("air", "air_quality", "Air quality index in a city.", PARAMS),
           Tool("uv", "uv_index", "UV index in a city.", PARAMS),
           Tool("fx", "convert_currency", "Converts money between currencies.", {}))
SOURCE = """
def pollen_count(city):
    return {"city": city, "grass": 3, "tree": 1, "weed_pollen": 0}
"""


def unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_related_tools_threshold_then_sample():
    anchors = Anchors(ANCHORS, tuple(t.description for t in ANCHORS),
                      np.stack([unit([1, 0.2]), unit([1, 0.5]), unit([0, 1])]))
    pool, sample = related_tools(unit([1, 0]), anchors, tau=0.8, k=5, rng=random.Random(0))
    assert [i for i, _ in pool] == [0, 1]  # Eq. 1: the currency tool is below τ
    assert sorted(i for i, _ in sample) == [0, 1]
    _, one = related_tools(unit([1, 0]), anchors, tau=0.8, k=1, rng=random.Random(0))
    assert len(one) == 1 and one[0][0] in (0, 1)  # Eq. 2: k of N_i
    assert related_tools(unit([1, 0]), Anchors((), (), np.zeros((0, 2))), 0.5, 3, random.Random(0)) == ([], [])


def test_redundancy_filter_against_explored_and_within_batch():
    vecs = np.stack([unit([1, 0]), unit([1, 0.01]), unit([0, 1])])
    kept, dropped = filter_redundant(["a", "a again", "b"], vecs, np.zeros((0, 2)), 0.95)
    assert kept == [0, 2] and dropped == [1]
    kept, dropped = filter_redundant(["b"], vecs[2:], np.stack([unit([0, 1])]), 0.95)
    assert kept == [] and dropped == [0]


def test_probe_without_executor_is_recorded_not_executed():
    tr = execute_probe(NEW, Probe(KNOWN, "pollen in Porto", {"city": "Porto"}), None, ExploreConfig())
    assert not tr.executed and tr.outcome == TrialOutcome.NOT_EXECUTED and tr.arguments == {"city": "Porto"}


@pytest.fixture
def router():
    sandbox = SandboxExecutor({"pollen": PythonFunction.from_source(SOURCE, "pollen_count")}, timeout=10.0)
    with ExecutorRouter([sandbox]) as r:
        yield r


def test_probe_runs_through_a_real_executor(router):
    tr = execute_probe(NEW, Probe(KNOWN, "pollen in Porto", {"city": "Porto"}), router, ExploreConfig())
    assert tr.executed and tr.ok and tr.response["grass"] == 3


def test_exploration_refines_from_execution_and_stops(router, hashing_embedder):
    embed = hashing_embedder.encode
    bodies = tuple(t.description for t in ANCHORS)
    anchors = Anchors(ANCHORS, bodies, embed(list(bodies)))
    config = ExploreConfig(tau=0.1, k=2, max_iterations=3)
    result = explore_tool(NEW, NEW.description, anchors, OfflineAdaptationOperators(seed=0), embed, router=router,
                          config=config, rng=random.Random(0))
    assert result.before == "Pollen levels in a city."
    assert result.after.startswith("Pollen levels in a city.")
    assert "grass" in result.after and "weed pollen" in result.after  # fields the response really had
    assert result.traces and all(t.executed for t in result.traces)
    assert 1 <= len(result.iterations) <= 3
    assert result.stop in {"converged", "budget", "no new probes"}
    first = result.iterations[0]
    assert first["related"] and all(k in {"air", "uv", "fx"} for k, _ in first["related"])
    assert "Worked for" in trace_summary(result.traces)
    again = explore_tool(NEW, NEW.description, anchors, OfflineAdaptationOperators(seed=0), embed, router=router,
                         config=config, rng=random.Random(0))
    assert again.after == result.after  # reproducible for a seed


def test_exploration_without_executor_learns_nothing_it_cannot_show(hashing_embedder):
    embed = hashing_embedder.encode
    anchors = Anchors((), (), np.zeros((0, hashing_embedder.dim), dtype=np.float32))
    result = explore_tool(NEW, NEW.description, anchors, OfflineAdaptationOperators(seed=0), embed,
                          config=ExploreConfig(max_iterations=2), rng=random.Random(0))
    # the only probes are restatements of the description: no evidence, so no new sentence
    assert result.after == result.before
    assert result.traces and not any(t.executed for t in result.traces)


def test_explore_config_validation():
    with pytest.raises(ValueError, match="tau"):
        ExploreConfig(tau=1.5)
    with pytest.raises(ValueError, match="max_iterations"):
        ExploreConfig(max_iterations=0)
