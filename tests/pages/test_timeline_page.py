"""AppTest of the Timeline page: the call to action before any run, then a stored run's table, charts, step
slider, regression list and documentation history."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def _timeline(at: AppTest) -> AppTest:
    settle(at.switch_page("pages/timeline.py").run())
    assert not at.exception, at.exception
    return at


def test_without_a_run_the_page_asks_for_one(db_url):
    at = _timeline(AppTest.from_file(APP, default_timeout=180))
    assert at.title[0].value == "Timeline"
    assert any("No timeline has been run" in i.value for i in at.info), [i.value for i in at.info]
    assert at.button(key="timeline_run").disabled is False
    assert not at.get("plotly_chart")
    # the fallback is on by default but needs the execution judge; notes are not indexed unless asked
    assert at.toggle(key="timeline_fallback").value is True and at.toggle(key="timeline_fallback").disabled
    assert at.toggle(key="timeline_index_notes").value is False
    at.radio(key="timeline_judge").set_value("execution").run()
    assert not at.exception, at.exception
    assert not at.toggle(key="timeline_fallback").disabled


def test_a_stored_run_renders_and_the_step_slider_moves(db_url):
    from core.evolution.pipeline import EvolutionConfig
    from core.evolution.service import EvolutionSpec, run_evolution
    from core.settings import Settings, build_workspace
    from storage.catalogs import list_query_sets, load_queries

    ws = build_workspace(Settings(db_url=db_url))  # the embedder the app builds from the same settings
    ws.ensure_demo()
    queries = load_queries(ws.db, list_query_sets(ws.db, "demo")[0].id)[:16]
    spec = EvolutionSpec("demo", "versions", seeds=(0,), methods=("original", "contda"), config=EvolutionConfig(k=5))
    run = run_evolution(ws, spec, queries)
    assert run.status == "done"

    at = _timeline(AppTest.from_file(APP, default_timeout=180))
    assert not [i.value for i in at.info if "No timeline" in i.value]
    assert at.selectbox(key="timeline_pick").value == run.run_id
    frame = next(d.value for d in at.dataframe if "AvgPerf (%)" in d.value.columns)
    assert list(frame["method"]) == ["Original docs", "CONTDA"]
    # one seed: plain values, no "± 0.00" spread that was never measured, and the caption says n = 1
    assert not any("±" in str(v) for col in ("AvgPerf (%)", "Forget (%) ↓", "Discover (%) ↑") for v in frame[col])
    captions = " ".join(c.value for c in at.caption)
    assert f"Run #{run.run_id}" in captions and "16 queries" in captions and "5 steps" in captions
    assert "one seed (n = 1)" in captions and "standard error over" not in captions
    charts = at.get("plotly_chart")
    assert len(charts) == 1  # success by step (Fig. 1A): the other figures' and the map's tabs are closed (lazy)
    assert "CONTDA Fig. 1A" in " ".join(c.value for c in at.caption)
    tabs = at.get("tab")
    assert [t.label for t in tabs] == ["Success by step", "Toolset changes", "Forget / discover", "Trade-off",
                                       "Catalog map by step", "Documentation revisions"]
    # the paired test: one seed over four steps is 4 (seed, step) cells, too few to test, and it says so
    tests = next(d.value for d in at.dataframe if "wins/ties/losses" in d.value.columns)
    assert list(tests["method"]) == ["CONTDA"] and list(tests["cells"]) == [4]
    assert list(tests["p"]) == ["n/a (fewer than 10 cells)"]
    assert "Paired test between methods" in [h.value for h in at.subheader]
    assert any("No fallback in this run" in c.value for c in at.caption)  # the selection judge has no calls

    for label, figure in (("Toolset changes", "Fig. 1B"), ("Forget / discover", "Fig. 1C"), ("Trade-off", "Fig. 4b")):
        at.session_state["timeline_tab"] = label  # what a click on the tab sets
        at.run()
        assert not at.exception, at.exception
        assert len(at.get("plotly_chart")) == 1, label  # that figure alone
        assert f"CONTDA {figure}" in " ".join(c.value for c in at.caption), label

    at.session_state["timeline_tab"] = "Catalog map by step"
    at.run()
    assert not at.exception, at.exception
    assert len(at.get("plotly_chart")) == 1  # the map alone
    slider = at.select_slider(key="timeline_step")
    assert slider.value == 1 and list(slider.options) == ["t0 · v1", "t1 · v2", "t2 · v3", "t3 · v4", "t4 · v5"]
    headers = [h.value for h in at.subheader]
    assert any(h.startswith("Regressions at step t1 · v2") for h in headers), headers

    slider.set_value(3).run()
    assert not at.exception, at.exception
    headers = [h.value for h in at.subheader]
    assert any(h.startswith("Regressions at step t3 · v4") for h in headers), headers
    assert not any(h.startswith("Regressions at step t1") for h in headers)
    assert any("lost at t3 · v4" in c.value for c in at.caption)

    slider = at.select_slider(key="timeline_step")
    slider.set_value(0).run()
    assert not at.exception, at.exception
    assert any("Step 0 is the starting point" in c.value for c in at.caption)

    # documentation history of a revised tool under CONTDA: diff as code, evidence in an expander
    at.session_state["timeline_tab"] = "Documentation revisions"
    at.run()
    assert not at.exception, at.exception
    tool = at.selectbox(key="timeline_tool")
    assert tool.options, "CONTDA made no revisions"
    assert any(c.language == "diff" for c in at.code)
    assert any(e.label == "Evidence" for e in at.expander)


def test_run_timeline_runs_as_a_background_job_and_shows_its_run(db_url):
    from core.settings import Settings, build_workspace
    from storage.runs import list_runs

    at = _timeline(AppTest.from_file(APP, default_timeout=300))
    at.multiselect(key="timeline_methods").set_value(["original"]).run()
    at.number_input(key="timeline_queries_timeline").set_value(4).run()
    settle(at.button(key="timeline_run").click().run())
    assert not at.exception, at.exception
    ws = build_workspace(Settings(db_url=db_url))
    stored = list_runs(ws.db, kind="evolution")
    assert [r.status for r in stored] == ["done"]
    assert at.selectbox(key="timeline_pick").value == stored[0].id
    assert "timeline_cancel" not in [b.key for b in at.button]  # the Cancel shown while it ran is gone
    assert at.session_state["timeline_job"] is None  # the finished job was handed over, then forgotten
    frame = next(d.value for d in at.dataframe if "AvgPerf (%)" in d.value.columns)
    assert list(frame["method"]) == ["Original docs"]


def test_running_the_same_timeline_again_opens_the_stored_run_until_asked_to_run_again(db_url):
    from core.settings import Settings, build_workspace
    from storage.runs import list_runs

    at = _timeline(AppTest.from_file(APP, default_timeout=300))
    at.multiselect(key="timeline_methods").set_value(["original"]).run()
    at.number_input(key="timeline_queries_timeline").set_value(3).run()
    settle(at.button(key="timeline_run").click().run())
    assert not at.exception, at.exception
    ws = build_workspace(Settings(db_url=db_url))
    first = list_runs(ws.db, kind="evolution")
    assert [r.status for r in first] == ["done"]

    settle(at.button(key="timeline_run").click().run())  # the same settings: nothing new is computed or stored
    assert not at.exception, at.exception
    assert [r.id for r in list_runs(ws.db, kind="evolution")] == [first[0].id]
    assert any(f"Already run: timeline #{first[0].id}" in i.value for i in at.sidebar.info)
    assert at.selectbox(key="timeline_pick").value == first[0].id
    at.run()  # the notice and its button stay while the settings stay
    assert any("Already run" in i.value for i in at.sidebar.info)
    assert at.button(key="timeline_run_again").label == "Run again anyway"

    settle(at.button(key="timeline_run_again").click().run())  # asked explicitly: a second run is stored
    assert not at.exception, at.exception
    stored = list_runs(ws.db, kind="evolution")
    assert len(stored) == 2 and stored[0].id != first[0].id and stored[0].status == "done"
    assert at.selectbox(key="timeline_pick").value == stored[0].id
    assert not any("Already run" in i.value for i in at.sidebar.info)

    at.number_input(key="timeline_queries_timeline").set_value(2).run()  # other settings: a new timeline
    settle(at.button(key="timeline_run").click().run())
    assert not at.exception, at.exception
    assert len(list_runs(ws.db, kind="evolution")) == 3
    assert not any("Already run" in i.value for i in at.sidebar.info)


def test_a_one_version_catalog_opens_on_the_markov_simulation(db_url):
    from core.settings import Settings, build_workspace
    from storage.catalogs import get_version, load_tools

    ws = build_workspace(Settings(db_url=db_url))
    ws.ensure_demo()
    ws.import_tools("solo", load_tools(ws.db, get_version(ws.db, "demo").id)[:12])
    at = _timeline(AppTest.from_file(APP, default_timeout=180))
    assert at.radio(key="timeline_source_demo").value == "Catalog versions"  # five versions: walk them
    at.selectbox(key="sel_catalog").set_value("solo").run()
    assert not at.exception, at.exception
    # the demo's choice does not follow to a catalog with one version, where it could not run
    assert at.radio(key="timeline_source_solo").value == "Markov simulation"
    assert not [w.value for w in at.warning if "one stored version" in w.value]
