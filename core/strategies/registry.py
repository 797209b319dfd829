"""Strategy look-up by name. Modules are imported only when their strategy is asked for."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from core.strategies.base import Strategy

# name -> "module:class"
_STRATEGIES: dict[str, str] = {
    "query": "core.strategies.query:QueryStrategy",
    "single_pass": "core.strategies.single_pass:SinglePassStrategy",
    "dbd": "core.strategies.dbd:DBDStrategy",
    "ibi": "core.strategies.ibi:IBIStrategy",
    "scattershot": "core.strategies.scattershot:ScattershotStrategy",
    "memetic": "core.strategies.memetic:MemeticStrategy",
    "memetic_v2": "core.strategies.memetic_v2:MemeticV2Strategy",
    "reinvoke": "core.strategies.reinvoke:ReInvokeStrategy",
    "toolscope": "core.strategies.toolscope:ToolScopeStrategy",
}

# Collaborators the caller may offer; each strategy takes the ones its constructor names.
CONTEXT_ARGS = ("operators", "memory", "query_store", "progress")


def strategy_names() -> tuple[str, ...]:
    return tuple(_STRATEGIES)


def strategy_class(name: str) -> type:
    target = _STRATEGIES.get(name)
    if target is None:
        raise ValueError(f"unknown strategy {name!r}; valid strategies: {', '.join(strategy_names())}")
    module_name, cls_name = target.split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def accepted_params(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for p in list(inspect.signature(init).parameters.values())[2:]:
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.add(p.name)
    return names


def make_strategy(name: str, search_engine: Any, *, context: dict[str, Any] | None = None, **params: Any) -> Strategy:
    """Build strategy ``name`` over ``search_engine`` with its parameters.

    ``context`` offers shared collaborators (LLM operators, tool memory, stores); a strategy
    receives only those it takes. Unknown parameters raise, naming the valid ones.
    """
    cls = strategy_class(name)
    accepted = accepted_params(cls)
    unknown = sorted(set(params) - accepted)
    if unknown:
        valid = ", ".join(sorted(accepted - set(CONTEXT_ARGS)))
        raise ValueError(f"strategy {name!r} has no parameter {unknown[0]!r}; valid parameters: {valid}")
    offered = {k: v for k, v in (context or {}).items() if k in accepted and v is not None}
    return cls(search_engine, **offered, **params)
