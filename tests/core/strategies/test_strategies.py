"""Mechanics of every strategy: interface, trace, determinism, failure handling."""

import pytest

from core.strategies.fitness import ANCHOR_WEIGHT
from core.strategies.memory import ToolMemory
from core.strategies.registry import make_strategy, strategy_names
from tests.core.strategies.conftest import ScriptedOperators

LLM_STRATEGIES = ["single_pass", "dbd", "ibi", "scattershot", "memetic", "memetic_v2", "reinvoke", "toolscope"]


@pytest.mark.parametrize("name", LLM_STRATEGIES)
def test_every_strategy_returns_k_unique_known_keys_with_trace(name, engine, ops):
    s = make_strategy(name, engine, context={"operators": ops})
    res = s.retrieve("weather forecast for Paris and convert currency", 3)
    assert 1 <= len(res.keys) <= 3 and len(set(res.keys)) == len(res.keys)
    assert set(res.keys) <= {t.key for t in engine.tools}
    assert len(res.scores) == len(res.keys)
    kinds = {e.kind for e in res.trace}
    assert "llm_call" in kinds
    assert any(e.kind in {"retrieval", "multiview"} for e in res.trace)


@pytest.mark.parametrize("name", LLM_STRATEGIES)
def test_strategies_replay_identically(name, engine):
    a = make_strategy(name, engine, context={"operators": ScriptedOperators()}).retrieve("send an email and a quote", 3)
    b = make_strategy(name, engine, context={"operators": ScriptedOperators()}).retrieve("send an email and a quote", 3)
    assert a.keys == b.keys and [e.kind for e in a.trace] == [e.kind for e in b.trace]


def test_registry_errors_name_valid_choices(engine, ops):
    assert set(LLM_STRATEGIES + ["query"]) == set(strategy_names())
    with pytest.raises(ValueError, match="valid strategies: query, single_pass"):
        make_strategy("nope", engine)
    with pytest.raises(ValueError, match="no parameter 'generationz'.*generations"):
        make_strategy("memetic", engine, context={"operators": ops}, generationz=3)
    with pytest.raises(ValueError, match="needs LLM operators"):
        make_strategy("memetic", engine)


def test_failed_pseudo_tool_call_falls_back_to_query(engine):
    s = make_strategy("single_pass", engine, context={"operators": ScriptedOperators(fail={"pseudo_tools"})})
    res = s.retrieve("convert currency amount", 2)
    assert res.keys[0] == "convert_currency"
    assert any(e.kind == "fallback" for e in res.trace)
    assert any(e.kind == "llm_call" and not e.data["ok"] for e in res.trace)


def test_memetic_failed_children_keep_parents(engine):
    ops = ScriptedOperators(fail={"crossover", "mutate", "refine"})
    res = make_strategy("memetic", engine, context={"operators": ops}).retrieve("weather in paris", 3)
    copies = [e for e in res.trace if e.kind == "description" and e.data["origin"] == "copy"]
    assert len(copies) == 5 * 2  # N-1 children per generation, G-1 = 2 varied generations
    assert len(res.keys) == 3


def test_memetic_v1_follows_algorithm_shape(engine, ops):
    res = make_strategy("memetic", engine, context={"operators": ops}, generations=3, threshold=2.0).retrieve(
        "weather forecast", 5)
    fitness = [e for e in res.trace if e.kind == "fitness"]
    assert len(fitness) == 6 * 3  # N members evaluated in each of G generations (θ unreachable)
    selections = [e for e in res.trace if e.kind == "selection"]
    assert len(selections) == 2 and all(len(e.data["selected"]) == 3 for e in selections)  # ⌈N/2⌉
    assert ops.calls.count("refine") == 5 * 2  # local search on every offspring but the elite
    assert [e.kind for e in res.trace][-1] == "vote"


def test_memetic_early_stop_when_threshold_reached(engine, ops):
    res = make_strategy("memetic", engine, context={"operators": ops}, threshold=-10.0).retrieve("weather", 3)
    assert any(e.kind == "early_stop" for e in res.trace)
    assert not any(e.kind == "selection" for e in res.trace)


def test_memetic_v2_fitness_components_and_memory(engine, ops):
    memory = ToolMemory()
    res = make_strategy("memetic_v2", engine, context={"operators": ops, "memory": memory},
                        threshold=5.0).retrieve("weather forecast", 3)
    fit = [e.data for e in res.trace if e.kind == "fitness"]
    assert len(fit) == 8 * 3
    lam = ANCHOR_WEIGHT  # the anchored retrieval term (core.strategies.fitness), 0 in the paper
    for f in fit:
        term = (1 - lam) * f["s_ret"] + lam * f.get("s_anchor", 0.0)
        assert f["f"] == pytest.approx(0.5 * term + 0.3 * f["llm_score"] - 0.2 * f["mem"] - 0.2 * f["crowd"],
                                       abs=1e-5)  # δ = 0.2: the default (core.strategies.memetic_v2), not 1.0
    assert [e.generation for e in memory.entries] == [3, 0]  # (a, G) and (d*, 0)


def test_scattershot_runs_children_in_parallel(engine, ops):
    res = make_strategy("scattershot", engine, context={"operators": ops}, fan_out=5).retrieve("weather", 3)
    assert ops.calls.count("scatter") == 5
    assert [e.kind for e in res.trace].count("vote") == 1


def test_toolscope_merges_subqueries_eq5(engine, ops):
    res = make_strategy("toolscope", engine, context={"operators": ops}).retrieve(
        "send an email and convert currency", 2)
    assert set(res.keys) == {"send_email", "convert_currency"}  # each sub-query's top-1 comes first


def test_reinvoke_builds_index_once_and_stores_queries(engine, ops):
    from core.strategies.reinvoke import MemoryQueryStore

    store = MemoryQueryStore()
    s = make_strategy("reinvoke", engine, context={"operators": ops, "query_store": store}, m=3)
    s.retrieve("weather", 2)
    s.retrieve("email", 2)
    assert ops.calls.count("synthetic_queries") == len(engine.tools)
    assert all(len(v) == 3 for v in store.load().values())
    again = ScriptedOperators()
    make_strategy("reinvoke", engine, context={"operators": again, "query_store": store}, m=3).retrieve("x", 1)
    assert again.calls.count("synthetic_queries") == 0  # cached: nothing regenerated


def test_reinvoke_round_trip_consistency_hand_made(engine, ops):
    """Re-Invoke §6.2: each tool gets one query that is its own text (comes back first) and one that is
    the next tool's text (comes back as that other tool): recall@1 is exactly one half."""
    from core.strategies.reinvoke import MemoryQueryStore

    tools, texts = engine.tools, engine.texts
    store = MemoryQueryStore()
    for i, t in enumerate(tools):
        store.save(t.key, [texts[i], texts[(i + 1) % len(tools)]])
    s = make_strategy("reinvoke", engine, context={"operators": ops, "query_store": store}, m=2)
    measures = s.run_measures()
    assert measures == {"round_trip@1": 0.5, "round_trip@5": measures["round_trip@5"], "round_trip@10": 1.0,
                        "round_trip_queries": 2 * len(tools)}
    assert 0.5 <= measures["round_trip@5"] <= 1.0
    assert ops.calls.count("synthetic_queries") == 0  # the stored queries are used, none written
    assert s.round_trip(ks=(len(tools),)) == {f"round_trip@{len(tools)}": 1.0, "round_trip_queries": 2 * len(tools)}

    # above the sample size a fixed sample is scored: same answer every time
    sampled = s.round_trip(ks=(1,), sample=5)
    assert sampled["round_trip_queries"] == 5 and sampled == s.round_trip(ks=(1,), sample=5)
