import pytest

from core.concurrency import StageCancelled
from core.evolution.adjust import AdjustConfig
from core.evolution.docs import STAGE_ADJUST, STAGE_EXPLORE, STAGE_SOURCE, compose
from core.evolution.evaluate import MemoSelector, dense_retriever
from core.evolution.offline import OfflineAdaptationOperators
from core.evolution.pipeline import (
    ContinualRunner,
    EvolutionConfig,
    StepResult,
    _State,
    carry_over,
)
from core.evolution.sequence import version_sequence
from core.models import Query, Tool

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
W = Tool("weather", "get_weather", "Current weather for a city.", CITY)
W2 = Tool("weather", "get_weather", "Current weather and humidity for a city.", CITY)
FX = Tool("fx", "convert_currency", "Converts money between currencies.",
          {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]})
OLD_TIME = Tool("old_time", "time_now", "Current local time in a city.", CITY)
TIME = Tool("time", "time_now", "Current local time in a city.", CITY)
POLLEN = Tool("pollen", "pollen_count", "Pollen levels for grass and trees in a city.", CITY)
UV = Tool("uv", "uv_index", "UV index and sunburn risk in a city.", CITY)
SEQ = version_sequence([[W, FX, OLD_TIME], [W2, FX, TIME, POLLEN], [W2, TIME, POLLEN, UV]], ["v1", "v2", "v3"])
QUERIES = [Query("q1", "what's the weather in Oslo", ("weather",)), Query("q2", "convert 10 dollars to euros", ("fx",)),
           Query("q3", "pollen levels for grass in Porto", ("pollen",)), Query("q4", "uv index in Lisbon", ("uv",)),
           Query("q5", "local time in Tokyo", ("time",))]
METHODS = ("original", "contda", "contda_no_adjust", "contda_no_discovery")


def test_sequence_diffs_find_rewrite_rename_add_remove():
    d1, d2 = SEQ.diffs
    assert d1.changed == ("weather",) and d1.renamed == (("old_time", "time"),) and d1.added == ("pollen",)
    assert d2.removed == ("fx",) and d2.added == ("uv",)


def test_carry_over_keeps_adapted_docs_and_restarts_rewritten_ones():
    prev = _State({"weather": compose("Weather, refined.", "- note"), "fx": "FX refined.", "old_time": "Time refined."})
    state, revisions, new = carry_over(prev, SEQ, 1)
    assert state.docs["fx"] == "FX refined."  # retained: Alg. 1 lines 2–3
    assert state.docs["time"] == "Time refined."  # renamed: the same tool under a new key
    assert state.docs["weather"] == W2.description and state.docs["pollen"] == POLLEN.description
    assert new == ["weather", "pollen"]  # the catalog's rewrite makes the old adaptation stale
    assert [(r.key, r.stage) for r in revisions] == [("weather", STAGE_SOURCE)]


POLLEN_CODE = """
def pollen_count(city):
    return {"city": city, "grass_pollen": 3, "tree_pollen": 1, "allergy_risk": "moderate"}
"""


@pytest.fixture(scope="module")
def router():
    from core.execution.router import ExecutorRouter
    from core.execution.sandbox import PythonFunction, SandboxExecutor

    sandbox = SandboxExecutor({"pollen": PythonFunction.from_source(POLLEN_CODE, "pollen_count")}, timeout=10.0)
    with ExecutorRouter([sandbox]) as r:
        yield r


def runner(embedder, router=None, seed=0):
    ops = OfflineAdaptationOperators(seed=seed)
    return ContinualRunner(SEQ, QUERIES, ops=ops, embed=embedder.encode, retrieve=dense_retriever(embedder),
                           select=MemoSelector(ops), seed=seed, router=router,
                           config=EvolutionConfig(k=2, adjust=AdjustConfig(gamma=0.1)))  # notes in every cluster


def test_methods_run_only_their_stages(hashing_embedder, router):
    results = runner(hashing_embedder, router).run(METHODS)
    assert len(results) == 3 * len(METHODS)
    by = {(r.step, r.method): r for r in results}
    step0 = {by[(0, m)].evaluation.success for m in METHODS}
    assert len(step0) == 1  # every method starts from the catalog's documentation
    stages = {m: {rev.stage for t in (1, 2) for rev in by[(t, m)].revisions} for m in METHODS}
    assert stages["original"] == {STAGE_SOURCE}
    assert stages["contda_no_adjust"] == {STAGE_SOURCE, STAGE_EXPLORE}  # pollen ran: its answer is evidence
    explored = next(r for r in by[(1, "contda_no_adjust")].revisions if r.stage == STAGE_EXPLORE)
    assert explored.key == "pollen" and "allergy risk" in explored.after and explored.evidence["probes"]
    assert STAGE_EXPLORE not in stages["contda_no_discovery"] and STAGE_ADJUST in stages["contda_no_discovery"]
    assert STAGE_ADJUST in stages["contda"]
    assert not by[(1, "original")].explorations and not by[(1, "contda_no_discovery")].explorations
    explored = {e.key for e in by[(1, "contda")].explorations}
    assert explored == {"weather", "pollen"}
    assert by[(1, "contda_no_adjust")].explorations == by[(1, "contda")].explorations  # shared Stage I
    assert all(o.cause == "tool removed" for o in by[(2, "original")].evaluation.outcomes if o.qid == "q2")


def test_resume_from_stored_results_gives_the_same_run(hashing_embedder, router):
    full = runner(hashing_embedder, router).run(METHODS)
    stored = {}

    def stop_after_five():
        return len(stored) >= 5

    with pytest.raises(StageCancelled):
        runner(hashing_embedder, router).run(METHODS, on_result=lambda r: stored.__setitem__((r.step, r.method), r),
                                     cancelled=stop_after_five)
    assert len(stored) == 5
    # stored results go through JSON, as they would through the database
    done = {k: StepResult.from_json(v.to_json()) for k, v in stored.items()}
    fresh = []
    resumed = runner(hashing_embedder, router).run(METHODS, done=done, on_result=fresh.append)
    assert len(fresh) == len(full) - 5  # nothing finished is computed again
    assert [r.evaluation.outcomes for r in resumed] == [r.evaluation.outcomes for r in full]
    assert [r.revisions for r in resumed] == [r.revisions for r in full]


def test_unknown_method_is_refused(hashing_embedder):
    with pytest.raises(ValueError, match="valid methods: original, contda"):
        runner(hashing_embedder).run(["draft"])


def test_trial_verifier_calls_the_real_tool(router):
    from core.evolution.evaluate import TrialVerifier

    verify = TrialVerifier(router)
    assert verify(Query("q", "pollen levels in Porto", ("pollen",)), POLLEN) is True
    assert verify(Query("q", "pollen levels in Porto", ("pollen",)), UV) is None  # no executor reaches uv
    broken = Tool("pollen", "pollen_count", "Pollen.", {"type": "object", "properties": {"city": {"type": "string"}},
                                                         "required": ["city"]})
    assert verify(Query("q2", "pollen please", ("pollen",)), broken) is False  # no city to plan with


# -- Stage II changes the score through the agent's fallback (CONTDA Fig. 9) ------------------------------

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
FX_OLD = Tool("fx_old", "dollars_euros", "Convert dollars to euros quickly.", TEXT)
FX_NEW = Tool("fx", "money_exchange", "Exchange money between currencies such as dollars.", TEXT)
FX_CODE = {"fx_old": "def dollars_euros(text=''):\n    raise RuntimeError('upstream service down')\n",
           "fx": "def money_exchange(text=''):\n    return {'converted': '9.20 euros', 'from': '10 dollars'}\n"}


def test_fallback_lets_relational_notes_rescue_a_failed_call(hashing_embedder):
    from core.evolution.evaluate import TrialVerifier
    from core.execution.router import ExecutorRouter
    from core.execution.sandbox import PythonFunction, SandboxExecutor

    seq = version_sequence([[FX_OLD, FX_NEW, W], [FX_OLD, FX_NEW, W, POLLEN]], ["v1", "v2"])
    queries = [Query("q1", "convert 10 dollars to euros", ("fx",))]
    sandbox = SandboxExecutor({k: PythonFunction.from_source(code, {"fx_old": "dollars_euros", "fx": "money_exchange"}[k])
                               for k, code in FX_CODE.items()}, timeout=10.0)
    with ExecutorRouter([sandbox]) as router:
        verify = TrialVerifier(router)
        runs = {}
        for fallback in (True, False):
            ops = OfflineAdaptationOperators()
            config = EvolutionConfig(k=3, adjust=AdjustConfig(gamma=0.1), judge="execution", fallback=fallback)
            runs[fallback] = {(r.step, r.method): r for r in ContinualRunner(
                seq, queries, ops=ops, embed=hashing_embedder.encode, retrieve=dense_retriever(hashing_embedder),
                select=MemoSelector(ops), config=config, verify=verify).run(["original", "contda"])}
    on, off = runs[True], runs[False]
    # the agent picks the tool whose words match and its call fails; only CONTDA's notes name a fallback
    assert off[(1, "contda")].evaluation.outcomes[0].cause == "not selected"
    rescued = on[(1, "contda")].evaluation.outcomes[0]
    assert rescued.success and rescued.fallbacks == (("fx_old", "fx", True),)
    assert on[(1, "contda")].evaluation.rescued == 1
    assert not on[(1, "original")].evaluation.outcomes[0].success  # no notes, nothing to follow
    assert on[(1, "original")].evaluation.outcomes == off[(1, "original")].evaluation.outcomes
    assert on[(0, "contda")].evaluation.outcomes == off[(0, "contda")].evaluation.outcomes  # t0: catalog docs
