"""``check``: two versions of a catalog in, one verdict out (the maintainer's gate of SPEC.md).

Tool changes and breaking schema changes (:mod:`core.check.changes`), new overlaps put to ToolScope's pair
judge (:mod:`core.check.overlaps`), retrieval regressions per query with their causes when queries are given
(:mod:`core.check.regressions`, CONTDA Forget / Discover), the documentation of what changed
(:mod:`core.check.docs`), and optionally both versions on one 2-D map for the report. Each finding kind is a
*rule*; the rules named in ``fail_on`` decide the verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.check.changes import ToolChanges, tool_changes
from core.check.docs import DOC_MIN, DocFinding, doc_findings
from core.check.inputs import CatalogInput
from core.check.overlaps import Overlap, new_overlaps
from core.check.regressions import RetrievalCheck, retrieval_check
from core.models import Query, tool_text

RULES = {
    "breaking": "a tool removed, a parameter removed or newly required, a type changed, enum values removed",
    "overlap": "an added or changed tool the pair judge calls the same as another tool",
    "regression": "a query whose gold tools were in the top k on BASE and are not on NEW",
    "renamed": "a tool renamed (matched by content)",
    "docs": "an added tool documented below the minimum, or a changed one whose documentation got worse",
}
DEFAULT_FAIL_ON = ("breaking", "overlap", "regression")
Progress = Callable[[float, str], None]


def parse_rules(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"breaking,overlap"`` (or a list) as rule names; ``"none"`` for none, ``"all"`` for all; None for the
    defaults. An unknown name is a ValueError listing the valid ones."""
    if text is None:
        return DEFAULT_FAIL_ON
    parts = [p.strip() for p in (text.split(",") if isinstance(text, str) else text) if p.strip()]
    if parts == ["none"]:
        return ()
    if parts == ["all"]:
        return tuple(RULES)
    unknown = [p for p in parts if p not in RULES]
    if unknown or not parts:
        raise ValueError(f"unknown --fail-on rule {unknown[0] if unknown else text!r}; valid rules: "
                         f"{', '.join(RULES)} (or none, all)")
    return tuple(dict.fromkeys(parts))


@dataclass(frozen=True)
class CheckConfig:
    k: int = 5  # retrieval depth judged
    threshold: float | None = None  # candidate cosine θ; None: the one recommended for the embedder
    neighbours: int = 30  # the candidate stage's k nearest neighbours (ToolScope §3.2)
    mode: str = "dense"  # search mode of both versions (core.search.engine.MODES)
    solved: str = "all"  # a query is solved when all / any of its gold tools are in the top k
    rename_threshold: float = 0.8  # core.evolution.diff.diff_tools
    doc_min: int = DOC_MIN
    fail_on: tuple[str, ...] = DEFAULT_FAIL_ON

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k must be at least 1, got {self.k}")
        if self.threshold is not None and not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be a cosine in (0, 1], got {self.threshold}")
        parse_rules(list(self.fail_on) or ["none"])

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "threshold": self.threshold, "neighbours": self.neighbours, "mode": self.mode,
                "solved": self.solved, "rename_threshold": self.rename_threshold, "doc_min": self.doc_min,
                "fail_on": list(self.fail_on)}


@dataclass(frozen=True)
class MapPoint:
    key: str
    x: float
    y: float


@dataclass(frozen=True)
class CheckMap:
    """Both versions on one 2-D projection of their tools' embeddings (shared axes)."""

    method: str
    base: tuple[MapPoint, ...]
    new: tuple[MapPoint, ...]


@dataclass(frozen=True)
class CheckResult:
    base_label: str
    new_label: str
    base_tools: tuple  # the tools of each side, as given (the report shows their text)
    new_tools: tuple
    config: CheckConfig
    threshold: float  # the θ used
    changes: ToolChanges
    overlaps: tuple[Overlap, ...]
    retrieval: RetrievalCheck | None
    docs: tuple[DocFinding, ...]
    judge: str
    embedder: str
    seconds: float = 0.0
    map: CheckMap | None = field(default=None, compare=False)

    @property
    def fired(self) -> tuple[str, ...]:
        """Every rule with a finding, in :data:`RULES` order."""
        hits = {
            "breaking": bool(self.changes.breaking),
            "overlap": any(o.same for o in self.overlaps),
            "regression": bool(self.retrieval and self.retrieval.regressions),
            "renamed": bool(self.changes.diff.renamed),
            "docs": any(d.fires for d in self.docs),
        }
        return tuple(r for r in RULES if hits[r])

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(r for r in self.fired if r in self.config.fail_on)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    @property
    def verdict(self) -> str:
        if self.failed:
            return f"FAIL: {', '.join(self.failed)}"
        return "PASS" + (f" (also found, not failing: {', '.join(self.fired)})" if self.fired else "")

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "exit_code": self.exit_code, "fired": list(self.fired),
                "failed": list(self.failed), "base": self.base_label, "new": self.new_label,
                "tools": {"base": len(self.base_tools), "new": len(self.new_tools)}, "threshold": self.threshold,
                "judge": self.judge, "embedder": self.embedder, "config": self.config.to_json(),
                "changes": self.changes.to_json(), "overlaps": [o.to_json() for o in self.overlaps],
                "retrieval": self.retrieval.to_json() if self.retrieval else None,
                "docs": [d.to_json() for d in self.docs], "seconds": round(self.seconds, 3)}


def _joint_map(base_tools, new_tools, base_vectors: np.ndarray, new_vectors: np.ndarray, method: str,
               with_parameters: bool) -> CheckMap:
    """One projection (core.projection.project) of the distinct texts of both versions, so that a tool
    unchanged between them sits on the same spot in both maps."""
    from core.projection import project

    rows: dict[str, int] = {}
    vectors = []
    where = []
    for tools, vecs in ((base_tools, base_vectors), (new_tools, new_vectors)):
        side = []
        for t, v in zip(tools, vecs, strict=True):
            text = tool_text(t, with_parameters=with_parameters)
            if text not in rows:
                rows[text] = len(vectors)
                vectors.append(v)
            side.append(rows[text])
        where.append(side)
    coords = project(np.asarray(vectors, dtype=np.float32), method)[0].coords

    def points(tools, side) -> tuple[MapPoint, ...]:
        return tuple(MapPoint(t.key, float(coords[i, 0]), float(coords[i, 1])) for t, i in zip(tools, side, strict=True))

    return CheckMap(method, points(base_tools, where[0]), points(new_tools, where[1]))


def run_check(base: CatalogInput, new: CatalogInput, *, embedder: Any, vector_space: str | None = None,
              cache: Any = None, queries: Sequence[Query] = (), config: CheckConfig = CheckConfig(),
              judge: Any = None, doc_operators: Any = None, with_parameters: bool = True,
              map_method: str | None = None, progress: Progress | None = None) -> CheckResult:
    """The check of NEW against BASE (see the module docstring). ``judge``: a merge-family role set
    (default: the offline rules); ``doc_operators``: a model's ``doc_quality`` role (default: the rules);
    ``map_method`` ("umap", "tsne", "pca"): also project both versions for the report."""
    from core.llm.framework import make_roles
    from core.merging.calibration import recommended_threshold
    from core.search.engine import SearchEngine, check_mode

    check_mode(config.mode)
    started = time.perf_counter()
    say = progress or (lambda share, label: None)
    threshold = config.threshold or recommended_threshold(vector_space or embedder.model_id).threshold
    judge = judge if judge is not None else make_roles("merge", "offline", seed=0)

    say(0.0, "Comparing the tool lists")
    changes = tool_changes(base.tools, new.tools, rename_threshold=config.rename_threshold)
    say(0.05, f"Embedding {base.label}")
    engine_base = SearchEngine.build(base.tools, embedder, cache=cache, with_parameters=with_parameters)
    say(0.3, f"Embedding {new.label}")
    engine_new = SearchEngine.build(new.tools, embedder, cache=cache, with_parameters=with_parameters)
    base_by_key = {t.key: t for t in base.tools}
    new_by_key = {t.key: t for t in new.tools}
    say(0.55, "Judging candidate pairs of the added and changed tools")
    overlaps = new_overlaps(new.tools, engine_new.vectors, changes.focus, judge, base_tools=base_by_key,
                            base_key=changes.base_key, threshold=threshold, k=config.neighbours)
    retrieval = None
    if queries:
        say(0.7, f"Searching {len(queries)} queries on both versions")
        retrieval = retrieval_check(engine_base, engine_new, queries, changes, k=config.k, mode=config.mode,
                                    solved=config.solved)
    say(0.85, "Rating the documentation of the added and changed tools")
    docs = doc_findings(changes, base_by_key, new_by_key, doc_min=config.doc_min, operators=doc_operators)
    check_map = None
    if map_method:
        say(0.9, f"Projecting both versions ({map_method})")
        check_map = _joint_map(base.tools, new.tools, engine_base.vectors, engine_new.vectors, map_method,
                               with_parameters)
    say(1.0, "done")
    return CheckResult(base.label, new.label, tuple(base.tools), tuple(new.tools), config, float(threshold),
                       changes, overlaps, retrieval, docs, f"{getattr(judge, 'name', '?')}:{getattr(judge, 'model', '?')}",
                       str(vector_space or embedder.model_id), time.perf_counter() - started, check_map)
