"""Summary numbers of a catalog and the filters the Catalog page applies."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core.models import Tool


@dataclass(frozen=True)
class CatalogStats:
    n_tools: int
    n_categories: int
    n_sources: int
    mean_description_words: float
    median_description_words: float
    empty_descriptions: int
    mean_parameters: float
    max_parameters: int
    no_parameters: int
    top_categories: tuple[tuple[str, int], ...]


def catalog_stats(tools: Sequence[Tool]) -> CatalogStats:
    words = [len(t.description.split()) for t in tools] or [0]
    params = [len(t.parameter_names) for t in tools] or [0]
    cats = Counter(t.category or "(none)" for t in tools)
    return CatalogStats(
        n_tools=len(tools),
        n_categories=len(cats),
        n_sources=len({t.source for t in tools}),
        mean_description_words=round(statistics.fmean(words), 1),
        median_description_words=float(statistics.median(words)),
        empty_descriptions=sum(1 for t in tools if not t.description.strip()),
        mean_parameters=round(statistics.fmean(params), 2),
        max_parameters=max(params),
        no_parameters=sum(1 for p in params if p == 0) if tools else 0,
        top_categories=tuple(cats.most_common(10)),
    )


def matches_filters(tool: Tool, categories: Collection[str] = (), sources: Collection[str] = ()) -> bool:
    """True when the tool passes the category and source filters (an empty filter passes all)."""
    if categories and (tool.category or "(none)") not in categories:
        return False
    return not sources or (tool.source or "(none)") in sources
