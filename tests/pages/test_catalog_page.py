"""The Catalog page's Import / export tab: open an imported catalog, delete a catalog, the demo kept."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def test_delete_a_catalog_from_the_page_falls_back_to_the_demo(tmp_path, monkeypatch):
    from core.models import Tool
    from core.settings import Settings, build_workspace
    from storage.catalogs import list_catalogs

    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("TOOLATLAS_DB_URL", url)
    ws = build_workspace(Settings(db_url=url))
    ws.import_tools("pets", [Tool("feed_cat", "feed_cat", "Feed the cat."), Tool("walk_dog", "walk_dog", "Walk the dog.")])
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["catalog"] = "pets"  # a shared link
    at.run()
    settle(at.switch_page("pages/catalog.py").run())
    assert not at.exception, at.exception
    assert at.sidebar.selectbox(key="sel_catalog").value == "pets"
    # the tabs are lazy: only the open one's body runs, so the delete button is not there yet
    assert not [b for b in at.button if b.key == "delete_button"]
    at.session_state["catalog_tab"] = "Import / export"  # what a click on the tab sets
    settle(at.run())
    delete = at.button(key="delete_button")
    assert delete.disabled  # until the name is typed
    at.text_input(key="delete_confirm").input("pet").run()
    assert at.button(key="delete_button").disabled
    at.text_input(key="delete_confirm").input("pets").run()
    settle(at.button(key="delete_button").click().run())  # the demo it falls back to is embedded first
    assert not at.exception, at.exception
    assert [c.name for c in list_catalogs(ws.db)] == ["demo"]
    assert at.sidebar.selectbox(key="sel_catalog").value == "demo"
    assert any("Deleted catalog 'pets'" in s.value for s in at.success)
    assert at.query_params["catalog"] == ["demo"] or at.query_params["catalog"] == "demo"
    # the demo itself offers no delete button
    assert not [b for b in at.button if b.key == "delete_button"]
