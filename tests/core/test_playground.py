import math

import numpy as np

from core.playground import lineage, members, memory_readout, outcome
from core.search.engine import SearchEngine
from core.strategies.memory import ToolMemory
from core.strategies.registry import make_strategy
from tests.core.strategies.conftest import ScriptedOperators


def test_members_are_placed_with_fitness_and_retrievals(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    coords = np.random.default_rng(0).normal(size=(len(tiny_tools), 2)).astype(np.float32)
    res = make_strategy("memetic", engine, context={"operators": ScriptedOperators()}, threshold=5.0).retrieve(
        "weather forecast", 3)
    pop = members(res, engine, coords)
    assert {m.generation for m in pop} == {0, 1, 2}
    assert all(math.isfinite(m.x) and math.isfinite(m.y) for m in pop)
    seeds = [m for m in pop if m.origin == "seed"]
    assert len(seeds) == 6 and all(m.fitness is not None for m in seeds)  # seeds are scored in generation 1
    keys = {t.key for t in tiny_tools}
    assert all(set(m.top_keys) <= keys and m.top_keys for m in seeds)
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    assert all(lo[0] - 1e-5 <= m.x <= hi[0] + 1e-5 for m in pop)  # interpolated inside the map


def test_outcome_scores_against_gold(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    res = make_strategy("query", engine).retrieve("convert currency amount", 3)
    o = outcome("query", res, ("convert_currency",), 3)
    assert o.recall == 1.0 and o.llm_calls == 0


def test_lineage_places_children_right_of_their_parents(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    res = make_strategy("memetic", engine, context={"operators": ScriptedOperators()}, threshold=5.0).retrieve(
        "weather forecast", 3)
    nodes = lineage(res)
    by_id = {n.id: n for n in nodes}
    assert len(by_id) == len(nodes)  # one node per description id
    assert {n.origin for n in nodes} >= {"ancestor", "seed"}
    children = [n for n in nodes if n.parents and all(p in by_id for p in n.parents)]
    assert children and all(by_id[p].column < n.column for n in children for p in n.parents)
    assert all(n.column == 0 for n in nodes if n.origin == "ancestor")
    for col in {n.column for n in nodes}:
        rows = sorted(n.row for n in nodes if n.column == col)
        assert rows == list(range(len(rows)))  # rows are dense per column
    assert any(n.origin in {"crossover", "mutation"} for n in nodes)


def test_lineage_of_a_strategy_without_population_is_empty(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    assert lineage(make_strategy("query", engine).retrieve("convert currency", 3)) == []


def test_a_session_memory_penalises_and_counts_a_repeated_search(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    memory = ToolMemory()

    def run():
        earlier = ToolMemory(list(memory.entries))
        strategy = make_strategy("memetic", engine, context={"operators": ScriptedOperators(), "memory": memory},
                                 threshold=5.0)  # lineages read the memory as the query found it
        res = strategy.retrieve("weather forecast", 3)
        return memory_readout(res, earlier, memory)

    first = run()
    assert first.entries_before == 0 and first.entries_after > 0  # App. C.2 write point 2: ancestor and d*
    assert first.repeated == () and first.penalised == 0  # nothing explored yet: no penalty (Eq. 7)
    second = run()
    assert second.entries_before == first.entries_after and second.entries_after > second.entries_before
    assert second.repeated and second.penalised > 0  # the same search again is redundant and penalised
