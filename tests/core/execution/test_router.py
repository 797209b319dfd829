"""Routing a tool to the first executor that covers it."""

from __future__ import annotations

import pytest

from core.execution.base import ExecutionResult
from core.execution.http import HttpExecutor
from core.execution.router import ExecutorRouter
from core.execution.sandbox import PythonFunction, SandboxExecutor
from core.models import Tool


class Recorder:
    """A minimal executor that covers a fixed set of keys and remembers being closed."""

    def __init__(self, name: str, keys=(), fail_on_close: bool = False) -> None:
        self.name, self.keys, self.fail_on_close, self.closed = name, set(keys), fail_on_close, False

    def covers(self, tool: Tool) -> bool:
        return tool.key in self.keys

    def call(self, tool, arguments, *, timeout=10.0) -> ExecutionResult:
        return ExecutionResult(True, {"by": self.name})

    def close(self) -> None:
        self.closed = True
        if self.fail_on_close:
            raise RuntimeError("cannot close")


SANDBOXED = Tool(key="double", name="double",
                 extra={"python": {"source": "def double(x):\n    return 2 * x\n", "function": "double"}})
WEB = Tool(key="getPet", name="getPet",
           extra={"method": "GET", "path": "/pets/{id}", "server": "https://api.example.com"})


def test_first_covering_executor_wins():
    first, second = Recorder("first", {"a"}), Recorder("second", {"a", "b"})
    router = ExecutorRouter([first, second])
    assert router.names == ("first", "second")
    assert router.for_tool(Tool(key="a", name="a")) is first
    assert router.for_tool(Tool(key="b", name="b")) is second
    assert router.for_tool(Tool(key="c", name="c")) is None


def test_real_executors_route_by_kind():
    with ExecutorRouter([SandboxExecutor(), HttpExecutor(["api.example.com"])]) as router:
        sandbox = router.for_tool(SANDBOXED)
        assert sandbox is not None and sandbox.name == "sandbox"
        assert sandbox.call(SANDBOXED, {"x": 4}).data == 8
        assert router.for_tool(WEB).name == "http"
        assert router.for_tool(Tool(key="plain", name="plain")) is None


def test_close_reaches_every_executor_despite_errors():
    executors = [Recorder("a", fail_on_close=True), Recorder("b"), Recorder("c", fail_on_close=True)]
    with ExecutorRouter(executors):
        pass
    assert all(e.closed for e in executors)


def test_validation():
    with pytest.raises(TypeError):
        ExecutorRouter([object()])
    with pytest.raises(ValueError):
        ExecutorRouter([Recorder("same"), Recorder("same")])
    with pytest.raises(TypeError):
        ExecutorRouter(Recorder("one"))
    sandbox = SandboxExecutor({"f": PythonFunction.from_source("def f():\n    return 1\n", "f")})
    assert ExecutorRouter([sandbox]).for_tool(Tool(key="f", name="f")) is sandbox
