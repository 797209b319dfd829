"""Tool Atlas: the router. Each page lives in pages/ and is listed in components.navigation; this file builds
the navigation from that list and keeps the app-wide catalog selection in the address bar (components.pickers)."""

from pathlib import Path

import streamlit as st

from components.navigation import START, TOUR
from components.pickers import keep_selection

# a local icon: a Material Symbols icon here would be fetched from Google's font server on every load
st.set_page_config(page_title="Tool Atlas", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"),
                   layout="wide")

PAGES = [st.Page(START.path, title=START.title, url_path=START.url_path, default=True, icon=START.icon),
         *(st.Page(p.path, title=p.title, url_path=p.url_path, icon=p.icon) for p in TOUR)]

st.session_state["_via_router"] = True  # see components.session.ensure_router
page = st.navigation(PAGES)
keep_selection()
page.run()
