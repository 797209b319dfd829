"""AppTest smoke tests: every page renders without an exception on the demo catalog."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.trials.pipeline import TrialConfig
from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow

PAGES = [
    "pages/overlap_map.py", "pages/merge_review.py", "pages/trials.py",
    "pages/timeline.py", "pages/runs.py", "pages/settings.py",
]


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLATLAS_DB_URL", f"sqlite:///{tmp_path / 'app.db'}")
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Tool Atlas"  # the root is the Start page
    settle(at.switch_page("pages/catalog.py").run())  # the first visit embeds the demo as a background job
    assert not at.exception, at.exception
    return at


def test_catalog_page_searches(app):
    assert app.title[0].value == "Catalog"
    app.text_input(key="search_query").input("convert dollars to euros").run()
    assert not app.exception, app.exception
    captions = [c.value for c in app.caption]
    assert any("results in" in c for c in captions), captions
    assert app.dataframe, "search results table missing"
    assert any("currenc" in m.value.lower() for m in app.markdown), "tool card of the top hit missing"


def test_catalog_hybrid_and_filters(app):
    app.radio(key="search_mode").set_value("hybrid").run()
    app.slider(key="search_alpha").set_value(0.3).run()
    app.text_input(key="search_query").input("weather forecast").run()
    assert not app.exception, app.exception
    cats = app.multiselect(key="filter_categories")
    weather = next(o for o in cats.options if "weather" in o.lower())
    cats.set_value([weather]).run()
    assert not app.exception, app.exception
    frame = app.dataframe[0].value
    assert set(frame["category"]) == {weather}


def test_catalog_tabs_are_lazy_and_hold(app):
    """Only the open tab's body runs (a search no longer resends the Browse table and the figures), and a rerun
    keeps the open tab."""
    assert app.text_input(key="search_query") is not None
    assert not app.metric and not [d for d in app.dataframe if d.key == "browse_table"]
    app.session_state["catalog_tab"] = "Browse"  # what a click on the tab sets
    app.run()
    assert not app.exception, app.exception
    assert [d for d in app.dataframe if d.key == "browse_table"]
    assert not [t for t in app.text_input if t.key == "search_query"]
    app.multiselect(key="filter_categories").set_value([app.multiselect(key="filter_categories").options[0]]).run()
    assert [d for d in app.dataframe if d.key == "browse_table"], "a filter change reran the page onto another tab"


def test_statistics_tab_renders(app):
    app.session_state["catalog_tab"] = "Statistics"
    app.run()
    assert not app.exception, app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Tools"].replace(",", "")) >= 300
    assert int(metrics["Categories"]) >= 12
    frames = [d.value for d in app.dataframe]
    kinds = next(f for f in frames if "problem" in f.columns)
    assert "description is very short" in set(kinds["problem"])  # the demo has a dozen of those
    worst = next(f for f in frames if "problems" in f.columns)
    assert "parameter descriptions only restate the name" in set(kinds["problem"])  # "region: Region."
    # 253 of the demo's 312 tools have a problem: the 200 lowest rated are listed, lowest first
    assert len(worst) == 200 and (worst["score"] <= 4).all() and list(worst["score"]) == sorted(worst["score"])


def test_tool_cards_show_the_documentation_quality(app):
    app.text_input(key="search_query").input("convert dollars to euros").run()
    assert any(c.value.startswith("Documentation quality (rules): **") for c in app.caption)


@pytest.mark.parametrize("page", PAGES)
def test_other_pages_render(app, page):
    settle(app.switch_page(page).run())
    assert not app.exception, app.exception
    assert app.title


def test_settings_checks_report_reachability(app, monkeypatch):
    monkeypatch.setenv("TOOLATLAS_OPERATOR", "1")  # a model folder of one's own: operator mode only
    app.switch_page("pages/settings.py").run()
    assert not app.exception, app.exception
    app.button(key="check_db").click().run()
    assert any("Reachable" in s.value for s in app.success)
    app.text_input(key="set_embedding").input("/nonexistent/model").run()
    app.button(key="check_embedder").click().run()
    assert any("cannot load embedding model" in e.value for e in app.error)
    app.radio(key="set_llm_kind").set_value("openai").run()
    app.text_input(key="set_base_url").input("http://127.0.0.1:9/v1").run()
    app.button(key="set_check_llm").click().run()
    assert not app.exception, app.exception
    assert any("cannot reach" in e.value for e in app.error)


def test_settings_can_switch_off_a_reranker_set_in_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLATLAS_DB_URL", f"sqlite:///{tmp_path / 'app.db'}")
    monkeypatch.setenv("TOOLATLAS_RERANKER", str(tmp_path / "some-cross-encoder"))  # loaded only when used
    monkeypatch.setenv("TOOLATLAS_OPERATOR", "1")  # the reranker is the server's: switched off in operator mode only
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/settings.py").run()
    assert at.text_input(key="set_reranker").value.endswith("some-cross-encoder")
    at.text_input(key="set_reranker").input("").run()
    at.button(key="set_use_reranker").click().run()
    assert not at.exception, at.exception
    assert any("switched off" in s.value for s in at.success)
    at.switch_page("pages/settings.py").run()
    assert at.text_input(key="set_reranker").value == ""  # the override holds against the environment


def test_runs_page_compares_stored_runs(tmp_path, monkeypatch):
    from core.evaluation import evaluate
    from core.settings import Settings, build_workspace
    from storage.catalogs import get_version, list_query_sets, load_queries

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    ws = build_workspace(Settings(db_url=url))
    ws.ensure_demo()
    version = get_version(ws.db, "demo")
    qs = list_query_sets(ws.db, "demo")[0]
    queries = load_queries(ws.db, qs.id)[:20]
    evaluate(ws, version.id, qs.id, queries, params={"mode": "bm25"})
    evaluate(ws, version.id, qs.id, queries, params={"mode": "dense"})
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    settle(at.switch_page("pages/catalog.py").run())  # the first visit embeds the demo as a background job
    at.switch_page("pages/runs.py").run()
    assert not at.exception, at.exception
    assert any("p (paired permutation)" in frame.value.columns for frame in at.dataframe)
    # the demo's first embedding ran as a background job of this app; the Runs page lists it
    jobs = next(frame.value for frame in at.dataframe if "work" in frame.value.columns)
    assert list(jobs["work"]) == ["Embedding a catalog"] and list(jobs["status"]) == ["done"]
    assert jobs["catalog"].iloc[0].startswith("demo v") and jobs["progress"].iloc[0] == 1.0
    assert any("Background work in this app: 0 under way, 1 finished" in e.label for e in at.expander)


def test_merge_review_runs_accepts_and_exports(app):
    settle(app.switch_page("pages/merge_review.py").run())
    assert not app.exception, app.exception
    settle(app.button(key="merge_run").click().run())
    assert not app.exception, app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Clusters"]) >= 1 and int(metrics["After (reviewed)"]) < int(metrics["Tools before"])
    assert app.dataframe[0].value["cluster"].iloc[0] == "c001"
    first = app.selectbox(key="merge_open").value
    app.button(key=f"reject_{first}").click().run()
    assert not app.exception, app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Reviewed"] == "1"
    assert any("reject" in str(frame.value.get("action", "")) for frame in app.dataframe
               if hasattr(frame.value, "get")), "decision history missing"


def test_merge_review_measures_before_and_after(app):
    settle(app.switch_page("pages/merge_review.py").run())
    settle(app.button(key="merge_run").click().run())
    charts = len(app.get("plotly_chart"))
    settle(app.toggle(key="merge_measures").set_value(True).run())
    assert not app.exception, app.exception
    table = app.dataframe[0].value
    assert list(table.columns[:3]) == ["measure", "before", "after"]
    assert {"Recall@5", "CSR@5", "TCCR", "UCC"} <= set(table["measure"])
    assert table["measure"].iloc[-1].startswith("mean silhouette")
    recall = table.set_index("measure").loc["Recall@5"]
    assert 0.0 <= recall["before"] <= 1.0 and 0.0 <= recall["after"] <= 1.0
    assert len(app.get("plotly_chart")) == charts + 1  # the silhouette curves
    assert any("as reviewed" in c.value for c in app.caption)
    settle(app.number_input(key="merge_measures_k").set_value(3).run())  # another k: measured again, not the k = 5
    assert not app.exception, app.exception
    assert "Recall@3" in set(app.dataframe[0].value["measure"])


def test_overlap_map_colours_by_cluster_after_a_merge(app):
    settle(app.switch_page("pages/merge_review.py").run())
    settle(app.button(key="merge_run").click().run())
    settle(app.switch_page("pages/overlap_map.py").run())
    assert not app.exception, app.exception
    settle(app.radio(key="overlap_method").set_value("pca").run())
    settle(app.radio(key="overlap_colour").set_value("merge cluster").run())
    settle(app.toggle(key="overlap_links").set_value(True).run())
    settle(app.text_input(key="overlap_search").input("convert currency").run())
    assert not app.exception, app.exception
    assert any("search hits" in c.value for c in app.caption) and any("neighbour links" in c.value for c in app.caption)
    settle(app.toggle(key="overlap_silhouette").set_value(True).run())
    assert not app.exception, app.exception
    assert len(app.get("plotly_chart")) >= 2  # original and merged side by side in one figure, then the silhouette curves


def test_trials_page_runs_one_query_and_shows_the_trace(app):
    settle(app.switch_page("pages/trials.py").run())
    assert not app.exception, app.exception
    query = app.selectbox(key="trials_query")
    query.select_index(next(i for i, q in enumerate(query.options) if "26.2 miles" in q)).run()
    settle(app.button(key="trials_run").click().run())
    assert not app.exception, app.exception
    table = app.dataframe[0].value
    assert len(table) == TrialConfig().k and "convert_units" in set(table["tool"])  # the whole pool is tried
    labels = [e.label for e in app.expander]
    assert any("FUNCTIONAL_SUCCESS" in label for label in labels), labels
    assert any(("MISMATCH" in label or "FAILED" in label or "FAILURE" in label) for label in labels), labels


def test_overlap_map_parameters_make_their_own_cached_map(app):
    import os

    from core.projection import params_key
    from core.settings import DEFAULT_MODEL_ID
    from storage.cache import get_projection
    from storage.catalogs import get_version
    from storage.db import make_engine

    settle(app.switch_page("pages/overlap_map.py").run())
    assert not app.exception, app.exception
    settle(app.radio(key="overlap_method").set_value("tsne").run())
    settle(app.slider(key="overlap_tsne_perp").set_value(5).run())
    assert not app.exception, app.exception
    db = make_engine(os.environ["TOOLATLAS_DB_URL"])
    version = get_version(db, "demo")
    tuned = get_projection(db, version.id, DEFAULT_MODEL_ID, params_key("tsne", {"perplexity": 5.0, "seed": 0}))
    default = get_projection(db, version.id, DEFAULT_MODEL_ID, params_key("tsne"))
    assert tuned is not None and default is not None  # both settings stored, each its own map
    assert tuned.shape == default.shape and not (tuned == default).all()
    assert app.get("plotly_chart")  # the map is drawn with the new setting


def test_settings_switch_the_tool_text_for_this_session(app):
    app.switch_page("pages/settings.py").run()
    app.radio(key="set_tool_text").set_value(False).run()
    app.button(key="set_use_tool_text").click().run()
    assert not app.exception, app.exception
    assert app.session_state["settings_overrides"]["text_with_parameters"] is False
    settle(app.switch_page("pages/catalog.py").run())  # another tool text: embedded again, as a job
    app.text_input(key="search_query").input("convert dollars to euros").run()
    assert not app.exception, app.exception
    assert any("results in" in c.value for c in app.caption)


def test_trials_page_runs_a_query_set_as_a_background_job(app):
    settle(app.switch_page("pages/trials.py").run())
    app.radio(key="trials_view").set_value("Query set").run()
    app.number_input(key="trials_limit").set_value(3).run()
    settle(app.button(key="trials_run_set").click().run())
    assert not app.exception, app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Queries"] == "3" and int(metrics["Trials"]) >= 3
    assert "trials_cancel" not in [b.key for b in app.button]
    assert app.session_state["trials_job"] is None and app.session_state["trials_set_last"]


def test_runs_page_lists_background_work_and_cancels_it(app):
    import threading

    from components.session import _workspace
    from core.jobs import CANCELLED
    from core.settings import Settings
    from storage.catalogs import get_version

    ws = _workspace(Settings.from_env())  # the app's own workspace (process-wide resource)
    version = get_version(ws.db, "demo")
    release = threading.Event()

    def work(job):
        while not release.wait(0.02):
            job.report(0.4, "Classifying candidate pairs: 4/10")

    job = ws.jobs.start(("merge", version.id, "test"), work)
    while not job.state().label:
        threading.Event().wait(0.01)
    try:
        app.switch_page("pages/runs.py").run()
        assert not app.exception, app.exception
        assert any("Background work in this app: 1 under way" in e.label for e in app.expander)
        pick = app.selectbox(key="jobs_pick")
        assert "Merge run · demo v" in pick.options[0] and "4/10" in pick.options[0]
        app.button(key="jobs_cancel").click().run()
        assert not app.exception, app.exception
        assert job.wait(10) and job.state().status == CANCELLED
    finally:
        release.set()


def test_trials_page_runs_python_tools_only_in_the_sandbox_when_asked(tmp_path, monkeypatch):
    """A catalog with inline Python tools: no sandbox until the toggle is on; then the isolation this machine
    gives is shown and each call's record says which isolation held."""
    from core.models import Query, Tool
    from core.settings import Settings, build_workspace
    from storage.catalogs import get_version, load_tools
    from storage.runs import list_runs, load_items

    db = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", db)
    schema = {"type": "object", "properties": {"miles": {"type": "number"}}, "required": ["miles"]}
    source = "def to_km(miles):\n    return {'km': round(miles * 1.609344, 3)}\n"
    ws = build_workspace(Settings.from_env())
    ws.import_tools("pycat", [Tool("to_km", "to_km", "convert miles to kilometres", schema,
                                   extra={"python": {"function": "to_km", "source": source}}),
                              Tool("weather", "weather", "weather for a city", {"type": "object", "properties": {
                                  "city": {"type": "string"}}})],
                    queries=[Query("q1", "convert 26.2 miles to kilometres", ("to_km",))])
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    settle(at.switch_page("pages/trials.py").run())
    settle(at.sidebar.selectbox(key="sel_catalog").select("pycat").run())
    assert not at.exception, at.exception
    sandbox = at.toggle(key="trials_sandbox_pycat")
    assert sandbox.label == "Run the catalog's 1 Python tool in the sandbox" and sandbox.value is False
    sandbox.set_value(True).run()
    shown = " ".join(c.value for c in at.caption) + " ".join(w.value for w in at.warning)
    assert "Python tools run in" in shown, shown
    settle(at.button(key="trials_run").click().run())
    assert not at.exception, at.exception
    version = get_version(ws.db, "pycat")
    assert [t.key for t in load_tools(ws.db, version.id)] == ["to_km", "weather"]
    (run,) = list_runs(ws.db, kind="trials")
    trace = load_items(ws.db, run.id)["q1"]
    (trial,) = [t for t in trace["trials"] if t["key"] == "to_km"]
    execute = next(s for s in trial["steps"] if s["name"] == "execute")
    assert execute["status"] == "ok" and "seccomp" in execute["input"]["isolation"], execute
