"""Tool Atlas: the router. Each page lives in pages/; this file builds the navigation and keeps the app-wide
catalog selection in the address bar (components.pickers)."""

from pathlib import Path

import streamlit as st

from components.pickers import keep_selection

# a local icon: a Material Symbols icon here would be fetched from Google's font server on every load
st.set_page_config(page_title="Tool Atlas", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"),
                   layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Start here", url_path="home", default=True, icon=":material/home:"),
    st.Page("pages/catalog.py", title="Catalog", url_path="catalog", icon=":material/manage_search:"),
    st.Page("pages/overlap_map.py", title="Overlap map", url_path="overlap_map", icon=":material/scatter_plot:"),
    st.Page("pages/merge_review.py", title="Merge review", url_path="merge_review", icon=":material/call_merge:"),
    st.Page("pages/playground.py", title="Strategy playground", url_path="playground", icon=":material/science:"),
    st.Page("pages/trials.py", title="Trials", url_path="trials", icon=":material/play_circle:"),
    st.Page("pages/timeline.py", title="Timeline", url_path="timeline", icon=":material/timeline:"),
    st.Page("pages/runs.py", title="Runs", url_path="runs", icon=":material/table_chart:"),
    st.Page("pages/settings.py", title="Settings", url_path="settings", icon=":material/settings:"),
]

st.session_state["_via_router"] = True  # see components.session.ensure_router
page = st.navigation(PAGES)
keep_selection()
page.run()
