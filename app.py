"""Tool Atlas: the router. Each page lives in pages/; this file only builds the navigation."""

import streamlit as st

st.set_page_config(page_title="Tool Atlas", page_icon=":material/travel_explore:", layout="wide")

CATALOG = st.Page("pages/catalog.py", title="Catalog", url_path="catalog", icon=":material/manage_search:")


def _home() -> None:
    """The app's root opens the Catalog at its own address. Streamlit serves its default page only at the root,
    so a Catalog marked default answered a link to /catalog with "Page not found"; every page now has a path."""
    st.switch_page(CATALOG)


PAGES = [
    st.Page(_home, title="Tool Atlas", url_path="home", default=True, visibility="hidden"),
    CATALOG,
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
