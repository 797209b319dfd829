import numpy as np
import pytest

from core.llm.base import LLMBadResponse, RoleCall
from core.llm.framework import make_roles
from core.merging.candidates import candidate_pairs, threshold_sweep
from core.merging.docs import merged_parameters
from core.merging.features import name_tokens
from core.merging.graph import components, phi_of, relabel, representative
from core.merging.integrity import MergeIntegrityError, check_integrity, check_split
from core.merging.judge import AuditJudgement, PairJudgement
from core.merging.measures import coverage, relabel_queries
from core.merging.offline_judge import OfflineJudge
from core.merging.pipeline import MemoryMergeStore, MergeConfig, run_merge
from core.merging.prompted_judge import parse_audit, parse_pair
from core.models import Query, Tool


def tool(key, desc="", props=(), required=(), name=None):
    return Tool(key=key, name=name or key, description=desc,
                parameters={"type": "object", "properties": {p: {"type": "string"} for p in props},
                            "required": list(required)})


def test_components_follow_chains_and_order_by_size():
    groups = components(["a", "b", "c", "d", "e"], [("a", "b"), ("d", "e"), ("b", "c")])
    assert groups == [("a", "b", "c"), ("d", "e")]
    with pytest.raises(ValueError, match="not in the graph"):
        components(["a"], [("a", "z")])


def test_representative_is_the_shortest_name_then_alphabetical():
    members = [tool("k1", name="math_gcd"), tool("k2", name="gcd"), tool("k3", name="gcf")]
    assert representative(members).key == "k2"  # "gcd" < "gcf", both three letters
    phi = phi_of([members])
    assert phi == {"k1": "k2", "k2": "k2", "k3": "k2"}
    assert relabel(["k1", "x", "k3"], phi) == ("k2", "x")


def test_split_must_be_a_partition():
    check_split("c1", ["a", "b", "c"], [["a", "b"], ["c"]])
    for bad, msg in ((([["a", "b"], ["b", "c"]]), "in groups"), ([["a", "b"]], "drops 'c'"),
                     ([["a", "b", "c", "z"]], "adds 'z'"), ([["a", "b", "c"], []], "empty")):
        with pytest.raises(MergeIntegrityError, match=msg):
            check_split("c1", ["a", "b", "c"], bad)


def test_integrity_rejects_kept_and_pruned_and_double_membership():
    check_integrity({"a", "b", "c"}, {"c1": [["a", "b"]]}, {"a": "a", "b": "a", "c": "c"})
    with pytest.raises(MergeIntegrityError, match="kept .* and pruned"):
        check_integrity({"a", "b", "c"}, {}, {"a": "b", "b": "c", "c": "c"})
    with pytest.raises(MergeIntegrityError, match="clusters c1 and c2"):
        check_integrity({"a", "b"}, {"c1": [["a", "b"]], "c2": [["b"]]}, {"a": "a", "b": "a"})


def test_candidate_pairs_threshold_and_neighbours():
    v = np.array([[1, 0, 0], [0.99, 0.141, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    pairs = candidate_pairs(v, k=2, threshold=0.9)
    assert [(p.i, p.j) for p in pairs] == [(0, 1)] and pairs[0].cosine == pytest.approx(0.99, abs=1e-3)
    assert candidate_pairs(v, k=2, threshold=-1.0)  # every neighbour pair counts at the lowest threshold
    rows = threshold_sweep(v, thresholds=(0.5, 0.995), k=2)
    assert (rows[0].pairs, rows[0].clusters, rows[0].size_after) == (1, 1, 3)
    assert (rows[1].pairs, rows[1].size_after) == (0, 4)


def test_name_tokens_across_conventions():
    assert name_tokens("fetchCurrentWeather") == ["fetch", "current", "weather"]
    assert name_tokens("math.gcd") == name_tokens("math_gcd") == ["math", "gcd"]


def test_offline_pair_rules():
    j = OfflineJudge()
    same = j.classify_pair(tool("math.gcd", "Greatest common divisor"), tool("math_gcd", "GCD of two ints"), 0.9)
    assert same.ok and same.value.same and "same name" in same.value.reason
    add = tool("add_task", "Add a task to the list", ["title"], ["title"])
    lst = tool("list_tasks", "Show the tasks in the list", ["status"], ["status"])
    verdict = j.classify_pair(add, lst, 0.85).value
    assert not verdict.same and "add" in verdict.reason
    velocity = tool("calc_velocity", "velocity from acceleration and time", ["v0", "a", "t"], ["v0", "a", "t"])
    fall = tool("free_fall", "distance fallen in a time", ["t"], ["t"])
    assert not j.classify_pair(velocity, fall, 0.85).value.same


def test_offline_audit_splits_a_chain():
    j = OfflineJudge()
    a = tool("convert_units", "convert a value between units", ["value", "from", "to"], ["value", "from", "to"])
    b = tool("unit_converter", "converts units of a value", ["value", "from", "to"], ["value", "from", "to"])
    c = tool("unit_convert_fast", "converts a value's units", ["value"], ["value"])
    audit = j.audit_cluster([a, b, c]).value
    assert not audit.ok and audit.groups == (("convert_units", "unit_converter"), ("unit_convert_fast",))
    assert j.audit_cluster([a, b]).value.ok


def test_parse_pair_and_audit_answers():
    assert parse_pair('{"same": true, "reason": "both convert"}') == PairJudgement(True, "both convert")
    assert parse_pair("No\nthey do different jobs").same is False
    with pytest.raises(LLMBadResponse):
        parse_pair("maybe?")
    ok = parse_audit('```json\n{"verdict": "MERGE_OK", "reason": "fine"}\n```', ["a", "b"])
    assert ok == AuditJudgement(True, (("a", "b"),), "fine")
    bad = parse_audit('{"merge": "MERGE_BAD", "clusters": [["a"], ["b", "c"]], "reason": "r"}', ["a", "b", "c"])
    assert not bad.ok and bad.groups == (("a",), ("b", "c"))
    with pytest.raises(LLMBadResponse, match="partition"):
        parse_audit('{"verdict": "MERGE_BAD", "groups": [["a"], ["a", "b"]]}', ["a", "b"])
    with pytest.raises(LLMBadResponse, match="MERGE_OK or MERGE_BAD"):
        parse_audit('{"verdict": "perhaps"}', ["a", "b"])


class CountingJudge(OfflineJudge):
    def __init__(self):
        super().__init__()
        self.pairs = 0

    def classify_pair(self, a, b, cosine):
        self.pairs += 1
        return super().classify_pair(a, b, cosine)


class BrokenJudge(OfflineJudge):
    def classify_pair(self, a, b, cosine):
        return RoleCall(value=None, ok=False, error="LLMBadResponse: garbage", role="classify_pair")


def _catalog():
    tools = [tool("math.gcd", "greatest common divisor", ["a", "b"], ["a", "b"]),
             tool("math_gcd", "gcd of two integers", ["x", "y"], ["x", "y"]),
             tool("weather", "current weather", ["city"], ["city"])]
    v = np.array([[1, 0], [0.96, 0.28], [0, 1]], dtype=np.float32)
    return tools, v


def test_pipeline_merges_resumes_and_keeps_failed_pairs_apart():
    tools, v = _catalog()
    store = MemoryMergeStore()
    judge = CountingJudge()
    result = run_merge(tools, v, judge, MergeConfig(threshold=0.9), store=store)
    assert result.phi == {"math.gcd": "math.gcd", "math_gcd": "math.gcd", "weather": "weather"}
    assert [c.members for c in result.clusters] == [("math.gcd", "math_gcd")] and result.merge_ok == 1
    reduced = result.reduced_catalog(tools)
    assert [t.key for t in reduced] == ["math.gcd", "weather"]
    merged = reduced[0]
    assert list(merged.parameters["properties"]) == ["a", "b", "x", "y"] and merged.parameters["required"] == ["a", "b"]
    assert judge.pairs == 1
    again = CountingJudge()
    assert run_merge(tools, v, again, MergeConfig(threshold=0.9), store=store).phi == result.phi
    assert again.pairs == 0  # every verdict came from the store
    broken = run_merge(tools, v, BrokenJudge(), MergeConfig(threshold=0.9))
    assert broken.clusters == () and not broken.pairs[0].ok and "garbage" in broken.pairs[0].error


class BrokenAuditJudge(OfflineJudge):
    def audit_cluster(self, members):
        return RoleCall(value=None, ok=False, error="LLMTimeout: no answer", role="audit_cluster")


def test_a_resumed_run_asks_again_where_calls_failed_and_a_finished_one_does_not():
    tools, v = _catalog()
    store = MemoryMergeStore()
    first = run_merge(tools, v, BrokenJudge(), MergeConfig(threshold=0.9), store=store)
    assert first.clusters == () and not first.pairs[0].ok
    reopened = CountingJudge()
    same = run_merge(tools, v, reopened, MergeConfig(threshold=0.9), store=store, retry_failed=False)
    assert reopened.pairs == 0 and same.phi == first.phi  # a finished run's results are final
    resumed = CountingJudge()
    result = run_merge(tools, v, resumed, MergeConfig(threshold=0.9), store=store)
    assert resumed.pairs == 1 and result.pairs[0].ok and result.phi["math_gcd"] == "math.gcd"
    assert store.load_pairs()[("math.gcd", "math_gcd")].ok  # the failure was overwritten, not added to

    audits = MemoryMergeStore()
    failed = run_merge(tools, v, BrokenAuditJudge(), MergeConfig(threshold=0.9), store=audits)
    assert failed.clusters[0].audit.verdict == "ERROR"
    assert run_merge(tools, v, OfflineJudge(), MergeConfig(threshold=0.9), store=audits).clusters[0].audit.verdict \
        == "MERGE_OK"


def test_merged_parameters_keep_representative_first():
    rep = tool("t", props=["q", "limit"], required=["q"])
    other = tool("u", props=["q", "lang"], required=["q", "lang"])
    schema = merged_parameters(rep, [other])
    assert list(schema["properties"]) == ["q", "limit", "lang"] and schema["required"] == ["q"]
    assert "optional" in schema["properties"]["lang"]["description"]


def test_relabel_queries_and_coverage_by_hand():
    phi = {"a": "a", "b": "a", "c": "c"}
    qs = relabel_queries([Query("1", "x", ("b", "c")), Query("2", "y", ("a", "b"))], phi)
    assert [q.gold for q in qs] == [("a", "c"), ("a",)]
    merged = [tool("a", props=["p", "q"]), tool("c", props=["r"])]
    calls = [("a", frozenset({"p"})), ("b", frozenset({"q"})), ("b", frozenset({"q"})), ("b", frozenset({"z"})),
             ("c", frozenset({"p"}))]
    cov = coverage(calls, merged, phi)
    # served: a{p} yes, b{q}→a yes (twice), b{z} no, c{p}→c no  ⇒ TCCR 3/5; unique 4 capabilities, 2 served
    assert (cov.tccr, cov.ucc, cov.calls, cov.capabilities) == (0.6, 0.5, 5, 4)
    assert coverage(calls, merged).tccr == 0.8  # the paper's looser "any merged tool" form serves c{p} via a


def test_merge_roles_by_kind():
    assert isinstance(make_roles("merge", "offline"), OfflineJudge)
    with pytest.raises(ValueError, match="valid kinds: offline, prompted, openai"):
        make_roles("merge", "oracle")
    with pytest.raises(ValueError, match="prompted merge roles need prompted LLM operators"):
        make_roles("merge", "prompted")
