"""The Catalog page's "Compare versions" view: the demo's v4 against v5, its findings and its report."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import settle

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


def test_compare_the_demos_last_two_versions(db_url):
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    settle(at.switch_page("pages/catalog.py").run())
    assert not at.exception, at.exception
    assert (at.selectbox(key="check_base").value, at.selectbox(key="check_new").value) == (4, 5)
    assert at.selectbox(key="check_queries").value == "demo"
    def report_buttons():
        return [b for b in at.get("download_button") if b.key == "check_download"]

    assert not report_buttons()  # nothing until the check is asked for
    settle(at.button(key="check_run").click().run())
    assert not at.exception, at.exception
    verdict = [e.value.replace("\\", "") for e in at.error]  # shown markdown-escaped
    assert any(v.startswith("FAIL: breaking, regression. 9 added, 3 removed, 0 renamed, 4 changed") for v in verdict), verdict
    assert len(report_buttons()) == 1
    frames = [f.value for f in at.dataframe]
    breaking = next(f for f in frames if "what breaks" in f.columns)
    regressions = next(f for f in frames if "cause" in f.columns)
    assert set(breaking["tool"]) == {"book_taxi_legacy", "print_document", "sms_gateway_v1"}
    assert list(regressions["gold"]) == ["search_attractions, weather_forecast"]
    assert len(at.get("plotly_chart")) >= 1
    # the same versions twice cannot be compared
    at.selectbox(key="check_base").select(5).run()
    assert at.button(key="check_run").disabled
