"""The Catalog page's search: the query, mode and α controls, the ranked table and the picked tool's card. A
fragment, so typing a query or picking a row reruns this panel only, not the page's other tabs."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.text import md_escape, plain_text
from components.tool_card import tool_card
from core.catalog_stats import matches_filters
from core.models import Tool
from core.search.engine import MODES

MODE_LABELS = {"dense": "Dense", "bm25": "BM25", "hybrid": "Hybrid", "rrf": "Rank fusion"}
# whole descriptions in the cell (hover or widen to read; the tool card below shows them in full)
DESCRIPTION_COLUMN = st.column_config.TextColumn("description", width="large")


@st.fragment
def search_panel(engine, tools: Sequence[Tool], categories: Sequence[str], sources: Sequence[str]) -> None:
    """Search ``engine`` (the version's tools) and show the top k that pass the sidebar's filters."""
    by_key = {t.key: t for t in tools}
    query = st.text_input("Search the catalog", placeholder="e.g. convert 100 dollars to euros", key="search_query")
    c1, c2, c3 = st.columns([2, 2, 1])
    mode = c1.radio("Mode", MODES, format_func=MODE_LABELS.get, horizontal=True, key="search_mode")
    alpha = c2.slider(
        "α — dense weight (ToolScope Eq. 4)", 0.0, 1.0, 0.5, 0.05, key="search_alpha", disabled=mode != "hybrid",
        help="s = α·dense + (1−α)·BM25, each min-max normalised per query; 1 = dense only, 0 = BM25 only. "
             "This page starts at an even blend so Hybrid ranks differently from Dense. ToolScope §4.4 found "
             "α = 1 best on its benchmarks, and the ToolScope retrieval strategy keeps that value.",
    )
    k = c3.number_input("Top k", 1, 100, 10, key="search_k")
    rerank = False
    if engine.reranker is None:
        st.caption("Reranker: none configured (no cross-encoder ships offline) — set one on the Settings page.")
    else:
        rerank = st.toggle(f"Rerank top 50 with {md_escape(engine.reranker.model_id)}", key="search_rerank")
    if not query.strip():
        st.caption("Type a query to search. Pick a row to see its tool card.")
        return
    # Filters apply after ranking, so a filtered search ranks the whole catalog: a top-k×10 cut could leave out
    # every tool of a small category.
    depth = len(tools) if categories or sources else int(k)
    result = engine.search(query, depth, mode=mode, alpha=alpha, rerank=rerank, persist=False)
    hits = [h for h in result.hits if matches_filters(by_key[h.key], categories, sources)][: int(k)]
    st.caption(f"{len(hits)} results in {result.seconds * 1000:.0f} ms")
    if not hits:
        st.info("No tool matches these filters.")
        return
    frame = pd.DataFrame({
        "rank": range(1, len(hits) + 1),
        "name": [by_key[h.key].name for h in hits],
        "category": [by_key[h.key].category for h in hits],
        "score": [h.score for h in hits],
        "dense": [h.dense for h in hits],
        "BM25": [h.sparse for h in hits],
        "description": [plain_text(by_key[h.key].description) for h in hits],
    })
    if mode == "dense":
        frame = frame.drop(columns=["BM25"])
    elif mode == "bm25":
        frame = frame.drop(columns=["dense"])
    event = st.dataframe(
        frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
        key="search_table", column_config={"score": st.column_config.NumberColumn(format="%.4f"),
                                           "dense": st.column_config.NumberColumn(format="%.4f"),
                                           "BM25": st.column_config.NumberColumn(format="%.3f"),
                                           "description": DESCRIPTION_COLUMN},
    )
    rows = event.selection.rows if event and event.selection else []
    picked = hits[rows[0]] if rows else hits[0]
    tool_card(by_key[picked.key], score=picked.score)
