"""The Catalog page's import forms: a catalog file (with optional queries) and a public benchmark. Each reads
its widgets, hands the parsed files to the workspace, and says what was stored, with a button to open it."""

from __future__ import annotations

import streamlit as st

from components.pickers import choose
from components.text import md_escape
from core.importers._common import MAX_CATALOG_BYTES, MB, check_catalog_size
from core.importers.benchmark import FORMATS as BENCHMARKS
from core.importers.benchmark import parse_benchmark, uploaded_benchmark_files
from core.importers.errors import CatalogImportError
from core.workspace import ImportReport, Workspace


def open_button(imported) -> None:
    """After an import: open the catalog it went into (the choice then holds on every page)."""
    st.button(f"Open {md_escape(imported.catalog_name, 100)} v{imported.number}", key="open_imported", on_click=choose,
              args=(imported.catalog_name, imported.number))


def _stored_where(report: ImportReport) -> str:
    return "unchanged — same content as the latest version" if report.reused else f"version {report.version.number}"


def catalog_import_form(ws: Workspace) -> None:
    """OpenAI tools JSON, OpenAPI 3 or a saved MCP ``tools/list`` result, with an optional queries JSONL."""
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
    if not submitted:
        return
    if upload is None or not new_name.strip():
        st.warning("Choose a file and a catalog name.")
        return
    try:
        for f in (upload, qupload):
            if f is not None:
                check_catalog_size(f.size, f.name)  # before reading: our limit, whatever Streamlit's is
        report = ws.import_bytes(upload.getvalue(), upload.name, name=new_name.strip(),
                                 queries=(qupload.getvalue(), qupload.name) if qupload is not None else None)
    except (CatalogImportError, ValueError) as exc:
        st.error(f"Nothing was imported. {md_escape(str(exc))}")
        return
    st.success(f"Imported {report.version.n_tools} tools into **{md_escape(report.version.catalog_name)}** "
               f"({_stored_where(report)}).")
    if report.dropped:
        st.warning(md_escape(report.dropped_summary, 1500))
    open_button(report.version)


def benchmark_import_form(ws: Workspace) -> None:
    """A public benchmark's own published files (or a zip of its folder): tools, queries and gold labels."""
    st.subheader("Import a public benchmark")
    st.caption("Tools, queries and gold labels in the benchmark's own published files. Upload a zip of the "
               "benchmark's folder (folders matter: BFCL's answers sit in `possible_answer/`) or its files.")
    with st.form("benchmark_form", clear_on_submit=False):
        fmt = st.selectbox("Format", list(BENCHMARKS), format_func=lambda k: BENCHMARKS[k], key="bench_format")
        bench_files = st.file_uploader("Benchmark files or a zip of its folder", accept_multiple_files=True,
                                       type=["zip", "json", "jsonl", "csv", "tsv", "txt"], key="bench_files",
                                       help=f"Up to {MAX_CATALOG_BYTES // MB} MB per file.")
        bench_name = st.text_input("Name for the benchmark catalog", key="bench_name", placeholder="default: the format's name")
        submitted = st.form_submit_button("Import benchmark")
    if not submitted:
        return
    if not bench_files:
        st.warning("Choose the benchmark's files or a zip of its folder.")
        return
    try:
        with st.spinner("Reading the benchmark…"):
            files = uploaded_benchmark_files(bench_files)
            parsed = parse_benchmark(fmt, files)
            report = ws.import_benchmark(parsed, name=bench_name.strip() or None,
                                         source=", ".join(f.name for f in bench_files))
    except (CatalogImportError, ValueError) as exc:
        st.error(f"Nothing was imported. {md_escape(str(exc))}")
        return
    n_queries = report.query_set.n_queries if report.query_set else 0
    st.success(f"Imported {report.version.n_tools} tools and {n_queries} queries into "
               f"**{md_escape(report.version.catalog_name)}** ({_stored_where(report)}).")
    for line in parsed.skipped:
        st.caption(f"Left out: {md_escape(line)}")
    if report.dropped:
        st.warning(md_escape(report.dropped_summary, 1500))
    open_button(report.version)
