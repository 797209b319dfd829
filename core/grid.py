"""Grids of evaluation runs (``toolatlas grid GRID.yaml``): a file names a catalog, query sets, k, strategies
with parameter sweeps and LLM backends; :func:`expand` turns it into an ordered list of *cells*, one
evaluation run each, and :func:`run_cells` runs the cells of one shard with :func:`core.evaluation.evaluate`
(so each is stored query by query and resumes), skipping the ones already finished. Our design, not a paper's.

A cell's identity is its run's config (:func:`core.evaluation.run_config`: catalog version, query ids, strategy,
parameters, k, embedder, LLM backend and seed), the one evaluation already uses to resume a run: a finished
cell is found and skipped, an unfinished one resumed, in any grid that has it. A shard ``i/n`` (0-based) is the
cells at positions ``i, i + n, i + 2n, ...`` of the expanded list, so shards are disjoint, their union is the
grid, and a Slurm array task or a Kubernetes indexed Job pod runs one against a shared store; no scheduler.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.context import LLMConfig
from core.models import Query
from core.workspace import Workspace

GRID_KEYS = ("name", "catalog", "query_set", "split", "limit", "k", "seed", "strategies", "llm")
STRATEGY_KEYS = ("name", "params")
LLM_KEYS = ("kind", "base_url", "model", "replay")
LLM_KINDS = ("offline", "openai")
# What a cell's run did: run from the start, resumed an unfinished run, or found a finished one.
RAN, RESUMED, SKIPPED = "ran", "resumed", "skipped"


@dataclass(frozen=True)
class Backend:
    """One LLM backend of a grid: offline rules, or an OpenAI-compatible endpoint and model (the key comes
    from OPENAI_API_KEY at run time, never from the file)."""

    kind: str = "offline"
    base_url: str | None = None
    model: str | None = None
    replay: bool = False

    def config(self) -> LLMConfig:
        return LLMConfig(kind=self.kind, base_url=self.base_url, model=self.model, replay=self.replay)

    @property
    def label(self) -> str:
        return "offline" if self.kind == "offline" else f"{self.kind}:{self.model}"


@dataclass(frozen=True)
class StrategySweep:
    """A strategy and its parameters, each with the values to sweep (one value: no sweep)."""

    name: str
    params: tuple[tuple[str, tuple[Any, ...]], ...] = ()


@dataclass(frozen=True)
class GridSpec:
    """A parsed, checked grid file (:func:`parse_grid`)."""

    name: str
    catalog: str
    version: int | None  # None: the latest version when the grid runs
    query_sets: tuple[str | None, ...]  # None: the catalog's default query set
    split: str | None
    limit: int | None
    ks: tuple[int, ...]
    seed: int
    strategies: tuple[StrategySweep, ...]
    llms: tuple[Backend, ...]


@dataclass(frozen=True)
class Cell:
    """One evaluation run of a grid: its position in the expanded list and its configuration. ``llm`` is None
    for a strategy without LLM operators (the backends do not multiply it)."""

    index: int
    query_set: str | None
    k: int
    strategy: str
    params: tuple[tuple[str, Any], ...]
    llm: Backend | None

    @property
    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def label(self) -> str:
        parts = [f"{name}={json.dumps(value)}" for name, value in self.params]
        text = self.strategy + (f" ({', '.join(parts)})" if parts else "")
        if self.llm is not None:
            text += f" [{self.llm.label}]"
        return f"{text} k={self.k}" + (f" on {self.query_set}" if self.query_set else "")


@dataclass(frozen=True)
class CellResult:
    cell: Cell
    run_id: int
    status: str  # RAN, RESUMED or SKIPPED
    seconds: float
    metrics: Mapping[str, Any]


@dataclass(frozen=True)
class QueryInput:
    """A query set of the grid as it runs: its id and the queries chosen (split, limit)."""

    query_set_id: int
    queries: tuple[Query, ...]


# -- the file ---------------------------------------------------------------------------------------------


def load_grid(path: str | Path) -> GridSpec:
    """:func:`parse_grid` of the file at ``path``."""
    path = Path(path)
    return parse_grid(path.read_text(encoding="utf-8"), source=path.name)


def parse_grid(text: str, *, source: str = "grid") -> GridSpec:
    """The grid a YAML document describes (``yaml.safe_load``: data only), checked strictly: an unknown key,
    strategy or parameter, or a value of the wrong type is a ValueError naming ``source`` and what is valid."""
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{source}: not valid YAML: {exc}") from None

    def fail(message: str) -> ValueError:
        return ValueError(f"{source}: {message}")

    if not isinstance(doc, dict):
        raise fail("a grid file is a mapping with keys " + ", ".join(GRID_KEYS))
    _known(doc, GRID_KEYS, "the grid", fail)
    for key in ("name", "catalog", "strategies"):
        if key not in doc:
            raise fail(f"missing {key!r}")
    name = _text(doc["name"], "name", fail)
    catalog, version = _catalog(_text(doc["catalog"], "catalog", fail), fail)
    query_sets = tuple(_text(q, "query_set", fail) for q in _listed(doc.get("query_set"), "query_set", fail)) or (None,)
    split = None if doc.get("split") is None else _text(doc["split"], "split", fail)
    limit = None if doc.get("limit") is None else _positive(doc["limit"], "limit", fail)
    ks = tuple(_positive(k, "k", fail) for k in _listed(doc.get("k", 5), "k", fail))
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise fail(f"'seed' must be an integer, got {seed!r}")
    strategies = doc["strategies"]
    if not isinstance(strategies, list) or not strategies:
        raise fail("'strategies' must be a non-empty list of strategy names or {name, params} mappings")
    sweeps = tuple(_strategy(entry, fail) for entry in strategies)
    llms = tuple(_backend(entry, fail) for entry in _listed(doc.get("llm", "offline"), "llm", fail))
    return GridSpec(name, catalog, version, _unique(query_sets), split, limit, _unique(ks), seed, sweeps,
                    _unique(llms))


def _known(mapping: dict, valid: Sequence[str], where: str, fail: Callable[[str], ValueError]) -> None:
    unknown = [str(k) for k in mapping if k not in valid]
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} in {where}; valid keys: {', '.join(valid)}")


def _text(value: Any, key: str, fail: Callable[[str], ValueError]) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise fail(f"{key!r} must be a non-empty text of at most 200 characters, got {value!r}")
    return value.strip()


def _positive(value: Any, key: str, fail: Callable[[str], ValueError]) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise fail(f"{key!r} must be a positive integer, got {value!r}")
    return value


def _listed(value: Any, key: str, fail: Callable[[str], ValueError]) -> list:
    """A value or a list of values as a list; an empty list is an error, absent (None) is no value."""
    if value is None:
        return []
    if isinstance(value, list):
        if not value:
            raise fail(f"{key!r} is an empty list")
        return value
    return [value]


def _unique(values: Sequence) -> tuple:
    return tuple(dict.fromkeys(values))


def _catalog(text: str, fail: Callable[[str], ValueError]) -> tuple[str, int | None]:
    """``NAME`` (the latest version when the grid runs) or ``NAME@vN``."""
    match = re.fullmatch(r"(.+?)@v(\d+)", text)
    if match is None:
        if "@" in text:
            raise fail(f"'catalog' is NAME or NAME@vN (e.g. demo@v5), got {text!r}")
        return text, None
    number = int(match.group(2))
    if number < 1:
        raise fail(f"catalog versions start at v1, got {text!r}")
    return match.group(1), number


def _strategy(entry: Any, fail: Callable[[str], ValueError]) -> StrategySweep:
    from core.strategies.registry import CONTEXT_ARGS, accepted_params, strategy_class

    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict) or "name" not in entry:
        raise fail(f"a strategy is a name or a mapping with 'name' and 'params', got {entry!r}")
    _known(entry, STRATEGY_KEYS, f"strategy {entry.get('name')!r}", fail)
    name = _text(entry["name"], "strategies.name", fail)
    try:
        accepted = accepted_params(strategy_class(name))
    except ValueError as exc:
        raise fail(str(exc)) from None
    valid = sorted(accepted - set(CONTEXT_ARGS) | ({"memory"} & accepted))
    params = entry.get("params") or {}
    if not isinstance(params, dict):
        raise fail(f"the params of strategy {name!r} must be a mapping of name: value or name: [values]")
    swept = []
    for key, values in params.items():
        if key not in valid:
            raise fail(f"strategy {name!r} has no parameter {key!r}; valid parameters: {', '.join(valid)}")
        values = _listed(values, f"{name}.params.{key}", fail) if values is not None else [None]
        swept.append((str(key), _unique_json(values)))
    return StrategySweep(name, tuple(swept))


def _unique_json(values: Sequence[Any]) -> tuple[Any, ...]:
    """The values in order, each once (compared as JSON, so lists and mappings may be swept too)."""
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(json.dumps(value, sort_keys=True), value)
    return tuple(seen.values())


def _backend(entry: Any, fail: Callable[[str], ValueError]) -> Backend:
    if isinstance(entry, str):
        entry = {"kind": entry}
    if not isinstance(entry, dict):
        raise fail(f"an llm backend is 'offline' or a mapping with keys {', '.join(LLM_KEYS)}, got {entry!r}")
    _known(entry, LLM_KEYS, "an llm backend", fail)
    kind = entry.get("kind", "offline")
    if kind not in LLM_KINDS:
        raise fail(f"unknown llm kind {kind!r}; valid kinds: {', '.join(LLM_KINDS)}")
    base_url = None if entry.get("base_url") is None else _text(entry["base_url"], "llm.base_url", fail)
    model = None if entry.get("model") is None else _text(entry["model"], "llm.model", fail)
    replay = entry.get("replay", False)
    if not isinstance(replay, bool):
        raise fail(f"'llm.replay' is true or false, got {replay!r}")
    if kind == "offline" and (base_url or model):
        raise fail("an offline llm backend takes no base_url or model")
    if kind == "openai" and model is None:
        # the file names the model, so every shard's runs have the same identity whatever its environment
        raise fail("an openai llm backend needs 'model' (and 'base_url' unless it is OpenAI's own)")
    return Backend(kind, base_url, model, replay)


# -- cells and shards -------------------------------------------------------------------------------------


def expand(spec: GridSpec) -> tuple[Cell, ...]:
    """The grid's cells in a stable order: query set (as listed), k (as listed), strategy (as listed), each
    combination of its parameters (``itertools.product`` in the order the parameters and values are written,
    the last parameter varying fastest), LLM backend (as listed; a strategy without LLM operators gets one
    cell, not one per backend). Cells with the same configuration are kept once, where they first come."""
    from core.strategies.registry import accepted_params, strategy_class

    cells: list[Cell] = []
    seen: set[str] = set()
    for query_set, k, sweep in itertools.product(spec.query_sets, spec.ks, spec.strategies):
        uses_llm = "operators" in accepted_params(strategy_class(sweep.name))
        names = [name for name, _ in sweep.params]
        for values in itertools.product(*(vals for _, vals in sweep.params)):
            params = tuple(zip(names, values, strict=True))
            for llm in spec.llms if uses_llm else (None,):
                identity = json.dumps([query_set, k, sweep.name, dict(params), llm and llm.config().identity()],
                                      sort_keys=True)
                if identity in seen:
                    continue
                seen.add(identity)
                cells.append(Cell(len(cells), query_set, k, sweep.name, params, llm))
    return tuple(cells)


def parse_shard(text: str) -> tuple[int, int]:
    """``i/n``: shard ``i`` of ``n``, 0-based (``0/4`` … ``3/4``); ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if match is None:
        raise ValueError(f"--shard is I/N with 0 <= I < N (0-based, e.g. 0/4 ... 3/4), got {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or index >= count:
        raise ValueError(f"--shard {text!r}: the index is 0-based and below the count (0/{max(count, 1)} ... "
                         f"{max(count, 1) - 1}/{max(count, 1)}), got {index}/{count}")
    return index, count


def shard(cells: Sequence[Cell], index: int, count: int) -> tuple[Cell, ...]:
    """Shard ``index`` of ``count`` (0-based): the cells at positions ``index``, ``index + count``, ... Shards
    are disjoint and together hold every cell; dealt round-robin, so each gets a share of every strategy."""
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"shard {index}/{count}: the index is 0-based and below the count")
    return tuple(cells[index::count])


# -- running ----------------------------------------------------------------------------------------------


def cell_status(workspace: Workspace, version_id: int, inputs: Mapping[str | None, QueryInput], cell: Cell,
                seed: int = 0) -> tuple[str, int | None]:
    """Where ``cell`` stands in the store: ("done", run id), ("partial", run id) for a run started and not
    finished (it resumes), or ("todo", None)."""
    from core.evaluation import EVAL, run_config
    from storage import runs

    target = inputs[cell.query_set]
    config = run_config(workspace, version_id, target.query_set_id, target.queries, **_options(cell, seed))
    done = runs.find_done(workspace.db, EVAL, config, version_id=version_id)
    if done is not None:
        return "done", done.id
    started = runs.unfinished_run(workspace.db, EVAL, config)
    return ("partial", started) if started is not None else ("todo", None)


def _options(cell: Cell, seed: int) -> dict[str, Any]:
    return {"strategy": cell.strategy, "params": cell.params_dict, "k": cell.k,
            "llm": cell.llm.config() if cell.llm else None, "seed": seed}


def run_cells(
    workspace: Workspace,
    grid: str,
    cells: Sequence[Cell],
    version_id: int,
    inputs: Mapping[str | None, QueryInput],
    *,
    seed: int = 0,
    api_key: str | None = None,
    on_cell: Callable[[CellResult, int, int], None] | None = None,
    progress: Callable[[Cell], Callable[[int, int], None] | None] | None = None,
) -> tuple[CellResult, ...]:
    """Run ``cells`` one after another, each with :func:`core.evaluation.evaluate` (stored query by query, an
    unfinished run of the same configuration resumed); a cell whose run is already finished is skipped. Each
    cell's run is recorded as a run of ``grid`` (``storage.runs.add_to_grid``). ``on_cell(result, i, n)`` is
    told after each cell; ``progress(cell)`` may give the evaluation's ``progress(done, total)``."""
    from core.evaluation import evaluate, finished_run
    from storage import runs

    results = []
    for i, cell in enumerate(cells):
        start = time.perf_counter()
        target = inputs[cell.query_set]
        options = _options(cell, seed)
        done = finished_run(workspace, version_id, target.query_set_id, target.queries, **options)
        if done is not None:
            result = CellResult(cell, done.id, SKIPPED, time.perf_counter() - start, dict(done.metrics))
        else:
            report = evaluate(workspace, version_id, target.query_set_id, target.queries, **options,
                              api_key=api_key, progress=progress(cell) if progress else None)
            result = CellResult(cell, report.run_id, RESUMED if report.resumed_items else RAN,
                                time.perf_counter() - start, dict(report.metrics))
        runs.add_to_grid(workspace.db, grid, result.run_id)
        results.append(result)
        if on_cell is not None:
            on_cell(result, i, len(cells))
    return tuple(results)
