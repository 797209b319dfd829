"""Offline judge rules, integrity, measures and pipeline behaviour on hand-checkable data."""

import threading

import numpy as np
import pytest

from core.llm.framework import make_roles
from core.llm.ledger import MemoryLedger
from core.merging.candidates import threshold_sweep
from core.merging.features import _stem, evidence
from core.merging.integrity import MergeIntegrityError, check_integrity, check_split
from core.merging.measures import (
    offline_selector,
    relabel_queries,
    retrieval_before_after,
    silhouette_curve,
    tccr_ucc,
)
from core.merging.offline_judge import OfflineJudge
from core.merging.pipeline import ClusterAudit, MemoryMergeStore, MergeConfig, group_key, run_merge
from core.models import Query, Tool
from core.search.engine import SearchEngine
from tests.conftest import HashingEmbedder
from tests.core.merging.test_merging import CountingJudge, _catalog, tool


def test_stems_fold_derived_forms_onto_one_root():
    assert _stem("converter") == _stem("convert") == _stem("converts")
    assert _stem("factorization") == _stem("factorize") == _stem("factors")
    assert _stem("definition") == _stem("define")
    assert _stem("cities") == _stem("city") and _stem("status") == "status" and _stem("news") == "news"


def test_pair_rules_from_names_and_schemas():
    j = OfflineJudge()
    # renamed inputs with the same count are compatible: same job
    a = tool("convert_currency", "Converts money between currencies", ["amount", "from_currency", "to_currency"],
             ["amount", "from_currency", "to_currency"])
    b = tool("currency_converter", "Currency conversion at the latest rate", ["value", "source", "target"],
             ["value", "source", "target"])
    assert j.classify_pair(a, b, 0.85).value.same
    # one more required input the other cannot take: look-alikes
    weather = tool("get_weather", "Current weather for a city", ["city"], ["city"])
    forecast = tool("get_forecast", "Weather forecast for a city over the next days", ["city", "days"],
                    ["city", "days"])
    verdict = j.classify_pair(weather, forecast, 0.9).value
    assert not verdict.same and "days" in verdict.reason
    # ... but an input the other tool has as an optional parameter is no conflict
    weather_opt = tool("weather_now", "Current weather for a city", ["city", "days"], ["city"])
    assert evidence(weather_opt, forecast).extra_inputs == ()
    # one tool's required input is what the other looks up: steps of one task
    now = tool("get_current_time", "Current local time in a time zone", ["timezone"], ["timezone"])
    zone = tool("get_timezone", "The time zone used in a city", ["city"], ["city"])
    chain = j.classify_pair(now, zone, 0.8).value
    assert not chain.same and "timezone" in chain.reason
    simple = tool("calc_simple_interest", "Interest on a principal", ["principal", "rate", "years"],
                  ["principal", "rate", "years"])
    compound = tool("compound_interest", "Interest compounded yearly", ["principal", "rate", "years"],
                    ["principal", "rate", "years"])
    assert "simple vs compound" in j.classify_pair(simple, compound, 0.9).value.reason
    search = tool("search_recipes", "Find recipes by ingredients", ["query"], ["query"])
    details = tool("get_recipe_details", "Ingredients and steps of a recipe", ["recipe_id"], ["recipe_id"])
    assert not j.classify_pair(search, details, 0.8).value.same


def test_offline_judge_records_every_call_in_the_ledger():
    ledger = MemoryLedger()
    j = make_roles("merge", "offline", ledger=ledger, seed=3)
    tools, _ = _catalog()
    pair = j.classify_pair(tools[0], tools[1], 0.96)
    audit = j.audit_cluster(tools[:2])
    doc = j.merged_doc(tools[0], tools[1:2])
    assert [r.role for r in ledger.records] == ["classify_pair", "audit_cluster", "merged_doc"]
    assert {r.backend for r in ledger.records} == {"offline"}
    assert [pair.call_id, audit.call_id, doc.call_id] == [1, 2, 3]
    assert "same name" in ledger.records[0].response


def test_offline_audit_always_returns_a_partition():
    members = [tool("a_get_weather", "weather now", ["city"], ["city"]),
               tool("weather_now", "weather now in a city", ["city"], ["city"]),
               tool("delete_city", "remove a city", ["city"], ["city"]),
               tool("get_forecast", "weather forecast", ["city", "days"], ["city", "days"])]
    audit = OfflineJudge().audit_cluster(members).value
    assert not audit.ok
    check_split("c", [t.key for t in members], audit.groups)
    assert ("a_get_weather", "weather_now") in audit.groups


def test_integrity_names_the_cluster_and_key():
    with pytest.raises(MergeIntegrityError, match="cluster c001: 'b' is kept"):
        check_integrity({"a", "b", "c", "d"}, {"c001": [["a", "b"]], "c002": [["c", "d"]]},
                        {"a": "b", "b": "c", "c": "c", "d": "c"})
    with pytest.raises(MergeIntegrityError, match="cluster c001: the group .* maps to several"):
        check_integrity({"a", "b", "c"}, {"c001": [["a", "b"]]}, {"a": "a", "b": "c", "c": "c"})
    with pytest.raises(MergeIntegrityError, match="cluster c001: .* outside the group"):
        check_integrity({"a", "b", "c"}, {"c001": [["a", "b"], ["c"]]}, {"a": "c", "b": "c", "c": "c"})


def test_aliases_of_the_page_api():
    tools, v = _catalog()
    result = run_merge(tools, v, OfflineJudge(), MergeConfig(threshold=0.9))
    assert (result.pairs[0].a_key, result.pairs[0].b_key) == ("math.gcd", "math_gcd")
    row = threshold_sweep(v, thresholds=(0.9,), k=2)[0]
    assert (row.n_pairs, row.n_clusters, row.n_tools_in_clusters, row.size_after) == (1, 1, 2, 2)


def test_pipeline_resumes_a_partly_judged_run_and_stored_audits():
    tools = [tool("sum_list", "add up numbers", ["xs"], ["xs"]), tool("sumList", "sum of a list", ["items"], ["items"]),
             tool("list_sum", "total of a list", ["values"], ["values"])]
    v = np.array([[1, 0], [0.99, 0.14], [0.98, 0.2]], dtype=np.float32)
    store = MemoryMergeStore()
    first = run_merge(tools, v, CountingJudge(), MergeConfig(threshold=0.9), store=store)
    assert len(first.pairs) == 3
    # forget one pair verdict: only that pair is asked again; the stored audit is reused (a fake one here)
    dropped = first.pairs[0]
    store.pairs.pop((dropped.a, dropped.b))
    store.audits[group_key(first.clusters[0].members)] = ClusterAudit(False, (("sum_list", "sumList"), ("list_sum",)),
                                                                      "stored split")
    judge = CountingJudge()
    audits = []
    judge.audit_cluster = lambda members: audits.append(members)  # must not be called
    again = run_merge(tools, v, judge, MergeConfig(threshold=0.9), store=store)
    assert judge.pairs == 1 and audits == []
    assert again.clusters[0].audit.reason == "stored split" and again.phi["list_sum"] == "list_sum"
    assert again.phi["sumList"] == again.phi["sum_list"] == "sumList"


def test_pipeline_runs_pairs_concurrently_with_the_same_result_and_reports_progress():
    tools = [tool(f"t{i}_sum", "sum of numbers", ["xs"], ["xs"]) for i in range(6)]
    v = np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (6, 1)) + np.arange(6)[:, None] * [0, 0.01]
    threads = set()

    class ThreadJudge(OfflineJudge):
        def classify_pair(self, a, b, cosine):
            threads.add(threading.get_ident())
            return super().classify_pair(a, b, cosine)

    seen = []
    many = run_merge(tools, v, ThreadJudge(), MergeConfig(threshold=0.9, max_workers=4),
                     progress=lambda done, total, stage: seen.append((stage, done, total)))
    one = run_merge(tools, v, OfflineJudge(), MergeConfig(threshold=0.9, max_workers=1))
    assert many.phi == one.phi and many.clusters == one.clusters
    assert {p[:2] for p in map(lambda p: (p.a, p.b), many.pairs)} == {(p.a, p.b) for p in one.pairs}
    assert ("pairs", 15, 15) in seen and ("audit", 1, 1) in seen and ("docs", 1, 1) in seen


def _engines():
    tools = [Tool(key="gcd", name="gcd", description="greatest common divisor of two numbers"),
             Tool(key="math_gcd", name="math_gcd", description="greatest common divisor gcd"),
             Tool(key="weather", name="weather", description="current weather in a city")]
    emb = HashingEmbedder()
    before = SearchEngine.build(tools, emb)
    after = SearchEngine.build([tools[0], tools[2]], emb)
    return tools, before, after


def test_retrieval_before_after_with_relabelled_gold():
    _tools, before, after = _engines()
    phi = {"gcd": "gcd", "math_gcd": "gcd", "weather": "weather"}
    queries = [Query("1", "greatest common divisor gcd", ("math_gcd",)), Query("2", "weather in a city", ("weather",))]
    relabelled = relabel_queries(queries, phi)
    assert [q.gold for q in relabelled] == [("gcd",), ("weather",)]
    # k = 1: before, query 1 may hit gcd or math_gcd first; after, gold gcd is the only gcd tool left
    res = retrieval_before_after(before, after, queries, relabelled, k=1)
    assert res.recall_after == 1.0 and res.csr_after == 1.0 and res.n_queries == 2
    # precomputed rankings and φ give the same numbers, by hand: before ranks gcd above math_gcd
    hand = retrieval_before_after([["gcd"], ["weather"]], [["gcd"], ["weather"]], queries, phi, k=1)
    assert (hand.recall_before, hand.recall_after, hand.csr_before, hand.csr_after) == (0.5, 1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="out of step"):
        retrieval_before_after(before, after, queries, relabelled[::-1], k=1)


def test_csr_uses_the_selector_when_given():
    _tools, before, after = _engines()
    queries = [Query("2", "weather in a city", ("weather",))]
    picks_nothing = retrieval_before_after(before, after, queries, queries, k=3, selector=lambda q, top: [])
    assert picks_nothing.csr_before == picks_nothing.csr_after == 0.0 and picks_nothing.recall_before == 1.0

    class Ops:  # the select_tools role: pick the candidate whose blurb names the weather
        def select_tools(self, query, candidates):
            from core.llm.base import RoleCall

            return RoleCall(value=[k for k, blurb in candidates if "weather" in blurb], ok=True)

    sel = offline_selector(Ops(), _tools)
    assert retrieval_before_after(before, after, queries, queries, k=3, selector=sel).csr_after == 1.0


def test_tccr_ucc_by_hand():
    # merged toolset: search(q, limit) and weather(city); φ sends find→search
    merged = [tool("search", props=["q", "limit"]), tool("weather", props=["city"])]
    phi = {"search": "search", "find": "search", "weather": "weather"}
    calls = [("find", ["q"]), ("find", ["q"]), ("find", ["q", "lang"]), ("weather", ("city",))]
    cov = tccr_ucc(calls, merged, phi)
    # calls served: find{q} ×2 yes, find{q,lang} no, weather{city} yes → 3/4; capabilities: 3, 2 served
    assert (cov.tccr, cov.ucc, cov.calls, cov.capabilities) == (0.75, round(2 / 3, 4), 4, 3)


def test_silhouette_is_high_for_separated_blobs_and_skips_impossible_k():
    rng = np.random.default_rng(0)
    centres = np.eye(4, dtype=np.float32)
    x = np.vstack([c + 0.01 * rng.normal(size=(10, 4)) for c in centres]).astype(np.float32)
    curve = dict(silhouette_curve(x, ks=(1, 4, 40, 100), seed=0))
    assert set(curve) == {4} and curve[4] > 0.9


def test_silhouette_by_hand_on_four_unit_vectors():
    # p1 = (1, 0) given as (3, 0): the curve normalises, cosine ignores length; p2 = (.8, .6); p3 = (0, 1);
    # p4 = (-.6, .8). Cosine distances 1 - cos: d12 = .2, d13 = 1, d14 = 1.6, d23 = .4, d24 = 1, d34 = .2.
    # k-means with k = 2 splits {p1, p2} | {p3, p4} (within-cluster squared error .4, against 3.2/3 for any
    # 3 + 1 split). Silhouette s = (b - a) / max(a, b), a = mean distance inside the point's cluster, b = to the
    # other cluster:
    #   p1: a = .2, b = (1 + 1.6)/2 = 1.3 → 1.1/1.3 = .846154      p2: a = .2, b = (.4 + 1)/2 = .7 → .5/.7 = .714286
    #   p3: a = .2, b = (1 + .4)/2 = .7   → .714286                p4: a = .2, b = (1.6 + 1)/2 = 1.3 → .846154
    # mean (2 · .846154 + 2 · .714286) / 4 = .780220. k = 1 and k = 4 (not fewer clusters than points) are skipped.
    x = np.array([[3.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8]], dtype=np.float32)
    assert silhouette_curve(x, ks=(1, 2, 4), seed=0) == [(2, 0.7802)]


def test_approximate_neighbours_find_planted_near_duplicates():
    from core.merging.candidates import candidate_pairs

    rng = np.random.default_rng(1)
    x = rng.normal(size=(1000, 32)).astype(np.float32)
    x[990:] = x[:10] + 0.05 * rng.normal(size=(10, 32)).astype(np.float32)  # 10 planted near-duplicates
    exact = {(p.i, p.j) for p in candidate_pairs(x, k=5, threshold=0.9, exact=True)}
    approx = {(p.i, p.j) for p in candidate_pairs(x, k=5, threshold=0.9, exact=False)}
    assert exact == {(i, 990 + i) for i in range(10)}
    assert approx == exact


def test_the_merged_catalog_can_have_its_own_selector():
    queries = [Query("1", "gcd", ("gcd",)), Query("2", "weather", ("weather",))]
    phi = {"gcd": "gcd", "weather": "weather"}
    rankings = [["gcd", "weather"], ["weather", "gcd"]]
    first = lambda q, top: top[:1]  # noqa: E731 - picks the top tool
    both = lambda q, top: top  # noqa: E731 - picks everything shown
    res = retrieval_before_after(rankings, rankings, queries, phi, k=2, selector=first, selector_after=both)
    assert (res.csr_before, res.csr_after) == (1.0, 0.0)
    assert retrieval_before_after(rankings, rankings, queries, phi, k=2, selector=first).csr_after == 1.0


def test_measure_scores_csr_with_the_offline_select_tools_rule(hashing_embedder):
    from core.merging.measures import rule_selector
    from core.merging.pipeline import MergeResult
    from core.merging.service import measure

    tools, before, _after = _engines()
    merged = [tools[0], tools[2]]
    phi = {"gcd": "gcd", "math_gcd": "gcd", "weather": "weather"}
    result = MergeResult(config=None, pairs=(), clusters=(), phi=phi)
    queries = [Query("1", "greatest common divisor gcd", ("math_gcd",)), Query("2", "weather in a city", ("weather",))]
    m = measure(before, merged, result, queries, k=2, silhouette_ks=())
    after = SearchEngine.build(merged, HashingEmbedder())
    explicit = retrieval_before_after(before, after, queries, phi, k=2, selector=rule_selector(before.tools),
                                      selector_after=rule_selector(after.tools))
    stand_in = retrieval_before_after(before, after, queries, phi, k=2)
    assert m.retrieval == explicit  # the default agent is the offline rule, each catalog with its own docs
    # the rule picks one tool per intent: query 2 asks for the weather only and is solved either way
    assert explicit.csr_after >= 0.5 and stand_in.csr_after == 1.0
