"""The role framework (ours): one way to build, answer and record the LLM roles of every part of the system.

A *role family* is the set of roles one part calls, behind one protocol:

- ``strategy``: :class:`core.llm.roles.Operators` (FitText, Re-Invoke, the selector of CSR@k);
- ``merge``: :class:`core.merging.judge.MergeJudge` (ToolScope §3.2);
- ``trials``: :class:`core.trials.roles.TrialOperators` (GRETEL §3.2, plus our relevance judge);
- ``adaptation``: :class:`core.evolution.roles.AdaptationOperators` (CONTDA §4, App. A).

Each family has an offline implementation (rules, no model; a subclass of :class:`OfflineRoles`) and a
prompted one (a chat model). The strategy family's :class:`core.llm.prompted.PromptedOperators` talks to
the chat backend; the other families subclass :class:`PromptedRoles` and ask through those operators, so
they share one backend, ledger, seed, retries and replay. Every call of every role, offline or prompted,
is recorded by :func:`record_role_call` and returned as a :class:`core.llm.base.RoleCall` that never raises.

:func:`make_roles` builds any family by kind::

    ops = make_roles("strategy", "offline", vocabulary=vocab, ledger=ledger, seed=0)
    ops = make_roles("strategy", "openai", base_url=url, model="m", ledger=ledger, replay=True)
    judge = make_roles("merge", "prompted", operators=ops)   # same endpoint, ledger and replay as ops
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import operator
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.llm.base import CallRecord, RoleCall, request_hash

log = logging.getLogger(__name__)

KINDS = ("offline", "prompted", "openai")
_BACKEND_OPTIONS = ("timeout", "max_retries", "backoff", "concurrency")


def check_seed(seed: Any) -> int:
    """``seed`` as a plain int (numpy integers included); booleans, floats and strings are refused."""
    if isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    try:
        return operator.index(seed)
    except TypeError:
        raise ValueError(f"seed must be an integer, not {seed!r}") from None


def record_role_call(ledger: Any, *, role: str, backend: str, model: str, temperature: float, seed: int | None,
                     request: Any, response: str, started: float, tokens: tuple[int, int] = (0, 0),
                     error: str | None = None) -> int | None:
    """Record one role call in ``ledger`` and return its id (None without a ledger, or when the ledger
    failed: losing one row must not lose the answer). ``request`` is what identifies the call for replay
    (the chat messages, or an offline role's inputs): it is hashed with :func:`core.llm.base.request_hash`
    and stored as JSON; ``started`` is the ``time.perf_counter()`` reading taken before the call."""
    if ledger is None:
        return None
    record = CallRecord(
        role=role, backend=backend, model=model, temperature=float(temperature),
        request_hash=request_hash(backend, model, role, temperature, seed, request),
        prompt=json.dumps(request, ensure_ascii=False, default=str), response=response, tokens_in=tokens[0],
        tokens_out=tokens[1], latency_s=time.perf_counter() - started, error=error)
    try:
        return ledger.record(record)
    except Exception:  # noqa: BLE001 - losing one ledger row must not lose the answer
        log.exception("could not record a %s call in the ledger", role)
        return None


def failure_text(exc: BaseException) -> str:
    """How a failed role call's error reads in its RoleCall and ledger row."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class OfflineRoles:
    """Base of every offline role implementation (ours): rules stand in for the model, deterministic for a
    seed, and each call is recorded like a model call (backend ``offline``), so offline runs leave the same
    trail. Subclasses set ``model`` (the rule set's version: bump it when a rule changes) and answer each
    role with ``self._call(role, payload, fn)``."""

    name = "offline"
    model = "rules"
    # Byte order of the per-call seed; kept per family so stored runs draw the very same numbers again.
    rng_byteorder = "little"

    def __init__(self, *, ledger: Any = None, seed: int = 0) -> None:
        self.seed = check_seed(seed)
        self.ledger = ledger

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"

    def _rng(self, role: str, payload: Any) -> random.Random:
        """A generator of its own per (seed, role, payload), so results do not depend on the order
        concurrent calls run in."""
        blob = json.dumps([self.seed, role, payload], sort_keys=True, default=str).encode()
        return random.Random(int.from_bytes(hashlib.sha256(blob).digest()[:8], self.rng_byteorder))  # noqa: S311

    def _call(self, role: str, payload: Any, fn: Callable[[random.Random], Any], temperature: float = 0.0) -> RoleCall:
        """Run the rule ``fn(rng)`` for ``role`` on ``payload`` and record it. A rule that raises becomes a
        failed, recorded RoleCall, never an exception: a rule bug costs one decision, not the run."""
        started = time.perf_counter()
        value, error = None, None
        try:
            value = fn(self._rng(role, payload))
        except Exception as exc:  # noqa: BLE001 - reported in the RoleCall, by design
            error = failure_text(exc)
        shown = value.__dict__ if hasattr(value, "__dict__") else value
        call_id = record_role_call(self.ledger, role=role, backend=self.name, model=self.model,
                                   temperature=temperature, seed=self.seed, request=payload,
                                   response=json.dumps(shown, ensure_ascii=False, default=str), started=started,
                                   error=error)
        return RoleCall(value=value, call_id=call_id, ok=error is None, error=error, role=role)


def require_prompted(operators: Any, family: str) -> Any:
    """``operators`` when they can answer prompted roles (they hold a chat ``backend``)."""
    if operators is None or not hasattr(operators, "backend"):
        raise ValueError(f"the prompted {family} roles need prompted LLM operators (an endpoint), not offline "
                         f"ones: build them with make_roles('strategy', 'openai', ...)")
    return operators


class PromptedRoles:
    """Base of a family's prompted roles (ours): each role is one chat call through prompted LLM
    ``operators`` (a :class:`core.llm.prompted.PromptedOperators`), with the family's system message.
    Subclasses set ``family`` and ``system`` and answer each role with ``self._ask(...)``."""

    family = ""
    system = ""

    def __init__(self, operators: Any) -> None:
        self.ops = require_prompted(operators, self.family)
        self.name = operators.name
        self.model = operators.model

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ops!r})"

    def _ask(self, role: str, prompt: str, parse: Callable[[str], Any], temperature: float) -> RoleCall:
        return self.ops.ask(role, prompt, parse, temperature, system=self.system)


@dataclass(frozen=True)
class RoleFamily:
    """Where a family's implementations live, as ``module:attribute`` (imported on first use, so this
    module depends on no family). ``prompted`` None: the prompted LLM operators answer the family
    themselves. ``options``: what the offline implementation takes besides ledger and seed."""

    protocol: str
    offline: str
    prompted: str | None = None
    options: tuple[str, ...] = ()


ROLE_FAMILIES = {
    "strategy": RoleFamily("core.llm.roles:Operators", "core.llm.offline:OfflineOperators", None, ("vocabulary",)),
    "merge": RoleFamily("core.merging.judge:MergeJudge", "core.merging.offline_judge:OfflineJudge",
                        "core.merging.prompted_judge:PromptedJudge"),
    "trials": RoleFamily("core.trials.roles:TrialOperators", "core.trials.offline:OfflineTrialOperators",
                         "core.trials.prompted:PromptedTrialOperators"),
    "adaptation": RoleFamily("core.evolution.roles:AdaptationOperators",
                             "core.evolution.offline:OfflineAdaptationOperators",
                             "core.evolution.prompted:PromptedAdaptationOperators"),
}


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_roles(family: str, kind: str, *, operators: Any = None, ledger: Any = None, seed: int = 0,
               **opts: Any) -> Any:
    """The roles of ``family`` (see :data:`ROLE_FAMILIES`) answered the ``kind`` way:

    - ``offline``: rules, no model (the strategy family takes ``vocabulary``, a :class:`CatalogVocabulary`;
      an empty one when None); ``operators`` is ignored;
    - ``prompted``: a chat model through the prompted LLM ``operators`` given (their backend, ledger, seed
      and replay; ``ledger`` and ``seed`` are ignored);
    - ``openai``: a chat model at any OpenAI-compatible endpoint, built here: ``base_url``, ``model``,
      ``api_key`` (None: no key, never ``OPENAI_API_KEY``), backend options (timeout, max_retries, backoff,
      concurrency), ``PromptedOperators`` options (temperatures, max_tokens) and ``replay``: True (or
      ``"replay-or-call"``) answers repeated requests from ``ledger``, ``"replay-only"`` never calls the
      endpoint.
    """
    spec = ROLE_FAMILIES.get(family)
    if spec is None:
        raise ValueError(f"unknown role family {family!r}; valid families: {', '.join(ROLE_FAMILIES)}")
    if kind == "offline":
        extra = sorted(set(opts) - set(spec.options))
        if extra:
            raise ValueError(f"the offline {family} roles take no options {extra}")
        return _load(spec.offline)(ledger=ledger, seed=seed, **opts)
    if kind == "prompted":
        if opts:
            raise ValueError(f"the prompted {family} roles take their options from the operators, not {sorted(opts)}")
    elif kind == "openai":
        if operators is not None:
            raise ValueError("the openai roles build their own operators; pass kind='prompted' to reuse some")
        operators = _chat_operators(ledger=ledger, seed=seed, **opts)
    else:
        raise ValueError(f"unknown role kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    if spec.prompted is None:  # the prompted LLM operators answer this family themselves
        return require_prompted(operators, family)
    return _load(spec.prompted)(operators)  # a PromptedRoles: checks the operators itself


def _chat_operators(*, ledger: Any, seed: int, base_url: str | None = None, model: str | None = None,
                    api_key: str | None = None, replay: bool | str = False, **opts: Any) -> Any:
    """:class:`PromptedOperators` over an OpenAI-compatible endpoint, behind replay when asked."""
    from core.llm.openai_backend import OpenAIChatBackend
    from core.llm.prompted import PromptedOperators
    from core.llm.replay import MODES, ReplayingBackend

    if not model:
        raise ValueError("model must be given for the openai backend")
    backend_opts = {k: opts.pop(k) for k in _BACKEND_OPTIONS if k in opts}
    backend: Any = OpenAIChatBackend(base_url, model, api_key, **backend_opts)
    if replay:
        mode = "replay-or-call" if replay is True else replay
        if mode not in MODES:
            raise ValueError(f"replay must be True, False or one of {', '.join(MODES)}, not {replay!r}")
        if ledger is None:
            raise ValueError("replay needs a ledger to answer from")
        backend = ReplayingBackend(None if mode == "replay-only" else backend, ledger, mode,
                                   name=backend.name, model=backend.model)
    return PromptedOperators(backend, ledger, seed=seed, **opts)
