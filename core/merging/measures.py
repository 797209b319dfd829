"""What merging changed (ToolScope §4.4, App. D.1, App. K.1): silhouette, retrieval before/after with
relabelled gold, and functionality coverage (TCCR / UCC)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.merging.graph import relabel
from core.metrics import csr_at_k, recall_at_k
from core.models import GoldCall, Query, Tool

SILHOUETTE_KS = tuple(range(5, 55, 5))


def silhouette_curve(vectors: np.ndarray, ks: Sequence[int] = SILHOUETTE_KS, *, seed: int = 0,
                     sample: int = 5000) -> list[tuple[int, float]]:
    """ToolScope App. D.1: the silhouette coefficient for each number of clusters k. High values mean tools
    crowd into tight groups, i.e. overlap; merging should lower them. The paper does not say how the tools
    are clustered nor with which distance: k-means on unit vectors (seeded), the cosine distance, and scoring
    large catalogs on a fixed sample of ``sample`` tools are our definition."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    x = np.asarray(vectors, dtype=np.float32)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    out = []
    for k in ks:
        if not 2 <= k < len(x):
            continue
        labels = KMeans(n_clusters=k, n_init=3, random_state=seed).fit_predict(x)
        if len(set(labels)) < 2:
            continue
        score = silhouette_score(x, labels, metric="cosine", sample_size=min(sample, len(x)), random_state=seed)
        out.append((int(k), round(float(score), 4)))
    return out


def mean_silhouette(curve: Sequence[tuple[int, float]]) -> float | None:
    """The mean over k of a :func:`silhouette_curve` (our summary: the paper plots the curve), None if empty."""
    return round(float(np.mean([s for _, s in curve])), 4) if curve else None


def relabel_queries(queries: Iterable[Query], phi: Mapping[str, str]) -> list[Query]:
    """ToolScope Eq. 3: every query's gold keys mapped through φ (duplicates dropped, order kept), and its gold
    calls' tools with them (the calls are ours: the paper relabels gold tools)."""
    return [replace(q, gold=relabel(q.gold, phi),
                    gold_calls=tuple(replace(c, tool=phi.get(c.tool, c.tool)) for c in q.gold_calls))
            for q in queries]


@dataclass(frozen=True)
class BeforeAfter:
    k: int
    recall_before: float
    recall_after: float
    csr_before: float
    csr_after: float
    n_queries: int


# A tool selector for CSR (ToolScope Eq. 6): shown a query and the keys of its top-k, it returns the keys an
# agent would pick. ``None`` uses the metrics' stand-in (the first |gold| keys: the top-1 for one gold tool).
QuerySelector = Callable[[Query, Sequence[str]], Sequence[str]]


def offline_selector(operators: Any, tools: Sequence[Tool]) -> QuerySelector:
    """A CSR selector from the ``select_tools`` role of LLM operators (offline or prompted), shown each
    candidate's key and description. A failed call picks nothing, so that query counts as a miss."""
    blurbs = {t.key: f"{t.name}: {t.description}" for t in tools}

    def select(query: Query, top: Sequence[str]) -> Sequence[str]:
        rc = operators.select_tools(query.text, [(k, blurbs.get(k, k)) for k in top])
        return list(rc.value) if rc.ok and rc.value else []
    return select


def rule_selector(tools: Sequence[Tool], *, ledger: Any = None, seed: int = 0) -> QuerySelector:
    """:func:`offline_selector` on the offline operators' ``select_tools`` rule. The rule reads only the
    query and the candidates, so the operators get no catalog vocabulary (building one costs ~2 s at 40k
    tools and would change nothing)."""
    from core.llm.framework import make_roles

    return offline_selector(make_roles("strategy", "offline", ledger=ledger, seed=seed), tools)


def _rankings(engine: Any, queries: Sequence[Query], k: int) -> list[list[str]]:
    if hasattr(engine, "search_batch"):
        return [[h.key for h in r.hits] for r in engine.search_batch([q.text for q in queries], k)]
    rankings = [list(r) for r in engine]
    if len(rankings) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(rankings)} rankings")
    return rankings


def retrieval_before_after(before: Any, after: Any, queries: Sequence[Query],
                           relabelled: Sequence[Query] | Mapping[str, str], k: int = 5, *,
                           selector: QuerySelector | None = None,
                           selector_after: QuerySelector | None = None) -> BeforeAfter:
    """ToolScope §4.4: Recall@k and CSR@k (Eq. 6) of the same queries on the original catalog (original gold)
    and on the merged one (gold relabelled through φ, Eq. 3).

    ``before`` / ``after`` are search engines (anything with ``search_batch``) or precomputed rankings, one
    per query; ``relabelled`` is the relabelled query list or φ itself. CSR asks ``selector`` which of the
    top k an agent picks (see :func:`offline_selector`; ``selector_after``, when given, on the merged catalog,
    whose merged tools read differently); without one, the first |gold| retrieved tools (that stand-in is our
    definition; the paper's selector is an LLM agent)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if isinstance(relabelled, Mapping):
        relabelled = relabel_queries(queries, relabelled)
    if len(relabelled) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(relabelled)} relabelled queries")
    for q, r in zip(queries, relabelled, strict=True):
        if q.id != r.id:
            raise ValueError(f"relabelled query {r.id!r} is out of step with query {q.id!r}")
    rank_b, rank_a = _rankings(before, queries, k), _rankings(after, queries, k)

    def csr(ranked: Sequence[str], q: Query, pick: QuerySelector | None = selector) -> float:
        if pick is None:
            return csr_at_k(ranked, q.gold, k)
        return csr_at_k(ranked, q.gold, k, selector=lambda top, q=q: pick(q, top))

    after_pick = selector_after if selector_after is not None else selector

    n = len(queries) or 1
    return BeforeAfter(
        k,
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(rank_b, queries, strict=True)) / n, 4),
        round(sum(recall_at_k(r, q.gold, k) for r, q in zip(rank_a, relabelled, strict=True)) / n, 4),
        round(sum(csr(r, q) for r, q in zip(rank_b, queries, strict=True)) / n, 4),
        round(sum(csr(r, q, after_pick) for r, q in zip(rank_a, relabelled, strict=True)) / n, 4),
        len(queries),
    )


#: How :func:`coverage` decides that a tool serves a gold call. "names" is ToolScope App. K.1 as written (the
#: call's argument names are a subset of the tool's); "values" (ours, the default) also validates every argument
#: value against the tool's JSON Schema (types, enums, nested objects, required parameters), so a merge that
#: joins tools whose arguments conflict loses the calls the representative's schema refuses.
COVERAGE_CHECKS = ("values", "names")
MAX_FAILURES = 10  # examples of unserved calls a Coverage keeps
_NONE = object()  # no accepted value is valid


@dataclass(frozen=True)
class Coverage:
    """TCCR and UCC of a merged catalog (ToolScope App. K.1; see :func:`coverage` for what is ours).

    ``tccr`` / ``ucc`` are ``None`` when no gold call could be counted ("not measured", never 1.0);
    ``calls`` and ``capabilities`` are the counted calls and their distinct capabilities; ``unserved_before``
    the gold calls that the original catalog itself does not serve (left out of the count, see ``original``);
    ``failures`` a few unserved calls, each with the reason."""

    tccr: float | None
    ucc: float | None
    calls: int
    capabilities: int
    check: str = "values"
    unserved_before: int = 0
    failures: tuple[str, ...] = ()

    @property
    def measured(self) -> bool:
        return self.tccr is not None


def as_gold_call(call: GoldCall | tuple[str, Iterable[str]]) -> GoldCall:
    """A :class:`GoldCall`, also from a ``(tool key, argument names)`` pair: names without values, which
    :func:`serves` checks by name only."""
    if isinstance(call, GoldCall):
        return call
    key, names = call
    return GoldCall(str(key), {str(n): () for n in names})


def _validator(schema: Mapping[str, Any]) -> Any:
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    return validator_for(schema, default=Draft202012Validator)(schema)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def serves(tool: Tool, call: GoldCall, *, check: str = "values") -> str | None:
    """``None`` when ``tool`` accepts ``call``, else why not (one line).

    Every argument the call must pass (not in ``call.optional``) must be a parameter of the tool (ToolScope
    App. K.1: A_i ⊆ A_t'). With ``check="values"`` (ours) each argument also needs an accepted value that the
    parameter's schema validates (the first such value is used; an argument recorded without values is checked
    by name only), an optional argument is passed when one of its values is valid and left out otherwise, and
    the call so built must validate against the tool's whole schema (its required parameters included), all
    with the ``jsonschema`` library. A schema the library cannot read counts as not serving the call."""
    if check not in COVERAGE_CHECKS:
        raise ValueError(f"unknown coverage check {check!r}; valid checks: {', '.join(COVERAGE_CHECKS)}")
    from jsonschema.exceptions import SchemaError, UnknownType

    schema = tool.parameters if isinstance(tool.parameters, Mapping) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    must = [a for a in call.arguments if a not in call.optional]
    missing = [a for a in must if a not in props]
    if missing:
        return f"{call.tool} → {tool.key}: no parameter {missing[0]!r}"
    if check == "names":
        return None
    instance: dict[str, Any] = {}
    try:
        for arg, accepted in call.arguments.items():
            if not accepted or arg not in props:
                continue  # by name only (checked above), or an optional argument the tool lacks: left out
            spec = props[arg] if isinstance(props[arg], Mapping) else {}
            valid = _validator(spec)
            good = next((v for v in accepted if valid.is_valid(v)), _NONE)
            if good is not _NONE:
                instance[arg] = good
            elif arg not in call.optional:
                return f"{call.tool} → {tool.key}: {arg!r} = {_short(accepted[0])} is refused " \
                       f"({next(iter(valid.iter_errors(accepted[0]))).message[:120]})"
        by_name = {a for a in must if not call.arguments[a]}  # known present, value unknown
        view = dict(schema)
        if isinstance(view.get("required"), list):
            view["required"] = [r for r in view["required"] if r not in by_name]
        error = next(iter(_validator(view).iter_errors(instance)), None)
    except (SchemaError, UnknownType) as exc:
        return f"{call.tool} → {tool.key}: its schema cannot be checked ({str(exc).splitlines()[0][:120]})"
    if error is not None:
        return f"{call.tool} → {tool.key}: {error.message[:160]}"
    return None



def coverage(calls: Sequence[GoldCall | tuple[str, Iterable[str]]], merged: Sequence[Tool],
             phi: Mapping[str, str] | None = None, *, check: str = "values",
             original: Sequence[Tool] | None = None) -> Coverage:
    """ToolScope App. K.1 over gold ``calls``. TCCR: the share of calls some merged tool serves
    (:func:`serves`); UCC: the same over distinct capabilities, a capability being a tool with the set of
    argument names its calls must pass.

    Ours, each switchable: ``check`` ("values", the default, validates argument values; "names" is the
    paper's name-subset test); with ``phi`` a call must be served by the tool φ relabels it to (stricter than
    the paper's "some tool in T′", which a catch-all tool could satisfy); with ``original`` (the catalog before
    merging) only the calls their own original tool serves are counted, reading the paper's "remain
    executable" literally, so a merge that changes nothing scores 1.0 whatever the catalog's own flaws (calls
    left out are counted in ``unserved_before``); a capability is served when all its counted calls are.
    No call to count: TCCR and UCC are ``None`` (not measured)."""
    if check not in COVERAGE_CHECKS:
        raise ValueError(f"unknown coverage check {check!r}; valid checks: {', '.join(COVERAGE_CHECKS)}")
    gold = [as_gold_call(c) for c in calls]
    unserved_before = 0
    if original is not None:
        before = {t.key: t for t in original}
        kept = [c for c in gold if c.tool in before and serves(before[c.tool], c, check=check) is None]
        unserved_before, gold = len(gold) - len(kept), kept
    if not gold:
        return Coverage(None, None, 0, 0, check, unserved_before)
    tools = {t.key: t for t in merged}
    cache: dict[tuple[str, GoldCall], str | None] = {}

    def why_not(call: GoldCall) -> str | None:
        targets = [phi.get(call.tool, call.tool)] if phi is not None else list(tools)
        key = (targets[0] if phi is not None else "", call)
        if key not in cache:
            if phi is not None and targets[0] not in tools:
                cache[key] = f"{call.tool} → {targets[0]}: not in the merged catalog"
            else:
                reasons = [serves(tools[t], call, check=check) for t in targets]
                cache[key] = None if any(r is None for r in reasons) else (reasons[0] if reasons else "no tools")
        return cache[key]

    reasons = [why_not(c) for c in gold]
    capability: dict[tuple[str, tuple[str, ...]], bool] = {}
    for c, r in zip(gold, reasons, strict=True):
        cap = (c.tool, tuple(sorted(a for a in c.arguments if a not in c.optional)))
        capability[cap] = capability.get(cap, True) and r is None
    failures = tuple(dict.fromkeys(r for r in reasons if r is not None))[:MAX_FAILURES]
    return Coverage(round(sum(r is None for r in reasons) / len(gold), 4),
                    round(sum(capability.values()) / len(capability), 4), len(gold), len(capability), check,
                    unserved_before, failures)


def tccr_ucc(calls: Sequence[GoldCall | tuple[str, Iterable[str]]], merged: Sequence[Tool],
             phi: Mapping[str, str] | None = None, **options: Any) -> Coverage:
    """ToolScope App. K.1 TCCR and UCC (see :func:`coverage`, which takes the same ``options``); argument
    sets may be any iterables of names."""
    return coverage(list(calls), merged, phi, **options)


def gold_calls(queries: Iterable[Query]) -> list[GoldCall]:
    """Every gold call with arguments of ``queries``, in order (empty when the query set records none)."""
    return [c for q in queries for c in q.gold_calls]
