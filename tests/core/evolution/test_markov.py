import pytest

from core.evolution.markov import PATTERNS, MarkovConfig, changes, simulate

POOL = tuple(f"t{i:02d}" for i in range(20))
SEEDS = range(6)


def _run(pattern: str, seed: int, **kw) -> tuple[tuple[str, ...], ...]:
    return simulate(POOL, MarkovConfig(pattern=pattern, seed=seed, **kw))


@pytest.mark.parametrize("seed", SEEDS)
def test_expansion_only_adds(seed):
    subsets = _run("expansion", seed)
    assert len(subsets) == 6  # T + 1
    for (added, removed), before in zip(changes(subsets), subsets, strict=False):
        assert removed == ()
        assert not set(added) & set(before)


@pytest.mark.parametrize("seed", SEEDS)
def test_reduction_only_removes_and_never_empties(seed):
    subsets = _run("reduction", seed, steps=15)
    for added, _ in changes(subsets):
        assert added == ()
    assert all(len(s) >= 1 for s in subsets)
    assert len(subsets[-1]) == 1  # 20 tools, 2 per step: bottoms out at one and stays there


@pytest.mark.parametrize("seed", SEEDS)
def test_mixture_keeps_size_and_swaps_equal_counts(seed):
    subsets = _run("mixture", seed)
    assert {len(s) for s in subsets} == {12}
    for (added, removed), before, after in zip(changes(subsets), subsets, subsets[1:], strict=False):
        assert len(added) == len(removed) == 2
        assert not set(added) & set(before)
        assert set(removed) <= set(before)
        assert set(after) == (set(before) - set(removed)) | set(added)


def test_sizes_for_pool_of_twenty():
    # rate 0.1 of 20 -> 2 tools per step; initial shares 0.5 / 1.0 / 0.6 of 20 -> 10 / 20 / 12
    assert [len(s) for s in _run("expansion", 0)] == [10, 12, 14, 16, 18, 20]
    assert [len(s) for s in _run("reduction", 0)] == [20, 18, 16, 14, 12, 10]
    assert [len(s) for s in _run("mixture", 0)] == [12] * 6
    # expansion stops growing once the pool is used up
    assert [len(s) for s in _run("expansion", 0, steps=7)][-3:] == [20, 20, 20]
    assert [len(s) for s in _run("expansion", 0, initial=0.05, rate=0.3)] == [1, 7, 13, 19, 20, 20]


def test_keys_follow_pool_order():
    for subset in _run("mixture", 3):
        assert list(subset) == sorted(subset, key=POOL.index)


def test_same_seed_same_run_other_seed_other_run():
    assert _run("mixture", 7) == _run("mixture", 7)
    assert _run("mixture", 7) != _run("mixture", 8)


def test_changes_of_hand_made_subsets():
    assert changes([("a", "b"), ("b", "c"), ("b", "c")]) == ((("c",), ("a",)), ((), ()))
    assert changes([("a",)]) == ()


def test_config_json_includes_resolved_initial():
    assert MarkovConfig(pattern="reduction").to_json() == {
        "pattern": "reduction", "steps": 5, "initial": 1.0, "rate": 0.1, "seed": 0}
    assert MarkovConfig(initial=0.25).resolved_initial() == 0.25
    assert MarkovConfig().resolved_initial() == 0.6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pattern": "churn"}, "pattern: unknown pattern 'churn'; valid patterns: " + ", ".join(PATTERNS)),
        ({"steps": 0}, "steps"),
        ({"rate": 0.0}, "rate"),
        ({"rate": 1.5}, "rate"),
        ({"initial": 0.0}, "initial"),
        ({"initial": 1.2}, "initial"),
    ],
)
def test_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MarkovConfig(**kwargs)


def test_pool_errors():
    with pytest.raises(ValueError, match="pool: the tool pool is empty"):
        simulate([], MarkovConfig())
    with pytest.raises(ValueError, match="pool: duplicate key 'b'"):
        simulate(["a", "b", "c", "b"], MarkovConfig())
