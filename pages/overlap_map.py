"""Overlap map: where the tools of a catalog crowd together, before and after merging."""

import html

import pandas as pd
import streamlit as st

from components.merge_view import finished_merge
from components.overlap_charts import group_colours, overlap_scatter, shared_axes, silhouette_chart
from components.pickers import catalog_picker, ensure_engine
from components.projection import LABELS, map_coords, map_params
from components.session import llm_config, workspace
from core.merging.measures import silhouette_curve
from core.merging.pipeline import MergeConfig
from core.overlap import category_groups, cluster_groups, merged_layer, original_layer, selected_keys
from core.projection import METHODS, knn_edges

LARGE_CATALOG = 20_000

st.title("Overlap map")
ws = workspace()
info, version = catalog_picker(ws, key="overlap")
engine = ensure_engine(ws, version)
tools = engine.tools
by_key = {t.key: t for t in tools}
with st.sidebar:
    st.divider()
    # UMAP and t-SNE take minutes on tens of thousands of points; a large catalog opens on PCA (instant), and
    # the slower maps stay one click away (computed once, then cached).
    large = len(tools) > LARGE_CATALOG
    method = st.radio("Projection", METHODS, format_func=LABELS.get, horizontal=True,
                      index=METHODS.index("pca") if large else 0, key="overlap_method_large" if large else "overlap_method")
    if large:
        st.caption(f"{len(tools):,} tools: PCA by default; UMAP takes about half a minute per 20,000 tools the "
                   "first time. Hovering shows names only; select points to read them in the table.")
    with st.expander("Map parameters"):
        map_settings = map_params(method, "overlap")
    colour_by = st.radio("Colour by", ["category", "merge cluster"], key="overlap_colour")
    threshold = st.slider("Merge threshold θ", 0.60, 0.98, 0.82, 0.01, key="overlap_theta",
                          help="Which merge run to show: the finished run with this θ (see Merge review).")
    links = st.toggle("Neighbour links", key="overlap_links")
    link_threshold = st.slider("Link when cosine ≥", 0.50, 0.99, 0.80, 0.01, key="overlap_link_t", disabled=not links)

coords = map_coords(ws, version.id, method, map_settings)

llm = llm_config()
config = MergeConfig(threshold=threshold)
merge = None
run = finished_merge(ws, version.id, config, llm)
if run is not None:
    from storage.merges import apply_decisions, list_decisions

    _reviewed, phi = apply_decisions(run.result, list_decisions(ws.db, run.run_id), tools)
    merge = phi
elif colour_by == "merge cluster":
    st.info("No finished merge run at this θ yet: run one on the Merge review page. Colouring by category.")

groups = cluster_groups(tools, merge) if (colour_by == "merge cluster" and merge) else category_groups(tools)
before = original_layer(tools, coords, groups)
colours = group_colours(groups)

query = st.text_input("Highlight search hits", placeholder="e.g. currency conversion", key="overlap_search")
hits = [h.key for h in engine.search(query, 15, mode="hybrid", alpha=0.5, persist=False).hits] if query.strip() else []
chosen: list[str] = st.session_state.get("overlap_selected", [])
highlight = set(chosen) | set(hits)
edges = []
if links:
    edges = [(tools[i].key, tools[j].key, s) for i, j, s in knn_edges(engine.vectors, link_threshold, k=10)]
    st.caption(f"{len(edges)} neighbour links with cosine ≥ {link_threshold:.2f}")
axes = shared_axes(coords)

if merge:
    left, right = st.columns(2)
    after = merged_layer(tools, coords, merge)
    with left:
        event = st.plotly_chart(overlap_scatter(before, by_key, title=f"Original · {len(tools)} tools", colours=colours,
                                                highlight=highlight, edges=edges, axes=axes, brief_hover=large),
                                on_select="rerun", selection_mode=("points", "box", "lasso"), key="overlap_before",
                                width="stretch")
    with right:
        kept_edges = [e for e in edges if merge[e[0]] == e[0] and merge[e[1]] == e[1]]
        st.plotly_chart(overlap_scatter(after, by_key, title=f"Merged · {len(after.keys)} tools", colours=colours,
                                        highlight=highlight, edges=kept_edges, axes=axes, brief_hover=large),
                        on_select="ignore", key="overlap_after", width="stretch")
    if st.toggle("Silhouette before / after (ToolScope App. D.1)", key="overlap_silhouette"):
        sil_key = f"silhouette_{version.id}_{threshold}_{len(after.keys)}"
        if sil_key not in st.session_state:
            with st.spinner("k-means silhouette over k = 5…50, before and after…"):
                index = {t.key: i for i, t in enumerate(tools)}
                ks = [k for k in (5, 10, 20, 30, 40, 50) if k < len(after.keys)]
                st.session_state[sil_key] = (silhouette_curve(engine.vectors, ks),
                                             silhouette_curve(engine.vectors[[index[k] for k in after.keys]], ks))
        st.plotly_chart(silhouette_chart(*st.session_state[sil_key]), width="stretch", key="overlap_sil_chart")
else:
    event = st.plotly_chart(overlap_scatter(before, by_key, title=f"{html.escape(info.name)} v{version.number} · {len(tools)} tools",
                                            colours=colours, highlight=highlight, edges=edges, axes=axes,
                                            brief_hover=large),
                            on_select="rerun", selection_mode=("points", "box", "lasso"), key="overlap_before",
                            width="stretch")

picked = selected_keys(event.selection.points if event and event.selection else [], before)
if picked and picked != chosen:
    st.session_state["overlap_selected"] = picked
    st.rerun()
if chosen:
    c1, c2 = st.columns([4, 1])
    c1.markdown(f"**{len(chosen)} selected tools** (highlighted; the rest is greyed out)")
    if c2.button("Clear selection", key="overlap_clear"):
        st.session_state["overlap_selected"] = []
        st.rerun()
    st.dataframe(pd.DataFrame([{"name": by_key[k].name, "category": by_key[k].category,
                                "kept as": by_key[merge[k]].name if merge else "",
                                "description": by_key[k].description[:200]} for k in chosen if k in by_key]),
                 hide_index=True, width="stretch", key="overlap_table")
elif hits:
    st.caption(f"{len(hits)} search hits highlighted.")
else:
    st.caption("Drag a box or lasso on the map to list tools; search to highlight hits.")
