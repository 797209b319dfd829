"""Catalog page: search, browse, statistics, import and export."""

import pandas as pd
import streamlit as st

from components.charts import (
    category_bar,
    description_length_histogram,
    doc_quality_bar,
    parameter_count_histogram,
)
from components.check_view import compare_versions
from components.import_forms import benchmark_import_form, catalog_import_form
from components.pickers import catalog_picker, choose, ensure_engine
from components.search_view import DESCRIPTION_COLUMN, search_panel
from components.session import workspace
from components.text import md_escape, plain_text
from components.tool_card import tool_card
from core.catalog_stats import catalog_stats, matches_filters
from core.doc_quality import issue_kinds, rate_all
from core.importers.export import FORMATS as EXPORT_FORMATS
from core.importers.export import export_openai_tools

st.title("Catalog")
st.caption("Search and browse the tools of the catalog chosen in the sidebar, check their documentation, or "
           "import your own catalog. Start by typing a request an agent might get.")
ws = workspace()
info, version = catalog_picker(ws)
name = info.name
tools = ws.tools(version.id)
engine = ensure_engine(ws, version, first_look=True)  # a large catalog: static first, full model next

categories = sorted({t.category or "(none)" for t in tools})
sources = sorted({t.source or "(none)" for t in tools})
with st.sidebar:
    st.divider()
    chosen_categories = st.multiselect("Category", categories, key="filter_categories")
    chosen_sources = st.multiselect("Source", sources, key="filter_sources") if len(sources) > 1 else []


def search_tab() -> None:
    """Search the catalog; a result opens its tool card."""
    search_panel(engine, tools, chosen_categories, chosen_sources)


def browse_tab() -> None:
    """Every tool that passes the filters; a row opens its tool card."""
    shown = [t for t in tools if matches_filters(t, chosen_categories, chosen_sources)]
    st.caption(f"{len(shown)} of {len(tools)} tools")
    frame = pd.DataFrame(
        {
            "key": [t.key for t in shown],
            "name": [t.name for t in shown],
            "category": [t.category for t in shown],
            "parameters": [len(t.parameter_names) for t in shown],
            "description": [plain_text(t.description) for t in shown],
        }
    )
    event = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key="browse_table", height=420, column_config={"description": DESCRIPTION_COLUMN})
    rows = event.selection.rows if event and event.selection else []
    if rows:
        tool_card(shown[rows[0]])


def stats_tab() -> None:
    """The catalog's shape and its documentation quality."""
    stats = catalog_stats(tools)
    m = st.columns(5)
    m[0].metric("Tools", f"{stats.n_tools:,}")
    m[1].metric("Categories", stats.n_categories)
    m[2].metric("Median description", f"{stats.median_description_words:.0f} words")
    m[3].metric("Mean parameters", stats.mean_parameters)
    m[4].metric("Without description", stats.empty_descriptions)
    # Built once per version and session, like the ratings below: building a figure costs more than drawing it,
    # and every rerun of the page (a filter, a page switch back) would build them again.
    figures_key = f"catalog_figures_{version.id}"
    if figures_key not in st.session_state:
        st.session_state[figures_key] = (description_length_histogram(tools), parameter_count_histogram(tools),
                                         category_bar(tools))
    lengths_fig, parameters_fig, categories_fig = st.session_state[figures_key]
    left, right = st.columns(2)
    left.plotly_chart(lengths_fig, width="stretch")
    right.plotly_chart(parameters_fig, width="stretch")
    st.plotly_chart(categories_fig, width="stretch")

    st.subheader("Documentation quality")
    st.caption("Rules, instant: a description missing, very short or only restating the name; parameters "
               "without a description or type; names that say nothing. "
               "`toolatlas doc-quality NAME --llm openai` asks a model instead.")
    # Every tab's body runs on every rerun of the page (a filter change is one): rate a version once per session.
    quality_key = f"doc_quality_{version.id}"
    if quality_key not in st.session_state:
        ratings = rate_all(tools)
        st.session_state[quality_key] = (ratings, doc_quality_bar([r.score for r in ratings]))
    ratings, quality_fig = st.session_state[quality_key]
    q1, q2 = st.columns(2)
    q1.plotly_chart(quality_fig, width="stretch")
    kinds = issue_kinds(ratings)
    if kinds:
        q2.dataframe(pd.DataFrame({"problem": list(kinds), "tools": list(kinds.values())}), hide_index=True,
                     width="stretch", key="quality_kinds")
        worst = sorted((r for r in ratings if r.issues), key=lambda r: (r.score, -len(r.issues), r.key))[:200]
        by_key = {t.key: t for t in tools}
        st.dataframe(pd.DataFrame([{"score": r.score, "name": by_key[r.key].name, "key": r.key,
                                    "problems": "; ".join(r.issues)} for r in worst]),
                     hide_index=True, width="stretch", key="quality_worst", height=300)
    else:
        q2.success("No documentation problems found by the rules.")


def io_tab() -> None:
    """Import a catalog or benchmark, export this version, delete the catalog."""
    catalog_import_form(ws)
    benchmark_import_form(ws)
    st.subheader("Export")
    e1, e2 = st.columns(2)
    e1.download_button(
        f"Download {md_escape(name)} v{version.number} as {EXPORT_FORMATS['openai']}",
        data=lambda: export_openai_tools(tools, "openai"),  # made on click, not on every run of the page
        file_name=f"{name}-v{version.number}.json",
        mime="application/json",
        key="export_button",
        help="Exactly an OpenAI tools list (type, function: name, description, parameters), ready for an agent.",
    )
    e2.download_button(
        f"Download as {EXPORT_FORMATS['atlas']}",
        data=lambda: export_openai_tools(tools, "atlas"),
        file_name=f"{name}-v{version.number}.atlas.json",
        mime="application/json",
        key="export_atlas_button",
        help="Adds our key, category and each tool's extras (an OpenAPI operation's method and path…), so "
             "importing it gives back the same tools.",
    )
    st.subheader("Delete")
    if name == "demo":
        st.caption("The built-in demo catalog cannot be deleted here (it comes back at every start).")
    else:
        st.caption(f"Deletes **{md_escape(name)}** with all {len(info.versions)} version(s), its query sets and "
                   "every run made on them, for everyone using this store. This cannot be undone.")
        confirm = st.text_input("Type the catalog's name to confirm", key="delete_confirm")
        if st.button("Delete this catalog", key="delete_button", disabled=confirm.strip() != name):
            deleted = ws.delete_catalog(name)
            choose(None)
            st.session_state["delete_done"] = deleted.summary()
            st.rerun()
    if "delete_done" in st.session_state:
        st.success(md_escape(st.session_state.pop("delete_done")))


# Lazy tabs: only the open tab's body runs and is sent (a search used to resend the whole Browse table, the
# statistics figures and the import forms every time), and the open tab holds across reruns.
tabs = st.tabs(["Search", "Browse", "Statistics", "Import / export"], key="catalog_tab", on_change="rerun")
for tab, body in zip(tabs, (search_tab, browse_tab, stats_tab, io_tab), strict=True):
    if tab.open:
        with tab:
            body()

st.divider()
compare_versions(ws, info)  # two stored versions checked against each other (toolatlas check), with its report
