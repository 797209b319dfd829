"""Sidebar pickers shared by pages."""

from __future__ import annotations

import time

import streamlit as st

from core.workspace import Workspace
from storage.catalogs import CatalogInfo, VersionInfo, get_catalog, list_catalogs


def catalog_picker(ws: Workspace, *, key: str = "catalog") -> tuple[CatalogInfo, VersionInfo]:
    names = [c.name for c in list_catalogs(ws.db)]
    with st.sidebar:
        name = st.selectbox("Catalog", names, index=names.index("demo") if "demo" in names else 0,
                            key=f"{key}_name")
        info = get_catalog(ws.db, name)
        numbers = [v.number for v in info.versions]
        number = st.selectbox(
            "Version", numbers[::-1], key=f"{key}_version",
            format_func=lambda n: " · ".join(dict.fromkeys([f"v{n}", info.versions[n - 1].label]))
            + f" · {info.versions[n - 1].n_tools} tools",
        )
    return info, next(v for v in info.versions if v.number == number)


def ensure_engine(ws: Workspace, version: VersionInfo):
    """The version's search engine, with a progress bar the first time it is embedded.

    When another session is already embedding this version, its progress is shown here too (polled,
    so this session stays responsive to a rerun) instead of a bar frozen at 0 while waiting for it.
    """
    if not ws.has_search_engine(version.id):
        bar = st.progress(0.0, text="Embedding the catalog (cached after the first time)…")
        while not ws.has_search_engine(version.id) and (shared := ws.build_progress(version.id)) is not None:
            done, total = shared
            bar.progress(done / max(total, 1), text=f"Embedding {done}/{total} tools (started by another session)")
            time.sleep(0.5)
        ws.search_engine(version.id, progress=lambda d, n: bar.progress(d / max(n, 1), text=f"Embedding {d}/{n} tools"))
        bar.empty()
    return ws.search_engine(version.id)
