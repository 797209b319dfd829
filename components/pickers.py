"""The app-wide selection (catalog and version) and the sidebar picker every page shows for it.

One choice holds on every page: it lives in this browser session (``selection``) and in the address bar
(``?catalog=…&version=…``), so a reload or a shared link opens the same catalog. The address is read once,
when a session starts; after that the session's choice is the truth and is written back to the address on
every run (Streamlit clears the query string when the user changes page).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from components.jobs import POLL_SECONDS, await_job
from components.text import md_escape
from core.workspace import CatalogInfo, VersionInfo, Workspace

_SELECTION = "selection"
_CATALOG_WIDGET = "sel_catalog"
_VERSION_WIDGET = "sel_version"
DEFAULT_CATALOG = "demo"


@dataclass(frozen=True)
class Selection:
    """What the visitor is looking at: a catalog name and a version number (None: the latest)."""

    catalog: str | None = None
    version: int | None = None

    @staticmethod
    def from_params(params) -> Selection:
        """Read ``?catalog=…&version=…``; a version that is not a positive whole number is ignored."""
        catalog = (params.get("catalog") or "").strip() or None
        raw = (params.get("version") or "").strip().lstrip("vV")
        version = int(raw) if raw.isdigit() and int(raw) > 0 else None
        return Selection(catalog, version if catalog else None)

    def to_params(self) -> dict[str, str]:
        if not self.catalog:
            return {}
        return {"catalog": self.catalog, **({"version": str(self.version)} if self.version else {})}


def selection() -> Selection:
    return st.session_state.get(_SELECTION) or Selection()


def _write_url(chosen: Selection) -> None:
    wanted = chosen.to_params()
    current = {k: st.query_params.get(k) for k in ("catalog", "version") if k in st.query_params}
    if wanted and current != wanted:
        for k in ("catalog", "version"):
            if k in st.query_params and k not in wanted:
                del st.query_params[k]
        st.query_params.update(wanted)


def keep_selection() -> None:
    """Called by the router on every run: adopt the address's choice when this session starts, else put the
    session's choice back into the address (a page change clears it)."""
    if _SELECTION not in st.session_state:
        st.session_state[_SELECTION] = Selection.from_params(st.query_params)
    _write_url(selection())


def _on_catalog_change() -> None:
    st.session_state[_SELECTION] = Selection(st.session_state[_CATALOG_WIDGET], None)


def _on_version_change() -> None:
    st.session_state[_SELECTION] = Selection(selection().catalog, st.session_state[_VERSION_WIDGET])


def resolve(chosen: Selection, catalogs: tuple[CatalogInfo, ...]) -> tuple[CatalogInfo, VersionInfo, str | None]:
    """The catalog and version to show for ``chosen`` and, when the choice cannot be honoured (a link to a
    catalog or version this store lacks), a sentence saying what is shown instead."""
    if not catalogs:
        raise ValueError("the store has no catalogs")
    by_name = {c.name: c for c in catalogs}
    fallback = by_name.get(DEFAULT_CATALOG, catalogs[0])
    info = by_name.get(chosen.catalog or "", fallback)
    problem = None
    if chosen.catalog and chosen.catalog not in by_name:
        problem = f"There is no catalog named “{chosen.catalog}” in this store; showing “{info.name}”."
    numbers = [v.number for v in info.versions]
    if chosen.version is not None and chosen.version in numbers and info.name == chosen.catalog:
        version = info.versions[numbers.index(chosen.version)]
    else:
        version = info.latest
        if chosen.version is not None and info.name == chosen.catalog:
            problem = (f"Catalog “{info.name}” has no version {chosen.version}; "
                       f"showing its latest, v{version.number}.")
    return info, version, problem


def catalog_picker(ws: Workspace) -> tuple[CatalogInfo, VersionInfo]:
    """The sidebar's Catalog and Version boxes, set to the app-wide selection; a change holds on every page."""
    catalogs = ws.catalogs()
    info, version, problem = resolve(selection(), catalogs)
    names = [c.name for c in catalogs]
    # seed the widgets from the selection: Streamlit forgets a widget's value when a page without it runs
    st.session_state[_CATALOG_WIDGET] = info.name
    st.session_state[_VERSION_WIDGET] = version.number
    with st.sidebar:
        st.selectbox("Catalog", names, key=_CATALOG_WIDGET, on_change=_on_catalog_change,
                     help="Holds on every page and in the address bar, so a link opens the same catalog.")
        st.selectbox(
            "Version", [v.number for v in info.versions][::-1], key=_VERSION_WIDGET, on_change=_on_version_change,
            format_func=lambda n: " · ".join(dict.fromkeys([f"v{n}", info.versions[n - 1].label]))
            + f" · {info.versions[n - 1].n_tools} tools",
        )
        if problem:
            st.warning(md_escape(problem))
    chosen = Selection(info.name, version.number)
    st.session_state[_SELECTION] = chosen  # a link this store cannot honour gives way to what is shown
    _write_url(chosen)
    return info, version


def ensure_engine(ws: Workspace, version: VersionInfo, *, first_look: bool = False):
    """The version's search engine. The first time it is embedded that runs as a background job shared by every
    session that opens the version, and this page shows its progress and stops there until the job is over (a
    rerun or page switch does not stop the job).

    ``first_look`` (pages that only search and map: Catalog, Overlap map): a large version without cached vectors
    gets the static embedder's engine at once (``core.first_look``) while the full index builds, with a note
    saying so that follows the build and reruns the page when the full engine replaces it."""
    if first_look and not ws.has_search_engine(version.id) and ws.wants_first_look(version.id):
        if ws.first_look_engine(version.id) is None:  # else built already: its job started the full index too
            try:
                await_job(ws.start_first_look(version.id))
            except ValueError as exc:  # no static model (a base model that is no local folder): wait as before
                st.warning(f"No first look: {md_escape(str(exc), 300)}. Waiting for the full index instead.")
        engine = ws.first_look_engine(version.id)
        if engine is not None:
            first_look_note(ws, version.id)
            return engine
    if not ws.has_search_engine(version.id):
        await_job(ws.start_search_engine(version.id))
    return ws.search_engine(version.id)


def first_look_note(ws: Workspace, version_id: int) -> None:
    """Which embedder the page's search and map use during a first look, and how far the full index is: a
    fragment that refreshes alone and reruns the page once the full engine is in."""

    @st.fragment(run_every=POLL_SECONDS)
    def note() -> None:
        status = ws.first_look_status(version_id)
        if status is None or (status.over and status.error is None):
            st.rerun(scope="app")
        if status.error:
            st.warning(md_escape(status.message, 600), icon=":material/error:")
        else:
            st.info(md_escape(status.message, 600), icon=":material/bolt:")

    note()


def choose(catalog: str | None, version: int | None = None) -> None:
    """Make ``catalog`` (None: the default) the app-wide selection, say after an import or a deletion."""
    st.session_state[_SELECTION] = Selection(catalog, version if catalog else None)
