"""Hand-made catalogs for the check: a small, well-documented BASE, and edits of it that each break one rule."""

from __future__ import annotations

import dataclasses

import pytest

from core.check.inputs import CatalogInput
from core.models import Query, Tool


def tool(key: str, description: str, params: dict[str, tuple[str, str]], required=(), category="misc") -> Tool:
    """A tool whose parameters are ``{name: (type, description)}``."""
    props = {p: {"type": t, "description": d} for p, (t, d) in params.items()}
    return Tool(key=key, name=key, description=description, category=category,
                parameters={"type": "object", "properties": props, "required": list(required)})


BASE = (
    tool("get_weather", "Current weather conditions such as temperature and wind for one city",
         {"city": ("string", "Name of the town or place to report on")}, ["city"], "Weather"),
    tool("convert_currency", "Convert an amount of money, for example dollars into euros, at the current rate",
         {"amount": ("number", "How much money to convert"), "target": ("string", "ISO code of the currency wanted")},
         ["amount", "target"], "Finance"),
    tool("stock_quote", "Latest trading price of a listed company share on the exchange",
         {"ticker": ("string", "Exchange symbol such as ACME")}, ["ticker"], "Finance"),
    tool("send_email", "Send an electronic mail message with a subject line to one recipient",
         {"recipient": ("string", "Address that receives the message"), "subject": ("string", "Short title line"),
          "body": ("string", "Main text of the message")}, ["recipient", "subject"], "Messaging"),
    tool("translate_text", "Translate a passage of writing into another human language of your choice",
         {"text": ("string", "Passage that should be translated"),
          "language": ("string", "Target language code, for example fr"),
          "tone": ("string", "Register of the output, formal or casual")}, ["text", "language"], "Language"),
    tool("play_music", "Start playing a song or playlist on the speaker in the living room",
         {"song": ("string", "Title or artist to look for")}, ["song"], "Media"),
)
QUERIES = (
    Query("q-weather", "current temperature and wind in Oslo", ("get_weather",)),
    Query("q-money", "how much is 100 dollars in euros", ("convert_currency",)),
    Query("q-stock", "trading price of ACME share", ("stock_quote",)),
)


def replace(tools, which: str, **changes) -> tuple[Tool, ...]:
    """``tools`` with the tool keyed ``which`` edited (``key=`` renames it)."""
    return tuple(dataclasses.replace(t, **changes) if t.key == which else t for t in tools)


def side(label: str, tools) -> CatalogInput:
    return CatalogInput(label, tuple(tools), "file")


@pytest.fixture
def base_input():
    return side("base.json", BASE)
