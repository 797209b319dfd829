"""A merge run of a stored catalog interrupted mid-way (the Merge review page's Cancel, or Stop) is marked
stopped, keeps every verdict it had, and the next run with the same settings resumes it to the same end."""

import pytest

from core.merging.pipeline import MergeConfig
from core.merging.service import merge_version
from core.workspace import Workspace
from storage import runs
from storage.db import make_engine
from storage.ledger import count_calls
from storage.merges import list_merge_runs


class Interrupt(BaseException):
    """What Streamlit raises inside a progress update when the user clicks Cancel."""


def _with_duplicates(tiny_tools):
    """The six tiny tools plus two genuine duplicates, so that the merge has clusters to audit and document
    (the six alone are all different jobs)."""
    from tests.conftest import _tool

    return (*tiny_tools, _tool("weather_now", "Current weather conditions in a city", ("city",), "Weather"),
            _tool("currency_convert", "Convert money from one currency to another", ("amount", "to"), "Finance"))


def test_an_interrupted_merge_is_stopped_then_resumed_without_asking_twice(db, tmp_path, hashing_embedder,
                                                                           tiny_tools):
    tiny_tools = _with_duplicates(tiny_tools)
    config = MergeConfig(threshold=0.05)  # every pair of the eight tools is a candidate
    # the same merge, uninterrupted, in a store of its own
    other = Workspace(make_engine(f"sqlite:///{tmp_path / 'whole.db'}"), hashing_embedder)
    whole = merge_version(other, other.import_tools("tiny", tiny_tools).version.id, config)
    ws_calls = count_calls(other.db, run_id=whole.run_id)

    ws = Workspace(db, hashing_embedder)
    version = ws.import_tools("tiny", tiny_tools).version.id
    assert ws_calls > 3

    seen = []

    def cancel_after_three(done, total, stage):
        seen.append(stage)
        if len(seen) == 4:
            raise Interrupt()

    with pytest.raises(Interrupt):
        merge_version(ws, version, config, progress=cancel_after_three)
    stopped = [r for r in list_merge_runs(db, version) if r.status == "stopped"]
    assert len(stopped) == 1
    kept = runs.done_item_keys(db, stopped[0].id)
    assert kept  # the verdicts reached before Cancel are stored
    calls_before = count_calls(db, run_id=stopped[0].id)

    resumed = merge_version(ws, version, config)
    assert resumed.run_id == stopped[0].id  # the same run, not a new one
    info = next(r for r in list_merge_runs(db, version) if r.id == resumed.run_id)
    assert info.status == "done"
    # nothing asked twice: the resumed run's calls plus the interrupted ones equal one whole run's
    assert count_calls(db, run_id=resumed.run_id) == ws_calls
    assert calls_before < ws_calls
    assert resumed.result.phi == whole.result.phi
    assert [c.members for c in resumed.result.clusters] == [c.members for c in whole.result.clusters]


def test_a_cancelled_merge_job_is_stopped_and_the_next_job_resumes_it(db, hashing_embedder, tiny_tools,
                                                                      monkeypatch):
    from core.context import LLMConfig
    from core.jobs import CANCELLED, JobCancelled
    from core.merging import service

    config, llm = MergeConfig(threshold=0.05), LLMConfig()
    tiny_tools = _with_duplicates(tiny_tools)
    ws = Workspace(db, hashing_embedder)
    version = ws.import_tools("tiny", tiny_tools).version.id
    key = service.merge_job_key(ws, version, config, llm)
    real = service.run_merge
    reports = []

    def cancelled_at_the_fourth_report(*args, progress, **kwargs):
        def report(done, total, stage):
            reports.append(stage)
            if len(reports) == 4:
                ws.jobs.cancel(key)  # what the page's Cancel button does
            progress(done, total, stage)

        return real(*args, progress=report, **kwargs)

    monkeypatch.setattr(service, "run_merge", cancelled_at_the_fourth_report)
    job = service.start_merge(ws, version, config, llm)
    with pytest.raises(JobCancelled):
        job.result(timeout=60)
    assert job.state().status == CANCELLED
    stopped = [r for r in list_merge_runs(db, version) if r.status == "stopped"]
    assert len(stopped) == 1 and runs.done_item_keys(db, stopped[0].id)

    monkeypatch.setattr(service, "run_merge", real)
    again = service.start_merge(ws, version, config, llm)
    assert again is not job
    resumed = again.result(timeout=60)
    assert resumed.run_id == stopped[0].id
    assert next(r for r in list_merge_runs(db, version) if r.id == resumed.run_id).status == "done"
    assert resumed.result.clusters  # the eight tools at θ = 0.05 do form clusters


def test_finished_runs_are_found_by_setting_and_judge_and_carry_their_metrics(db, hashing_embedder, tiny_tools):
    from core.context import LLMConfig
    from core.merging.service import finished_merge_run, finished_merge_runs, merge_runs

    ws = Workspace(db, hashing_embedder)
    version = ws.import_tools("tiny", _with_duplicates(tiny_tools)).version.id
    low, high = MergeConfig(threshold=0.05), MergeConfig(threshold=0.5)
    offline = LLMConfig()
    assert finished_merge_run(ws, version, low, offline) is None and finished_merge_runs(ws, version, offline) == {}
    first = merge_version(ws, version, low)
    second = merge_version(ws, version, high)
    assert [r.id for r in merge_runs(ws, version)] == [second.run_id, first.run_id]  # newest first
    assert finished_merge_run(ws, version, low, offline).id == first.run_id
    assert list(finished_merge_runs(ws, version, offline)) == [high, low]
    assert finished_merge_run(ws, version, low, LLMConfig(kind="openai", model="m")) is None  # another judge
    # the stored summary comes with the run, fresh or read back
    assert first.metrics["llm_calls"] == count_calls(db, run_id=first.run_id) > 0
    assert merge_version(ws, version, low).metrics == first.metrics
