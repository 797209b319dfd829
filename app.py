"""Tool Atlas: the router. Each page lives in pages/; this file only builds the navigation."""

import streamlit as st

st.set_page_config(page_title="Tool Atlas", page_icon=":material/travel_explore:", layout="wide")

PAGES = [
    st.Page("pages/catalog.py", title="Catalog", icon=":material/manage_search:", default=True),
    st.Page("pages/overlap_map.py", title="Overlap map", icon=":material/scatter_plot:"),
    st.Page("pages/merge_review.py", title="Merge review", icon=":material/call_merge:"),
    st.Page("pages/playground.py", title="Strategy playground", icon=":material/science:"),
    st.Page("pages/trials.py", title="Trials", icon=":material/play_circle:"),
    st.Page("pages/timeline.py", title="Timeline", icon=":material/timeline:"),
    st.Page("pages/runs.py", title="Runs", icon=":material/table_chart:"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
]

st.navigation(PAGES).run()
