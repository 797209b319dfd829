"""Start here: what Tool Atlas is, the catalog that is open, and where to go first."""

from urllib.parse import urlparse

import streamlit as st

from components.navigation import START, TOUR
from components.pickers import catalog_picker
from components.session import workspace
from components.text import md_escape

KNOWN_PATHS = {"", START.url_path, *(p.url_path for p in TOUR)}


def unknown_path() -> str | None:
    """The path the browser asked for when it names no page (Streamlit then shows this default page)."""
    url = st.context.url
    if not url:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    path = urlparse(url).path.strip("/")
    if base and path.startswith(base):
        path = path[len(base):].strip("/")
    return None if path in KNOWN_PATHS else path


st.title("Tool Atlas")
st.caption("Explore large catalogs of LLM tools and debug how agents find them. Choose a catalog in the sidebar "
           "(the built-in demo is open), then start with the Catalog.")
missing = unknown_path()
if missing:
    st.warning(f"There is no page at “/{md_escape(missing)}”. Here are the pages of Tool Atlas.")

ws = workspace()
info, version = catalog_picker(ws)
st.markdown(f"Open now: **{md_escape(info.name)}**, version {version.number} with {version.n_tools:,} tools. "
            "The choice holds on every page and in the address bar, so a link you share opens the same catalog.")

st.subheader("Where to go")
for entry in TOUR:
    left, right = st.columns([1, 4], vertical_alignment="center")
    left.page_link(entry.path, label=entry.title, icon=entry.icon)
    right.write(entry.purpose)
