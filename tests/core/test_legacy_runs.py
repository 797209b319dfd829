"""Runs stored by the code before the redesign (tests/assets/legacy_store_v1.sqlite.gz: two eval runs, a
merge run with two review decisions, a trials run and a timeline on the demo) still open through today's
services and score to what they stored, without a strategy, judge or role being asked again."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from core.context import LLMConfig
from core.evaluation import load_run
from core.merging.pipeline import MergeConfig
from core.merging.review import load_review
from core.merging.service import merge_version
from core.scoring import score
from core.workspace import Workspace
from storage import ledger, runs
from storage.db import make_engine

ASSETS = Path(__file__).resolve().parents[1] / "assets"


@pytest.fixture()
def legacy(tmp_path, minilm):
    path = tmp_path / "legacy.sqlite"
    with gzip.open(ASSETS / "legacy_store_v1.sqlite.gz", "rb") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return Workspace(make_engine(f"sqlite:///{path}"), minilm)


def _calls(ws) -> int:
    return len(ledger.list_calls(ws.db, limit=100_000))


def test_old_eval_runs_rescore_to_their_stored_metrics_and_at_other_cutoffs(legacy):
    for run_id in (1, 2):
        stored = runs.get_run(legacy.db, run_id).metrics
        run = load_run(legacy, run_id)
        again = {**score(run).as_dict(), **run.measures}
        assert again == dict(stored)
        assert list(again) == list(stored)  # the same keys in the same order
        at3 = score(run, metrics=["ndcg@3", "recall@3"]).as_dict()
        assert 0.0 <= at3["ndcg@3"] <= 1.0 and at3["recall@3"] <= stored["recall@5"]


@pytest.mark.slow
def test_an_old_merge_run_rebuilds_from_the_store_with_its_review(legacy):
    before = _calls(legacy)
    stored = runs.get_run(legacy.db, 4)
    config = MergeConfig(threshold=stored.config["threshold"], k=stored.config["k"],
                         autocorrect=stored.config["autocorrect"])
    merged = merge_version(legacy, stored.config["version_id"], config, LLMConfig())
    assert merged.run_id == 4
    assert _calls(legacy) == before  # rebuilt from stored verdicts: the judge was not asked
    assert {k: v for k, v in merged.result.summary().items()} == {
        k: v for k, v in stored.metrics.items() if k not in ("llm_calls", "llm_errors")}
    review = load_review(legacy, 4, merged.result, legacy.tools(stored.config["version_id"]))
    assert [(d.cluster_id, d.action) for d in review.decisions] == [("c001", "reject"), ("c002", "edit_doc")]
    assert review.states["c001"].status == "rejected"


def test_an_old_trials_run_opens_and_measures_as_stored(legacy):
    from core.trials.evidence import TrialOutcome
    from core.trials.measures import score_reports
    from core.trials.service import load_trial_run

    info, reports = load_trial_run(legacy, 5)
    assert [r.query_id for r in reports] == ["demo-0001", "demo-0002", "demo-0003"]
    assert all(isinstance(t.outcome, TrialOutcome) for r in reports for t in r.trials)
    again = score_reports(reports, 5)
    assert again["before"] == info.metrics["before"] and again["after"] == info.metrics["after"]
    assert again["failures"]["shares"] == info.metrics["failures"]["shares"]


def test_an_old_timeline_opens_with_its_summary(legacy):
    from core.evolution.service import load_evolution

    timeline = load_evolution(legacy, 6)
    stored = runs.get_run(legacy.db, 6).metrics
    assert timeline.status == "done"
    assert timeline.summary == stored["summary"]
