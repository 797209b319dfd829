"""Pick the executor for a tool: the first of an ordered list that covers it."""

from __future__ import annotations

from collections.abc import Sequence

from core.execution.base import Executor
from core.models import Tool


class ExecutorRouter:
    """An ordered set of executors. Order is priority: put the most specific first (an MCP server that
    lists the tool, then the sandbox, then HTTP), since a tool can be covered by more than one."""

    def __init__(self, executors: Sequence[Executor]) -> None:
        if isinstance(executors, str | bytes) or not isinstance(executors, Sequence):
            raise TypeError("ExecutorRouter: executors must be a sequence of executors")
        for executor in executors:
            if not isinstance(executor, Executor):
                raise TypeError(f"ExecutorRouter: {executor!r} does not implement the Executor protocol")
        names = [executor.name for executor in executors]
        if len(set(names)) != len(names):
            raise ValueError(f"ExecutorRouter: executor names must be unique, got {names}")
        self._executors = tuple(executors)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(executor.name for executor in self._executors)

    @property
    def executors(self) -> tuple[Executor, ...]:
        return self._executors

    def for_tool(self, tool: Tool) -> Executor | None:
        for executor in self._executors:
            try:
                if executor.covers(tool):
                    return executor
            except Exception:  # a buggy covers() must not hide the executors after it
                continue
        return None

    def close(self) -> None:
        """Close every executor; one failing to close does not keep the others open."""
        for executor in self._executors:
            try:
                executor.close()
            except Exception:  # closing is best effort by contract
                continue

    def __enter__(self) -> ExecutorRouter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
