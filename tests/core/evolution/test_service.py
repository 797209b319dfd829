import json

import pytest

from core.evolution.markov import MarkovConfig
from core.evolution.pipeline import EvolutionConfig
from core.evolution.service import (
    EvolutionSpec,
    finished_run,
    list_evolution_runs,
    load_evolution,
    run_evolution,
)
from core.workspace import Workspace
from storage import runs
from tests.core.evolution.test_pipeline import FX, OLD_TIME, POLLEN, QUERIES, TIME, UV, W2, W

pytestmark = pytest.mark.pg

METHODS = ("original", "contda", "contda_no_adjust", "contda_no_discovery")


@pytest.fixture
def ws(db, hashing_embedder):
    ws = Workspace(db, hashing_embedder)
    for i, tools in enumerate([[W, FX, OLD_TIME], [W2, FX, TIME, POLLEN], [W2, TIME, POLLEN, UV]]):
        ws.import_tools("weather", tools, label=f"v{i + 1}")
    return ws


def spec(**kw):
    return EvolutionSpec("weather", config=EvolutionConfig(k=2), **kw)


def test_versions_run_is_stored_and_summarised(ws):
    run = run_evolution(ws, spec(seeds=(0, 1)), QUERIES)
    assert run.status == "done" and run.resumed == 0
    assert set(run.summary["methods"]) == set(METHODS)
    assert run.summary["steps"] == 3
    for m in run.summary["methods"].values():
        assert m["seeds"] == [0, 1] and len(m["success_by_step"]) == 3 and len(m["forget_by_step"]) == 2
        assert 0.0 <= m["avg_perf"]["mean"] <= 1.0
    items = runs.load_items(ws.db, run.run_id)
    assert len(items) == 2 * (1 + 3 * 4)  # per seed: the sequence and one item per (step, method)
    assert run.sequences[0]["labels"] == ["v1", "v2", "v3"]
    assert run.llm_calls > 0  # offline roles are recorded in the ledger too
    again = load_evolution(ws, run.run_id)
    assert again.summary == run.summary and len(again.results) == len(run.results)
    assert [r.id for r in list_evolution_runs(ws, "weather")] == [run.run_id]
    with pytest.raises(ValueError, match="no timeline run"):
        load_evolution(ws, run.run_id + 1)
    json.dumps(run.to_json())  # the CLI prints it


def test_cancelled_run_resumes_without_repeating_items(ws):
    calls = {"n": 0}

    def cancel_after_a_while():
        calls["n"] += 1
        return calls["n"] > 6

    stopped = run_evolution(ws, spec(), QUERIES, cancelled=cancel_after_a_while)
    assert stopped.status == "stopped"
    first = runs.load_items(ws.db, stopped.run_id)
    assert 0 < len(first) < 13
    resumed = run_evolution(ws, spec(), QUERIES)
    assert resumed.run_id == stopped.run_id and resumed.status == "done"
    assert resumed.resumed == len(first) - 1  # every stored (step, method), the sequence item aside
    items = runs.load_items(ws.db, resumed.run_id)
    assert len(items) == 13
    full = run_evolution(ws, spec(), QUERIES, resume=False)
    assert resumed.summary == full.summary  # a resumed run ends where an uninterrupted one does


def test_markov_run_over_the_latest_version(ws):
    run = run_evolution(ws, spec(source="markov", markov=MarkovConfig(pattern="expansion", steps=2, initial=0.5,
                                                                      rate=0.25), seeds=(0, 1, 2)), QUERIES)
    for seq in run.sequences.values():
        sizes = [len(k) for k in seq["keys"]]
        assert sizes == [2, 3, 4]  # a pool of 4, growing by one tool a step
        assert all(not d["removed"] for d in seq["diffs"])
    assert run.sequences[0]["keys"] != run.sequences[1]["keys"] or run.sequences[1]["keys"] != run.sequences[2]["keys"]


def test_a_finished_run_with_the_same_settings_is_found_instead_of_stored_again(ws):
    assert finished_run(ws, spec(methods=("original",)), QUERIES) is None
    done = run_evolution(ws, spec(methods=("original",)), QUERIES)
    found = finished_run(ws, spec(methods=("original",)), QUERIES)
    assert found is not None and found.id == done.run_id
    # any change to what is run is a different timeline
    assert finished_run(ws, spec(methods=("original", "contda")), QUERIES) is None
    assert finished_run(ws, spec(methods=("original",), seeds=(0, 1)), QUERIES) is None
    assert finished_run(ws, spec(methods=("original",)), QUERIES[:-1]) is None
    assert finished_run(ws, EvolutionSpec("weather", methods=("original",), config=EvolutionConfig(k=3)),
                        QUERIES) is None
    # asked again explicitly, a second run is stored; the newest is the one found from then on
    second = run_evolution(ws, spec(methods=("original",)), QUERIES, resume=False)
    assert second.run_id != done.run_id
    assert finished_run(ws, spec(methods=("original",)), QUERIES).id == second.run_id
    # a new catalog version: the stored runs walked the old versions, so none answers any more
    ws.import_tools("weather", [W2, TIME, POLLEN, UV, FX], label="v4")
    assert finished_run(ws, spec(methods=("original",)), QUERIES) is None


def test_a_stopped_run_is_not_offered_as_finished(ws):
    stopped = run_evolution(ws, spec(methods=("original",)), QUERIES, cancelled=lambda: True)
    assert stopped.status == "stopped"
    assert finished_run(ws, spec(methods=("original",)), QUERIES) is None


def test_bad_specs_fail_before_anything_is_stored(ws):
    with pytest.raises(ValueError, match="valid methods"):
        spec(methods=("nope",))
    with pytest.raises(ValueError, match="valid sources"):
        spec(source="log")
    with pytest.raises(ValueError, match="no queries"):
        run_evolution(ws, spec(), [])
    with pytest.raises(ValueError, match=r"no version\(s\) \[9\]"):
        run_evolution(ws, spec(version_numbers=(1, 9)), QUERIES)
    assert list_evolution_runs(ws) == ()


def answer_like_a_model(body):
    """A stand-in for the chat model behind the prompted roles: reads which role is asking from the prompt
    and answers in that role's JSON shape."""
    prompt = body["messages"][-1]["content"]
    if '{"probes"' in prompt:
        return json.dumps({"probes": [{"track": "known", "request": "Pollen levels in Porto?",
                                       "arguments": {"city": "Porto"}, "rationale": "documented use"}]})
    if '{"suggestions"' in prompt:
        return json.dumps({"suggestions": ["Say which pollen types are reported."]})
    if '{"description"' in prompt:
        return json.dumps({"description": "Pollen levels for grass, tree and weed pollen in a city, today."})
    if '{"notes"' in prompt:
        keys = [line[1:-1] for line in prompt.splitlines() if line.startswith("[") and line.endswith("]")]
        return json.dumps({"notes": {k: "- Overlap: checked by the model." for k in keys}})
    if '{"tools"' in prompt:
        first = prompt.split("\n[", 1)[1].split("]", 1)[0] if "\n[" in prompt else ""
        return json.dumps({"tools": [first]})
    return "{}"


def test_prompted_roles_drive_the_run_through_an_openai_compatible_server(ws):
    from core.context import LLMConfig
    from tests.core.llm.fake_openai import FakeOpenAI

    fake = FakeOpenAI().start()
    fake.respond = answer_like_a_model
    try:
        llm = LLMConfig(kind="openai", base_url=fake.url, model="tiny-model", options={"max_retries": 0})
        run = run_evolution(ws, spec(methods=("original", "contda")), QUERIES, llm=llm, api_key="sk-test")
    finally:
        fake.close()
    assert run.status == "done" and run.llm_calls > 0
    revised = [r for r in run.results if r.method == "contda" for r in r.revisions if r.stage == "explore"]
    assert any(r.key == "pollen" and "weed pollen" in r.after for r in revised)
    from sqlalchemy import text

    with ws.db.connect() as conn:  # the key went to the server, never into the store
        for table in ("run", "run_item", "llm_call"):
            rows = conn.execute(text(f"select * from {table}")).fetchall()
            assert rows and not any("sk-test" in str(row) for row in rows)
    asked = " ".join(m["body"]["messages"][-1]["content"] for m in fake.seen if "body" in m)
    assert '{"probes"' in asked and '{"notes"' in asked and '{"tools"' in asked
    assert all(m["auth"] == "Bearer sk-test" for m in fake.seen if "body" in m)
