"""One selection for the whole app: a catalog chosen on one page holds on every page, in the address bar, after
a reload and in a shared link; the root is a Start page, and an unknown address says so."""

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import screenshot, settle, start_app, stop_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAGES = ("Overlap map", "Merge review", "Strategy playground", "Trials", "Timeline", "Runs", "Catalog")


@pytest.fixture(scope="module")
def two_catalogs(tmp_path_factory):
    """An app whose store holds the demo and a small second catalog with queries."""
    from core.models import Query, Tool
    from core.settings import Settings, build_workspace

    tmp = tmp_path_factory.mktemp("selection")
    url = f"sqlite:///{tmp / 'atlas.db'}"
    ws = build_workspace(Settings(db_url=url))
    ws.ensure_demo()
    tools = [Tool(f"pet_{n}", f"pet_{n}", f"Look after a pet {n}: feed it, walk it or book the vet.",
                  {"type": "object", "properties": {"pet": {"type": "string"}}}) for n in ("cat", "dog", "fish")]
    ws.import_tools("pets", tools, queries=[Query("p1", "feed my cat", ("pet_cat",))], query_set="pets")
    proc, app = start_app(url, tmp / "streamlit.log")
    yield app
    stop_app(proc)


def catalog_box(page):
    return page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="Catalog").first


def chosen(page) -> str:
    box = catalog_box(page)
    box.wait_for(timeout=180_000)
    return box.inner_html()  # the chosen value sits in the combobox's markup, not in its text


def params(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def open_by_nav(page, heading: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a").filter(has_text=heading).first.click()
    page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=180_000)
    settle(page)


def test_a_catalog_chosen_once_holds_on_every_page_and_in_the_address(two_catalogs, page):
    page.goto(f"{two_catalogs}/catalog", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Catalog", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    assert "demo" in chosen(page) and params(page)["catalog"] == ["demo"]
    box = catalog_box(page)
    box.locator("input").first.click()
    page.keyboard.type("pets")
    page.keyboard.press("Enter")
    settle(page)
    page.wait_for_function("() => new URLSearchParams(location.search).get('catalog') === 'pets'", timeout=60_000)
    assert "pets" in chosen(page)

    for heading in PAGES:
        open_by_nav(page, heading)
        page.wait_for_function("() => new URLSearchParams(location.search).get('catalog') === 'pets'",
                               timeout=60_000)
        assert "pets" in chosen(page), f"{heading} shows {chosen(page)!r}"
        assert page.locator('[data-testid="stException"]').count() == 0, heading

    page.reload(wait_until="domcontentloaded")
    page.get_by_role("heading", name="Catalog", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    assert "pets" in chosen(page) and params(page)["catalog"] == ["pets"]
    screenshot(page, "selection_after_reload")


def test_a_shared_link_opens_its_catalog_and_a_bad_one_says_so(two_catalogs, page):
    page.goto(f"{two_catalogs}/overlap_map?catalog=pets&version=1", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Overlap map", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    assert "pets" in chosen(page) and params(page) == {"catalog": ["pets"], "version": ["1"]}

    page.goto(f"{two_catalogs}/runs?catalog=nosuch", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Runs", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    page.get_by_text("There is no catalog named “nosuch” in this store").first.wait_for(timeout=60_000)
    assert "demo" in chosen(page)


def test_the_root_is_a_start_page_and_an_unknown_address_says_so(two_catalogs, page):
    page.goto(two_catalogs, wait_until="domcontentloaded")
    page.get_by_role("heading", name="Tool Atlas", exact=True).first.wait_for(timeout=180_000)
    settle(page)
    assert page.get_by_text("Where to go").count() == 1
    assert page.get_by_text("There is no page at").count() == 0
    screenshot(page, "page_start")
    page.locator("[data-testid='stPageLink'] a").filter(has_text="Overlap map").first.click()
    page.get_by_role("heading", name="Overlap map", exact=True).first.wait_for(timeout=180_000)

    page.goto(f"{two_catalogs}/no_such_page", wait_until="domcontentloaded")
    page.get_by_text("There is no page at “/no_such_page”").first.wait_for(timeout=180_000)
    assert page.get_by_text("Where to go").count() == 1
