"""Which processes a page may start: the exact commands shown, and the user's yes, before any of them runs."""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from components.text import md_escape
from core.execution.setup import ExecutorPlan, python_tools
from core.models import Tool


def plan_key(plan: ExecutorPlan) -> str:
    """A short, stable name for a plan (its servers, hosts and sandbox choice), for caches and widget keys."""
    return hashlib.sha256(json.dumps({**plan.to_json(), "demo": plan.demo}, sort_keys=True).encode()).hexdigest()[:16]


def approve_plan(plan: ExecutorPlan, *, key: str) -> ExecutorPlan:
    """Show every MCP server command ``plan`` would start and ask before starting them.

    Returns the plan to carry out: ``plan`` itself once the user agreed, else the same plan without servers
    (calls then fail as 'no executor' and are simulated or not made). Only the demo's own server, which ships
    with the app, is agreed to in advance; a server registered with ``toolatlas import-mcp`` waits for the tick.
    The answer lasts for this browser session and is asked again when the list of commands changes."""
    if not plan.servers:
        st.caption("No MCP server is registered for this catalog, so no call is made for real (a catalog file "
                   "never names one; the operator registers servers with `toolatlas import-mcp`).")
        return plan
    n = len(plan.servers)
    with st.container(border=True):
        st.markdown(f"**Running this page starts {n} MCP server process{'es' * (n != 1)}** on the Tool Atlas "
                    "server, exactly:")
        st.code("\n".join(s.describe() for s in plan.servers), language=None, wrap_lines=True)
        agreed = st.checkbox("Start these servers when I run", value=plan.demo and n == 1,
                             key=f"{key}_servers_{plan_key(plan)}",
                             help="Registered by the operator with `toolatlas import-mcp`, or the demo's own server. "
                                  "Unticked, nothing is started and calls count as 'no executor'.")
    return plan if agreed else plan.without_servers()


def sandbox_choice(tools: list[Tool] | tuple[Tool, ...], *, key: str) -> bool:
    """Whether to run the catalog's inline Python tools in the sandbox (off unless the user turns it on), with
    the isolation this machine gives them; nothing is shown for a catalog without Python tools."""
    n = len(python_tools(tools))
    if not n:
        return False
    on = st.toggle(f"Run the catalog's {n} Python tool{'s' * (n != 1)} in the sandbox", value=False, key=key,
                   help="Tool code from a catalog file runs only here, one fresh restricted process per call.")
    if on:
        from core.execution.sandbox import isolation_report

        report = isolation_report()
        (st.warning if report.summary.startswith("WARNING") else st.caption)(md_escape(report.summary, 600))
    return on
