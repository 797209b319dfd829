"""Overlap map: where the tools of a catalog crowd together, before and after merging."""

import html

import pandas as pd
import streamlit as st

from components.jobs import job_result
from components.merge_view import finished_merge
from components.pickers import catalog_picker, ensure_engine
from components.projection import LABELS, map_coords, map_params
from components.session import llm_config, workspace
from core.merging.calibration import recommended_threshold
from core.merging.measures import silhouette_curve
from core.merging.pipeline import MergeConfig
from core.merging.review import load_review
from core.merging.service import finished_merge_runs
from core.overlap import (
    KEPT_APART,
    MERGED,
    category_groups,
    cluster_groups,
    merge_links,
    merged_layer,
    neighbour_links,
    original_layer,
    selected_keys,
)
from core.overlap_charts import MAP_SUBTITLE, overlap_scatter, shared_axes, silhouette_chart
from core.projection import METHODS

LARGE_CATALOG = 20_000
LINK_NEIGHBOURS = 10

st.title("Overlap map")
st.markdown("Each dot is a tool; tools with **similar descriptions sit close together**. Lines and ringed dots "
            "mark **overlap**: tools a model could mistake for one another, candidates for merging. After a merge, "
            "the merged catalog is drawn beside the original.")
ws = workspace()
info, version = catalog_picker(ws)
engine = ensure_engine(ws, version, first_look=True)  # a large catalog: static first, full model next
space = ws.vector_space_for(engine.embedder.model_id)  # the first look's vectors are the static model's
first_look = ws.first_look_engine(version.id) is engine
tools = engine.tools
by_key = {t.key: t for t in tools}
llm = llm_config()
# Finished merge runs of this version by the current judge, newest first, one per setting.
runs = finished_merge_runs(ws, version.id, llm)
configs = sorted(runs, key=lambda c: -runs[c].id)


def run_label(cfg: MergeConfig | None) -> str:
    if cfg is None:
        return "none: the original map only"
    m = runs[cfg].metrics
    size = f" · {m['size_before']} → {m['size_after']} tools" if "size_after" in m else ""
    return f"θ {cfg.threshold:.2f}{size}" + ("" if cfg.autocorrect else " · no Auto-Correction")


large = len(tools) > LARGE_CATALOG
with st.sidebar:
    st.divider()
    config = st.selectbox("Merge run to show", [*configs, None], format_func=run_label, key="overlap_run",
                          help="A finished merge run of this version (Merge review page), with your review "
                               "decisions applied: the map after merging is drawn beside the original.")
    if not configs:
        st.caption("No merge run on this version yet: run one on the Merge review page to see the catalog "
                   "after merging.")
    colour_by = st.radio("Colour by", ["category", "merge cluster"], key="overlap_colour", horizontal=True,
                         help="Merge cluster: each group of tools the merge folded into one shares a colour; "
                              "tools left alone are light grey.")
    links = st.toggle("Look-alike links", value=not large, key="overlap_links",
                      help="A line between two tools whose embeddings are close (a high cosine), and a ring "
                           "around each tool that has one.")
    link_threshold = st.slider("Link when cosine ≥", 0.50, 0.99, round(recommended_threshold(space).threshold, 2),
                               0.01, key="overlap_link_t", disabled=not links or config is not None,
                               help="Without a merge run: link each tool to those of its 10 nearest neighbours "
                                    "at least this similar (it starts at the merge θ recommended for this "
                                    "embedding model). With one, the links are the run's candidate pairs (cosine "
                                    "≥ its θ).")
    st.divider()
    # UMAP and t-SNE take minutes on tens of thousands of points; a large catalog opens on PCA (instant), and
    # the slower maps stay one click away (computed once, then cached).
    method = st.radio("Projection", METHODS, format_func=LABELS.get, horizontal=True,
                      index=METHODS.index("pca") if large else 0, key="overlap_method_large" if large else "overlap_method")
    if large:
        st.caption(f"{len(tools):,} tools: PCA by default; UMAP takes about half a minute per 20,000 tools the "
                   "first time. Hovering shows names only; select points to read them in the table.")
    with st.expander("Map parameters"):
        map_settings = map_params(method, "overlap")

coords = map_coords(ws, version.id, method, map_settings)
merge = None
run = finished_merge(ws, version.id, config, llm) if config is not None else None
if run is not None:
    review = load_review(ws, run.run_id, run.result, tools)
    merge = review.phi
elif colour_by == "merge cluster":
    st.info("No merge run is shown (choose one in the sidebar, or run one on Merge review): colouring by category.")

by_cluster = colour_by == "merge cluster" and merge is not None
groups = cluster_groups(tools, merge) if by_cluster else category_groups(tools)
before = original_layer(tools, coords, groups)
after = merged_layer(tools, coords, merge, groups) if merge else None

chosen: list[str] = st.session_state.get("overlap_selected", [])
query = st.session_state.get("overlap_search", "")
hits = [h.key for h in engine.search(query, 15, mode="hybrid", alpha=0.5, persist=False).hits] if query.strip() else []
highlight = set(chosen) | set(hits)
pairs = ()
if links and run is not None:
    pairs = merge_links(run.result.pairs, merge)
elif links:
    pairs = job_result(ws, ("overlap_links", version.id, space, link_threshold, LINK_NEIGHBOURS),
                       lambda job: neighbour_links(tools, engine.vectors, link_threshold, k=LINK_NEIGHBOURS),
                       label=f"Finding look-alike pairs among {len(tools):,} tools…")

title = f"{html.escape(info.name)} v{version.number} · {len(tools):,} tools"
if after is not None:
    title += f" · merge at θ {config.threshold:.2f} leaves {len(after.keys):,}"
legend = "Merge cluster (named after the tool kept)" if by_cluster else "Category"
fig = overlap_scatter(before, by_key, title=title, subtitle=MAP_SUBTITLE.format(method="PCA" if first_look else LABELS[method]),
                      after=after, merged_into=merge,
                      panel_titles=(f"Before · {len(tools):,} tools",
                                    f"After merging · {len(after.keys):,} tools" if after else ""),
                      legend_title=legend, highlight=highlight, links=pairs, axes=shared_axes(coords),
                      link_threshold=None if run is not None else link_threshold, brief_hover=large)
event = st.plotly_chart(fig, on_select="rerun", selection_mode=("points", "box", "lasso"), key="overlap_before",
                        width="stretch")
if links:
    if run is not None:
        n_merged = sum(p.kind == MERGED for p in pairs)
        n_apart = sum(p.kind == KEPT_APART for p in pairs)
        st.caption(f"{len(pairs)} neighbour links: the merge run's candidate pairs (cosine ≥ "
                   f"{config.threshold:.2f}); {n_merged} merged, {n_apart} kept apart. Hover the middle of a "
                   "line for its cosine.")
    else:
        st.caption(f"{len(pairs)} neighbour links: pairs with cosine ≥ {link_threshold:.2f} among each tool's "
                   f"{LINK_NEIGHBOURS} nearest neighbours. Hover the middle of a line for its cosine.")

st.text_input("Highlight search hits", placeholder="e.g. currency conversion", key="overlap_search")
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
    st.caption(f"{len(hits)} search hits highlighted (the rest is greyed out).")
else:
    st.caption("Drag a box or lasso on the map to list tools; search to highlight hits; click a legend entry to "
               "hide that group.")

if merge and st.toggle("Silhouette before / after (ToolScope App. D.1)", key="overlap_silhouette"):
    def curves(job, kept=tuple(after.keys)):
        index = {t.key: i for i, t in enumerate(tools)}
        ks = [k for k in (5, 10, 20, 30, 40, 50) if k < len(kept)]
        return silhouette_curve(engine.vectors, ks), silhouette_curve(engine.vectors[[index[k] for k in kept]], ks)

    last = review.decisions[-1].id if review.decisions else 0
    sil = job_result(ws, ("silhouette", version.id, space, run.run_id, last), curves,
                     label="k-means silhouette over k = 5…50, before and after…", stop=False)
    if sil is not None:
        st.plotly_chart(silhouette_chart(*sil), width="stretch", key="overlap_sil_chart")
