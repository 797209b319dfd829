"""A tool's card: identity, description and parameter schema."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from components.text import md_escape, plain_text
from core.doc_quality import rate_by_rules
from core.models import Tool


def parameter_rows(tool: Tool) -> list[dict[str, Any]]:
    props = tool.parameters.get("properties") or {}
    required = set(tool.required)
    rows = []
    for name, spec in props.items():
        spec = spec if isinstance(spec, dict) else {}
        kind = spec.get("type", "")
        if isinstance(kind, list):
            kind = " | ".join(map(str, kind))
        if kind == "array" and isinstance(spec.get("items"), dict):
            kind = f"array<{spec['items'].get('type', 'any')}>"
        rows.append(
            {
                "parameter": str(name),
                "type": str(kind),
                "required": name in required,
                "description": plain_text(str(spec.get("description", ""))),
                "enum / default": ", ".join(map(str, spec.get("enum", []))) or str(spec.get("default", "")),
            }
        )
    return rows


def tool_card(tool: Tool, *, score: float | None = None) -> None:
    with st.container(border=True):
        head, right = st.columns([4, 1])
        # every catalog string goes through md_escape (a key inside `code` could still break out of it
        # with a blank line, so it is escaped like the rest)
        head.markdown(f"#### {md_escape(' '.join(tool.name.split()), 300)}")
        head.caption(f"key {md_escape(tool.key, 300)} · category {md_escape(tool.category or '—', 300)} · "
                     f"source {md_escape(tool.source or '—', 300)}")
        if score is not None:
            right.metric("score", f"{score:.3f}")
        # shown as the reader of the docs would see it (markdown and tags resolved to text), then escaped
        st.markdown(md_escape(plain_text(tool.description)) if tool.description else "_No description._")
        quality = rate_by_rules(tool)
        found = "; ".join(md_escape(issue, 300) for issue in quality.issues) or "nothing to fix"
        st.caption(f"Documentation quality (rules): **{quality.score}/5** — {found}")
        rows = parameter_rows(tool)
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        else:
            st.caption("No parameters.")
        with st.expander("JSON schema"):
            st.code(json.dumps(tool.to_openai(), indent=2, ensure_ascii=False), language="json")
