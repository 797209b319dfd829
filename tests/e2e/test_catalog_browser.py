import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_deep_link_on_fresh_server_goes_through_navigation(app_url, page):
    page.goto(f"{app_url}/runs", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Runs").first.wait_for(timeout=120_000)
    page.get_by_text("Strategy playground").first.wait_for(timeout=30_000)  # our titles, not file names


def test_search_in_real_browser(app_url, page):
    page.goto(f"{app_url}/catalog", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Catalog").first.wait_for(timeout=120_000)
    box = page.get_by_label("Search the catalog")
    box.wait_for(timeout=120_000)
    box.fill("convert 100 US dollars into euros")
    box.press("Enter")
    page.get_by_text("results in").first.wait_for(timeout=60_000)
    card_heading = page.locator("h4").first
    card_heading.wait_for(timeout=30_000)
    assert "currenc" in card_heading.inner_text().lower() or "exchange" in card_heading.inner_text().lower()
    path = screenshot(page, "catalog_search")
    assert path.stat().st_size > 10_000
    assert page.dialogs == []


def test_benchmark_zip_upload_imports_tools_and_queries(app_url, page, tmp_path):
    """A zip of a BFCL folder through the upload widget: folders survive (answers sit in possible_answer/),
    the new catalog and its query set are stored, and what was left out is listed."""
    import shutil

    from tests.e2e.conftest import REPO

    archive = shutil.make_archive(str(tmp_path / "bfcl"), "zip", root_dir=REPO / "tests" / "assets" / "benchmarks",
                                  base_dir="bfcl")
    page.goto(f"{app_url}/catalog", wait_until="domcontentloaded")
    page.get_by_label("Search the catalog").first.wait_for(timeout=180_000)
    page.get_by_role("tab", name="Import / export").click()
    page.get_by_text("Import a public benchmark").wait_for(timeout=30_000)
    uploads = page.locator("[data-testid='stFileUploader'] input[type='file']")
    uploads.nth(2).set_input_files(archive)  # catalog file, queries, then the benchmark uploader
    page.wait_for_timeout(1500)
    page.get_by_label("Name for the benchmark catalog").fill("bfcl-browser")
    page.wait_for_timeout(500)
    page.get_by_role("button", name="Import benchmark").click()
    page.get_by_text("Imported 5 tools and 5 queries into").wait_for(timeout=120_000, state="attached")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000)
    page.wait_for_timeout(500)
    page.get_by_role("tab", name="Import / export").last.click()  # the rerun shows the first tab again
    page.wait_for_timeout(500)
    text = page.evaluate("() => document.body.innerText")
    assert "bfcl-browser" in text
    assert "Left out: BFCL_v4_irrelevance.json: 1 questions with no possible_answer file" in text
    page.get_by_text("Left out:").first.scroll_into_view_if_needed()
    screenshot(page, "catalog_benchmark_import")
    assert page.dialogs == []
