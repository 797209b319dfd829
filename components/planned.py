"""The placeholder shown by pages whose features have not landed yet."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st


def planned_page(title: str, summary: str, features: Sequence[str], *, papers: str) -> None:
    from components.session import ensure_router

    ensure_router()
    st.title(title)
    st.info("This page is planned; its engine work is in progress. Here is what it will do.", icon=":material/construction:")
    st.markdown(summary)
    st.markdown("\n".join(f"- {f}" for f in features))
    st.caption(f"Method sources: {papers}")
