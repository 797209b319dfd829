"""Tool Atlas: the router. Each page lives in pages/; this file only builds the navigation."""

import streamlit as st

st.set_page_config(page_title="Tool Atlas", page_icon=":material/travel_explore:", layout="wide")

PAGES = [
    st.Page("pages/catalog.py", title="Catalog", url_path="catalog", icon=":material/manage_search:", default=True),
    st.Page("pages/overlap_map.py", title="Overlap map", url_path="overlap_map", icon=":material/scatter_plot:"),
    st.Page("pages/merge_review.py", title="Merge review", url_path="merge_review", icon=":material/call_merge:"),
    st.Page("pages/playground.py", title="Strategy playground", url_path="playground", icon=":material/science:"),
    st.Page("pages/trials.py", title="Trials", url_path="trials", icon=":material/play_circle:"),
    st.Page("pages/timeline.py", title="Timeline", url_path="timeline", icon=":material/timeline:"),
    st.Page("pages/runs.py", title="Runs", url_path="runs", icon=":material/table_chart:"),
    st.Page("pages/settings.py", title="Settings", url_path="settings", icon=":material/settings:"),
]

st.session_state["_via_router"] = True  # see components.session.ensure_router
st.navigation(PAGES).run()
