"""The documentation methods compared on an evolving toolset (CONTDA §5, Table 5), looked up by name.

Each method is which of the two CONTDA stages it runs; they share one continual procedure
(:mod:`core.evolution.pipeline`), so a difference in results is a difference in stages only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Method:
    name: str
    label: str
    explore: bool  # Stage I, relation-guided exploration of new tools
    adjust: bool  # Stage II, relation-aware adjustment (relational notes)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("original", "Original docs", False, False),
    Method("contda", "CONTDA", True, True),
    Method("contda_no_adjust", "CONTDA w/o adjustment", True, False),
    Method("contda_no_discovery", "CONTDA w/o discovery", False, True),
)}
DEFAULT_METHODS = tuple(METHODS)


def get_method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; valid methods: {', '.join(METHODS)}") from None


def check_methods(names) -> tuple[str, ...]:
    """The names, validated, duplicates dropped, in the given order; at least one."""
    out = tuple(dict.fromkeys(get_method(n).name for n in names))
    if not out:
        raise ValueError(f"no methods given; valid methods: {', '.join(METHODS)}")
    return out
