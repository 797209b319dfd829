"""Catalog page: search, browse, statistics, import and export."""

import pandas as pd
import streamlit as st

from components.charts import (
    category_bar,
    description_length_histogram,
    doc_quality_bar,
    parameter_count_histogram,
)
from components.pickers import catalog_picker, choose, ensure_engine
from components.session import workspace
from components.text import md_escape, plain_text
from components.tool_card import tool_card
from core.catalog_stats import catalog_stats, matches_filters
from core.doc_quality import issue_kinds, rate_all
from core.importers._common import MAX_CATALOG_BYTES, MB, check_catalog_size
from core.importers.benchmark import FORMATS as BENCHMARKS
from core.importers.benchmark import parse_benchmark, uploaded_benchmark_files
from core.importers.detect import load_catalog_bytes
from core.importers.errors import CatalogImportError
from core.importers.export import FORMATS as EXPORT_FORMATS
from core.importers.export import export_openai_tools
from core.importers.queries import parse_queries_jsonl
from core.search.engine import MODES

MODE_LABELS = {"dense": "Dense", "bm25": "BM25", "hybrid": "Hybrid", "rrf": "Rank fusion"}
# whole descriptions in the cell (hover or widen to read; the tool card below shows them in full)
DESCRIPTION_COLUMN = st.column_config.TextColumn("description", width="large")

st.title("Catalog")
st.caption("Search and browse the tools of the catalog chosen in the sidebar, check their documentation, or "
           "import your own catalog. Start by typing a request an agent might get.")
ws = workspace()
info, version = catalog_picker(ws)
name = info.name
tools = ws.tools(version.id)
by_key = {t.key: t for t in tools}
engine = ensure_engine(ws, version)

categories = sorted({t.category or "(none)" for t in tools})
sources = sorted({t.source or "(none)" for t in tools})
with st.sidebar:
    st.divider()
    chosen_categories = st.multiselect("Category", categories, key="filter_categories")
    chosen_sources = st.multiselect("Source", sources, key="filter_sources") if len(sources) > 1 else []



def open_button(imported) -> None:
    """After an import: open the catalog it went into (the choice then holds on every page)."""
    st.button(f"Open {md_escape(imported.catalog_name, 100)} v{imported.number}", key="open_imported", on_click=choose,
              args=(imported.catalog_name, imported.number))


tab_search, tab_browse, tab_stats, tab_io = st.tabs(["Search", "Browse", "Statistics", "Import / export"])

with tab_search:
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
    if ws.reranker is None:
        st.caption("Reranker: none configured (no cross-encoder ships offline) — set one on the Settings page.")
    else:
        rerank = st.toggle(f"Rerank top 50 with {md_escape(ws.reranker.model_id)}", key="search_rerank")
    if query.strip():
        filtered = bool(chosen_categories or chosen_sources)
        # Filters apply after ranking, so a filtered search ranks the whole catalog: a top-k×10 cut could
        # leave out every tool of a small category.
        depth = len(tools) if filtered else int(k)
        result = engine.search(query, depth, mode=mode, alpha=alpha, rerank=rerank, persist=False)
        hits = [h for h in result.hits if matches_filters(by_key[h.key], chosen_categories, chosen_sources)][: int(k)]
        st.caption(f"{len(hits)} results in {result.seconds * 1000:.0f} ms")
        if hits:
            frame = pd.DataFrame(
                {
                    "rank": range(1, len(hits) + 1),
                    "name": [by_key[h.key].name for h in hits],
                    "category": [by_key[h.key].category for h in hits],
                    "score": [h.score for h in hits],
                    "dense": [h.dense for h in hits],
                    "BM25": [h.sparse for h in hits],
                    "description": [plain_text(by_key[h.key].description) for h in hits],
                }
            )
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
        else:
            st.info("No tool matches these filters.")
    else:
        st.caption("Type a query to search. Pick a row to see its tool card.")

with tab_browse:
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

with tab_stats:
    stats = catalog_stats(tools)
    m = st.columns(5)
    m[0].metric("Tools", f"{stats.n_tools:,}")
    m[1].metric("Categories", stats.n_categories)
    m[2].metric("Median description", f"{stats.median_description_words:.0f} words")
    m[3].metric("Mean parameters", stats.mean_parameters)
    m[4].metric("Without description", stats.empty_descriptions)
    left, right = st.columns(2)
    left.plotly_chart(description_length_histogram(tools), width="stretch")
    right.plotly_chart(parameter_count_histogram(tools), width="stretch")
    st.plotly_chart(category_bar(tools), width="stretch")

    st.subheader("Documentation quality")
    st.caption("Rules, instant: a description missing, very short or only restating the name; parameters "
               "without a description or type; names that say nothing. "
               "`toolatlas doc-quality NAME --llm openai` asks a model instead.")
    # Every tab's body runs on every rerun (each search is one): rate a version once per session, not per rerun.
    quality_key = f"doc_quality_{version.id}"
    if quality_key not in st.session_state:
        st.session_state[quality_key] = rate_all(tools)
    ratings = st.session_state[quality_key]
    q1, q2 = st.columns(2)
    q1.plotly_chart(doc_quality_bar([r.score for r in ratings]), width="stretch")
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

with tab_io:
    st.subheader("Import")
    st.caption("OpenAI tools JSON (optionally with `key`/`category`), OpenAPI 3 (JSON/YAML) or a saved MCP "
               "`tools/list` result. Imports are all-or-nothing.")
    with st.form("import_form", clear_on_submit=False):
        limit = f"Up to {MAX_CATALOG_BYTES // MB} MB."
        upload = st.file_uploader("Catalog file", type=["json", "yaml", "yml"], key="import_file", help=limit)
        qupload = st.file_uploader("Queries (optional JSONL: id, query, gold, split)", type=["jsonl"], key="import_queries",
                                   help=limit)
        new_name = st.text_input("Catalog name", key="import_name", help="An existing name adds a new version.")
        submitted = st.form_submit_button("Import", type="primary")
    if submitted:
        if upload is None or not new_name.strip():
            st.warning("Choose a file and a catalog name.")
        else:
            try:
                for f in (upload, qupload):
                    if f is not None:
                        check_catalog_size(f.size, f.name)  # before reading: our limit, whatever Streamlit's is
                parsed = load_catalog_bytes(upload.getvalue(), upload.name, source=upload.name)
                queries = None
                if qupload is not None:
                    queries = parse_queries_jsonl(qupload.getvalue(), qupload.name, known_keys={t.key for t in parsed})
                report = ws.import_tools(new_name.strip(), parsed, queries=queries,
                                         query_set=qupload.name.rsplit(".", 1)[0] if qupload else None, source=upload.name)
            except (CatalogImportError, ValueError) as exc:
                st.error(f"Nothing was imported. {md_escape(str(exc))}")
            else:
                what = "unchanged — same content as the latest version" if report.reused else f"version {report.version.number}"
                st.success(f"Imported {report.version.n_tools} tools into **{md_escape(report.version.catalog_name)}** ({what}).")
                if report.dropped:
                    st.warning(md_escape(report.dropped_summary, 1500))
                open_button(report.version)
    st.subheader("Import a public benchmark")
    st.caption("Tools, queries and gold labels in the benchmark's own published files. Upload a zip of the "
               "benchmark's folder (folders matter: BFCL's answers sit in `possible_answer/`) or its files.")
    with st.form("benchmark_form", clear_on_submit=False):
        fmt = st.selectbox("Format", list(BENCHMARKS), format_func=lambda k: BENCHMARKS[k], key="bench_format")
        bench_files = st.file_uploader("Benchmark files or a zip of its folder", accept_multiple_files=True,
                                       type=["zip", "json", "jsonl", "csv", "tsv", "txt"], key="bench_files",
                                       help=f"Up to {MAX_CATALOG_BYTES // MB} MB per file.")
        bench_name = st.text_input("Name for the benchmark catalog", key="bench_name", placeholder="default: the format's name")
        bench_submitted = st.form_submit_button("Import benchmark")
    if bench_submitted:
        if not bench_files:
            st.warning("Choose the benchmark's files or a zip of its folder.")
        else:
            try:
                with st.spinner("Reading the benchmark…"):
                    files = uploaded_benchmark_files(bench_files)
                    parsed = parse_benchmark(fmt, files)
                    report = ws.import_benchmark(parsed, name=bench_name.strip() or None,
                                                 source=", ".join(f.name for f in bench_files))
            except (CatalogImportError, ValueError) as exc:
                st.error(f"Nothing was imported. {md_escape(str(exc))}")
            else:
                what = "unchanged — same content as the latest version" if report.reused else f"version {report.version.number}"
                n_queries = report.query_set.n_queries if report.query_set else 0
                st.success(f"Imported {report.version.n_tools} tools and {n_queries} queries into "
                           f"**{md_escape(report.version.catalog_name)}** ({what}).")
                for line in parsed.skipped:
                    st.caption(f"Left out: {md_escape(line)}")
                if report.dropped:
                    st.warning(md_escape(report.dropped_summary, 1500))
                open_button(report.version)
    st.subheader("Export")
    e1, e2 = st.columns(2)
    e1.download_button(
        f"Download {md_escape(name)} v{version.number} as {EXPORT_FORMATS['openai']}",
        data=export_openai_tools(tools, "openai"),
        file_name=f"{name}-v{version.number}.json",
        mime="application/json",
        key="export_button",
        help="Exactly an OpenAI tools list (type, function: name, description, parameters), ready for an agent.",
    )
    e2.download_button(
        f"Download as {EXPORT_FORMATS['atlas']}",
        data=export_openai_tools(tools, "atlas"),
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
