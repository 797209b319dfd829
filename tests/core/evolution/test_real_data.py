"""The timeline on a slice of Seal-Tools (real tools and gold labels no one on this project wrote)."""

import random

import pytest

from core.evolution.markov import MarkovConfig
from core.evolution.pipeline import EvolutionConfig
from core.evolution.service import EvolutionSpec, run_evolution
from core.importers.openai_tools import load_openai_tools
from core.importers.queries import parse_queries_jsonl
from core.workspace import Workspace
from tests.conftest import dataset_dir

pytestmark = [pytest.mark.dataset, pytest.mark.slow]


def test_seal_tools_mixture_timeline(db, minilm):
    folder = dataset_dir("seal_tools")
    tools = load_openai_tools(folder / "tools.json", source="seal_tools")
    queries = parse_queries_jsonl((folder / "queries.jsonl").read_bytes(), "queries.jsonl",
                                  known_keys={t.key for t in tools})
    # a pool of 300 tools holding the gold of 40 single-tool queries, plus unrelated tools
    rng = random.Random(0)
    single = [q for q in queries if len(q.gold) == 1]
    chosen = rng.sample(single, 40)
    gold = {q.gold[0] for q in chosen}
    others = [t for t in tools if t.key not in gold]
    pool = [t for t in tools if t.key in gold] + rng.sample(others, 300 - len(gold))
    ws = Workspace(db, minilm)
    ws.import_tools("seal-slice", pool)
    spec = EvolutionSpec("seal-slice", "markov", MarkovConfig("mixture", steps=3, initial=0.6, rate=0.1),
                         seeds=(0, 1), config=EvolutionConfig(k=5))
    run = run_evolution(ws, spec, chosen)
    for seq in run.sequences.values():
        assert {len(k) for k in seq["keys"]} == {180}  # mixture keeps the size
        assert all(len(d["added"]) == len(d["removed"]) == 30 for d in seq["diffs"])
    for m in run.summary["methods"].values():
        rates = [s["mean"] for s in m["success_by_step"]]
        assert 0.05 < min(rates) and max(rates) < 0.95  # tools come and go: some queries fail, many pass
        for t, causes in enumerate(m["causes_by_step"]):
            failed = round(sum(causes.values()))
            assert failed == round(40 * (1 - m["success_by_step"][t]["mean"]))
    orig = run.summary["methods"]["original"]
    assert orig["forget"]["mean"] > 0 and orig["discover"]["mean"] > 0  # removals and additions both matter
