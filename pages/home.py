"""Start here: what Tool Atlas is, the catalog that is open, and where to go first."""

from urllib.parse import urlparse

import streamlit as st

from components.pickers import catalog_picker
from components.session import workspace
from components.text import md_escape

# (page file, label, icon, what it is for) in the order a first hour goes
TOUR = (
    ("pages/catalog.py", "Catalog", ":material/manage_search:",
     "Search the tools (dense, BM25 or hybrid), read each tool's card, import your own catalog "
     "(OpenAI tools JSON, OpenAPI, an MCP server's tool list, a public benchmark)."),
    ("pages/overlap_map.py", "Overlap map", ":material/scatter_plot:",
     "See the catalog as a map: tools an agent could confuse sit close together and are linked."),
    ("pages/merge_review.py", "Merge review", ":material/call_merge:",
     "Find groups of overlapping tools, read the judge's verdict on each pair and accept or edit the merges."),
    ("pages/playground.py", "Strategy playground", ":material/science:",
     "Run one query through several retrieval strategies side by side, and watch memetic evolution rewrite it."),
    ("pages/trials.py", "Trials", ":material/play_circle:",
     "Call the top candidate tools for a request and re-rank them by what actually happened."),
    ("pages/timeline.py", "Timeline", ":material/timeline:",
     "Replay the catalog changing version by version and see which requests stop or start working."),
    ("pages/runs.py", "Runs", ":material/table_chart:",
     "Start evaluations and compare stored runs, query by query, with significance tests."),
    ("pages/settings.py", "Settings", ":material/settings:",
     "Choose the language-model backend for operators and judges (offline heuristics by default)."),
)
KNOWN_PATHS = {"", "home", "catalog", "overlap_map", "merge_review", "playground", "trials", "timeline", "runs",
               "settings"}


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
for path, label, icon, purpose in TOUR:
    left, right = st.columns([1, 4], vertical_alignment="center")
    left.page_link(path, label=label, icon=icon)
    right.write(purpose)
