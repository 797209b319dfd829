"""Strategy look-up by name. Modules are imported only when their strategy is asked for."""

from __future__ import annotations

import importlib
from typing import Any

from core.strategies.base import Strategy

# name -> "module:factory"; later strategies register here.
_STRATEGIES: dict[str, str] = {
    "query": "core.strategies.query:QueryStrategy",
}


def strategy_names() -> tuple[str, ...]:
    return tuple(sorted(_STRATEGIES))


def make_strategy(name: str, search_engine: Any, **params: Any) -> Strategy:
    """Build strategy ``name`` over ``search_engine``; unknown names raise listing the valid ones."""
    target = _STRATEGIES.get(name)
    if target is None:
        raise ValueError(f"unknown strategy {name!r}; valid strategies: {', '.join(strategy_names())}")
    module_name, factory = target.split(":")
    cls = getattr(importlib.import_module(module_name), factory)
    return cls(search_engine, **params)
