"""The app's pages, listed once: the router (app.py) builds its navigation from this list and the Start page
its tour, so a page's title, address and icon cannot differ between the two."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageEntry:
    path: str  # the page's file, relative to the app's root
    title: str
    url_path: str
    icon: str
    purpose: str = ""  # one line on what the page is for, shown on the Start page's tour


START = PageEntry("pages/home.py", "Start here", "home", ":material/home:")
# in the order a first hour goes
TOUR = (
    PageEntry("pages/catalog.py", "Catalog", "catalog", ":material/manage_search:",
              "Search the tools (dense, BM25 or hybrid), read each tool's card, import your own catalog "
              "(OpenAI tools JSON, OpenAPI, an MCP server's tool list, a public benchmark)."),
    PageEntry("pages/overlap_map.py", "Overlap map", "overlap_map", ":material/scatter_plot:",
              "See the catalog as a map: tools an agent could confuse sit close together and are linked."),
    PageEntry("pages/merge_review.py", "Merge review", "merge_review", ":material/call_merge:",
              "Find groups of overlapping tools, read the judge's verdict on each pair and accept or edit the "
              "merges."),
    PageEntry("pages/playground.py", "Strategy playground", "playground", ":material/science:",
              "Run one query through several retrieval strategies side by side, and watch memetic evolution "
              "rewrite it."),
    PageEntry("pages/trials.py", "Trials", "trials", ":material/play_circle:",
              "Call the top candidate tools for a request and re-rank them by what actually happened."),
    PageEntry("pages/timeline.py", "Timeline", "timeline", ":material/timeline:",
              "Replay the catalog changing version by version and see which requests stop or start working."),
    PageEntry("pages/runs.py", "Runs", "runs", ":material/table_chart:",
              "Start evaluations and compare stored runs, query by query, with significance tests."),
    PageEntry("pages/settings.py", "Settings", "settings", ":material/settings:",
              "Choose the language-model backend for operators and judges (offline heuristics by default)."),
)
