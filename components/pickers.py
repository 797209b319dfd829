"""Sidebar pickers shared by pages."""

from __future__ import annotations

import streamlit as st

from components.jobs import follow
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
    """The version's search engine. The first time it is embedded that runs as a background job shared by every
    session that opens the version, and this page shows its progress (a rerun or page switch does not stop it)."""
    if ws.has_search_engine(version.id):
        return ws.search_engine(version.id)
    follow(ws.start_search_engine(version.id))
    return ws.search_engine(version.id)
