
from core.llm.framework import make_roles
from core.llm.ledger import MemoryLedger
from core.merging.pipeline import MergeConfig, run_merge
from tests.core.llm.conftest import fake  # noqa: F401 - the fake chat server fixture
from tests.core.merging.test_merging import _catalog


def test_prompted_judge_against_a_chat_server(fake):  # noqa: F811
    fake.script = [
        ("ok", '{"same": true, "reason": "both compute the gcd"}'),
        ("ok", "this is not a verdict"),  # the audit answer is unusable: the cluster is kept, error recorded
        ("ok", "{BEGIN} Greatest common divisor of two integers. {END}"),
    ]
    ledger = MemoryLedger()
    ops = make_roles("strategy", "openai", ledger=ledger, base_url=fake.url, model="tiny-model", api_key="k",
                         max_retries=0)
    judge = make_roles("merge", "prompted", operators=ops)
    tools, v = _catalog()
    result = run_merge(tools, v, judge, MergeConfig(threshold=0.9, max_workers=1))
    assert result.pairs[0].same and result.pairs[0].reason == "both compute the gcd"
    cluster = result.clusters[0]
    assert cluster.audit.verdict == "ERROR" and "JSON" in cluster.audit.error
    assert result.merged_tools["math.gcd"].description == "Greatest common divisor of two integers."
    assert [r.role for r in ledger.records] == ["classify_pair", "audit_cluster", "merged_doc"]
    assert "math_gcd" in fake.seen[0]["body"]["messages"][1]["content"]
