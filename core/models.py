"""Small immutable value types shared by the whole engine.

Everything here is plain Python: no numpy, no torch, so importing it is instant.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Tool:
    """One tool of a catalog.

    ``key`` is unique within its catalog and stable across versions; ``name`` is the
    function name an agent would call. ``parameters`` is a JSON-Schema object
    (``{"type": "object", "properties": {...}, "required": [...]}``).
    """

    key: str
    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    category: str = ""
    source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def parameter_names(self) -> tuple[str, ...]:
        props = self.parameters.get("properties") if isinstance(self.parameters, Mapping) else None
        return tuple(props) if isinstance(props, Mapping) else ()

    @property
    def required(self) -> tuple[str, ...]:
        req = self.parameters.get("required") if isinstance(self.parameters, Mapping) else None
        return tuple(str(r) for r in req) if isinstance(req, list) else ()

    def content_hash(self) -> str:
        """sha256 over everything but the key: used to spot rewritten docs across versions."""
        payload = json.dumps(
            {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
                "category": self.category,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def to_openai(self) -> dict[str, Any]:
        """The tool as one entry of an OpenAI ``tools`` list (plus our ``key``/``category``)."""
        out: dict[str, Any] = {
            "type": "function",
            "key": self.key,
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters) or {"type": "object", "properties": {}},
            },
        }
        if self.category:
            out["category"] = self.category
        return out


@dataclass(frozen=True)
class McpServer:
    """How to start a catalog's MCP server over stdio: the operator's own command line and working directory.

    Recorded only by ``toolatlas import-mcp`` (the command the operator typed), never taken from a catalog
    file: those are data, and a launch field in one is dropped at import."""

    command: tuple[str, ...]
    cwd: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.command, str) or not self.command or not all(isinstance(c, str) and c for c in self.command):
            raise ValueError(f"an MCP server command is a non-empty list of words, not {self.command!r}")
        object.__setattr__(self, "command", tuple(self.command))

    def describe(self) -> str:
        """The command line as a shell would show it (quoted where needed), with its working directory."""
        import shlex

        line = shlex.join(self.command)
        return f"{line}    (in {self.cwd})" if self.cwd else line


@dataclass(frozen=True)
class GoldCall:
    """One gold tool call with its arguments: ``arguments`` maps each argument to the values a correct call may
    pass (one value for an exact call; BFCL's "possible answers" list several), ``optional`` names the
    arguments a correct call may also leave out. JSON-friendly: :meth:`to_json` / :meth:`from_json`."""

    tool: str
    arguments: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    optional: tuple[str, ...] = ()

    def __hash__(self) -> int:  # argument values may be lists or objects: hash their JSON text
        return hash(json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False, default=str))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "arguments": {k: list(v) for k, v in self.arguments.items()}}
        if self.optional:
            out["optional"] = list(self.optional)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> GoldCall:
        return cls(str(obj["tool"]), {str(k): tuple(v) for k, v in dict(obj.get("arguments") or {}).items()},
                   tuple(str(o) for o in obj.get("optional") or ()))


@dataclass(frozen=True)
class Query:
    """A query with its gold tool keys (the interchange format's ``{id, query, gold, split}``) and, where the
    source has them, its gold calls with arguments (``gold_calls``; each call's tool is one of ``gold``)."""

    id: str
    text: str
    gold: tuple[str, ...] = ()
    split: str = ""
    gold_calls: tuple[GoldCall, ...] = ()

    def __post_init__(self) -> None:
        stray = [c.tool for c in self.gold_calls if c.tool not in self.gold]
        if stray:
            raise ValueError(f"query {self.id!r}: gold call of {stray[0]!r}, which is not a gold tool")


def tool_text(tool: Tool, *, with_parameters: bool = True) -> str:
    """The text we embed and index for a tool: ``name: description`` plus parameter names.

    Parameter names carry real signal for tools whose descriptions are terse
    (``unit_from``, ``currency``), so they are on by default.
    """
    text = f"{tool.name}: {tool.description}".strip()
    if with_parameters and tool.parameter_names:
        text += " Parameters: " + ", ".join(tool.parameter_names)
    return text


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CallRecord:
    """What the ledger keeps of one call. It never holds an API key: only the messages sent."""

    role: str
    backend: str
    model: str
    temperature: float
    request_hash: str
    prompt: str
    response: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = None
    id: int | None = None
    run_id: int | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        if not self.role:
            raise ValueError("CallRecord.role must not be empty")
        if len(self.request_hash) != 64:
            raise ValueError("CallRecord.request_hash must be a 64-character sha256 hex digest")
