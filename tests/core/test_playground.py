import math

import numpy as np

from core.playground import (
    in_score_order,
    lineage,
    member_label,
    members,
    memory_readout,
    outcome,
    ranking,
    step_word,
    trace_events,
)
from core.search.engine import SearchEngine
from core.strategies.base import RetrievalResult, TraceEvent
from core.strategies.memory import ToolMemory
from core.strategies.registry import make_strategy
from tests.core.strategies.conftest import ScriptedOperators


def test_members_are_placed_with_fitness_and_retrievals(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    coords = np.random.default_rng(0).normal(size=(len(tiny_tools), 2)).astype(np.float32)
    res = make_strategy("memetic", engine, context={"operators": ScriptedOperators()}, threshold=5.0).retrieve(
        "weather forecast", 3)
    pop = members(res, engine, coords)
    # one numbering: generation g is the round that scored the member, as in the fitness trace; ancestors 0
    scored_in = {f["generation"] for f in trace_events(res, "fitness")}
    assert scored_in == {1, 2, 3}
    assert {m.generation for m in pop} == {0} | scored_in
    assert {m.generation for m in pop if m.origin == "ancestor"} == {0}
    assert all(math.isfinite(m.x) and math.isfinite(m.y) for m in pop)
    seeds = [m for m in pop if m.origin == "seed"]
    assert len(seeds) == 6 and all(m.fitness is not None and m.generation == 1 for m in seeds)
    assert all(m.fitness is not None for m in pop if m.origin != "ancestor")  # scored where they are shown
    offspring = next(m for m in pop if m.id == "a0g1m1")  # born in round 1, scored in round 2
    assert offspring.generation == 2 and offspring.label == "ancestor 1 · generation 2 · member 2"
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
    # lineage columns are the members' generations: one numbering on the map, the tree and the fitness chart
    coords = np.zeros((len(tiny_tools), 2), dtype=np.float32)
    shown_in = {m.id: m.generation for m in members(res, engine, coords)}
    assert all(n.column == n.generation == shown_in[n.id] for n in nodes)
    assert by_id["a0"].label == "ancestor 1"


def test_member_labels_count_from_one_and_use_the_shown_generation():
    assert member_label("a0g1m3", 2) == "ancestor 1 · generation 2 · member 4"
    assert member_label("a2") == "ancestor 3"
    assert member_label("a0t2", 2) == "ancestor 1 · turn 2"  # DBD
    assert member_label("t1d0", 1) == "turn 1 · description 1"  # IBI
    assert member_label("a1c4", 1) == "ancestor 2 · variant 5"  # scattershot
    assert member_label("a0g1m3") == "ancestor 1 · member 4"  # no generation known: none made up
    assert member_label("custom-id") == "custom-id" and member_label("a0x1") == "a0x1"


def test_a_voted_ranking_carries_the_vote_that_placed_each_tool():
    # two ancestors' votes, taken in turn: a's winner, b's winner, a's second (b's second repeats a tool)
    votes = [TraceEvent("vote", {"ancestor": 0, "votes": [
                 {"key": "x", "votes": 4, "mean_rank": 1.5, "mean_similarity": 0.4},
                 {"key": "y", "votes": 2, "mean_rank": 2.0, "mean_similarity": 0.7}]}),
             TraceEvent("vote", {"ancestor": 1, "votes": [
                 {"key": "z", "votes": 3, "mean_rank": 1.0, "mean_similarity": 0.5},
                 {"key": "x", "votes": 1, "mean_rank": 3.0, "mean_similarity": 0.2}]})]
    res = RetrievalResult(("x", "z", "y"), (0.4, 0.5, 0.7), tuple(votes))
    rows = ranking(res)
    assert [(r.rank, r.key, r.ancestor, r.votes, r.mean_rank) for r in rows] == [
        (1, "x", 1, 4, 1.5), (2, "z", 2, 3, 1.0), (3, "y", 1, 2, 2.0)]
    assert not in_score_order(res)  # the similarities rise down the list: the vote, not the score, orders it
    plain = RetrievalResult(("x", "y"), (0.9, 0.9))
    assert in_score_order(plain) and [r.votes for r in ranking(plain)] == [None, None]


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


def test_each_strategy_names_its_steps(tiny_tools, hashing_embedder):
    engine = SearchEngine.build(tiny_tools, hashing_embedder)
    ops = {"operators": ScriptedOperators()}
    memetic = make_strategy("memetic", engine, context=ops, threshold=5.0).retrieve("weather forecast", 3)
    assert step_word("memetic", memetic) == "generation"
    dbd = make_strategy("dbd", engine, context=ops).retrieve("weather forecast", 3)
    assert step_word("dbd", dbd) == "turn"
    assert {n.column for n in lineage(dbd)} == {0, 1, 2, 3}  # ancestors, then turns 1…3 as recorded
    scatter = make_strategy("scattershot", engine, context=ops).retrieve("weather forecast", 3)
    assert step_word("scattershot", scatter) == "round"
