"""Calling tools on a real MCP server over stdio, through the official ``mcp`` SDK (2.x).

The SDK is asynchronous and its session must live in one task; trials are synchronous and run
candidates in threads. So :class:`McpExecutor` keeps a private event loop in a background thread, runs
the session there and hands each call over with ``asyncio.run_coroutine_threadsafe``: any thread may
call, and calls run concurrently on one server process.

Every outcome comes back as an :class:`ExecutionResult` — GRETEL §3.2.1 treats a failed trial as
evidence (the tool's own error text, a refused key, a dead server), not as an exception. Tool errors
(``isError`` results and protocol errors) are sorted into :data:`~core.execution.base.ERROR_KINDS` by
their wording and code; a server that dies mid-call gives ``crash`` and is started again on the next call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_TIMEOUT

from core.execution.base import ExecutionResult, classify_error, json_safe
from core.models import Tool

_SHUTDOWN_GRACE = 8.0  # the SDK closes stdin, waits 2 s, then terminates and kills: about 6 s at worst
_MAX_MESSAGE = 2000


def _text_of(content: Sequence[Any]) -> str:
    return "\n".join(getattr(block, "text", "") for block in content if getattr(block, "type", "") == "text")


def _data_of(result: Any) -> Any:
    if result.structured_content is not None:
        return json_safe(result.structured_content)
    text = _text_of(result.content)
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Session:
    """One server process and its client session, owned by a single task (the SDK requires it)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.ready = asyncio.Event()
        self.stop = asyncio.Event()
        self.error: BaseException | None = None
        self.dead = False  # set as soon as the process is known gone, so no new call picks this session
        self.entered = False
        self.task: asyncio.Task[None] | None = None

    async def _own(self) -> None:
        try:
            async with self.client:
                self.entered = True
                self.ready.set()
                await self.stop.wait()
        except Exception as exc:  # startup or shutdown failure: reported through self.error
            self.error = exc
        finally:
            self.dead = True
            self.ready.set()

    async def start(self, timeout: float) -> None:
        self.task = asyncio.get_running_loop().create_task(self._own())
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except TimeoutError:
            await self.close()
            raise TimeoutError(f"the server did not complete the MCP handshake within {timeout:g} s") from None
        if self.dead:
            raise self.error or ConnectionError("the server closed the connection during start-up")

    async def close(self) -> None:
        self.dead = True
        self.stop.set()
        if self.task is None or self.task.done():
            return
        if not self.entered:
            self.task.cancel()  # still in the handshake: only cancellation gets it out (the SDK still reaps)
        try:
            await asyncio.wait_for(asyncio.shield(self.task), _SHUTDOWN_GRACE)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()


class McpExecutor:
    """Runs the tools one MCP server lists. ``command`` starts the server (e.g. ``["python",
    "assets/demo_mcp/server.py"]``); ``env`` is added to the SDK's small default environment."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        start_timeout: float = 30.0,
        name: str = "mcp",
    ) -> None:
        if isinstance(command, str) or not command or not all(isinstance(c, str) and c for c in command):
            raise ValueError(f"McpExecutor: command must be a non-empty list of strings, got {command!r}")
        if start_timeout <= 0:
            raise ValueError(f"McpExecutor: start_timeout must be positive, got {start_timeout!r}")
        self.command = tuple(command)
        self.name = name
        self.start_timeout = float(start_timeout)
        self._params = StdioServerParameters(command=command[0], args=list(command[1:]),
                                             env=dict(env) if env else None, cwd=cwd)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._session: _Session | None = None
        self._connect_lock: asyncio.Lock | None = None
        self._tools: dict[str, Any] | None = None
        # The server's stderr, kept so a failed start can say why.
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")

    # ---------------------------------------------------------------- loop and session

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise RuntimeError("the executor is closed")
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name=f"{self.name}-loop", daemon=True)
                self._thread.start()
            return self._loop

    def _run(self, coro: Any, timeout: float) -> Any:
        try:
            loop = self._ensure_loop()
        except RuntimeError:
            coro.close()  # never scheduled: close it so it is not reported as un-awaited
            raise
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()  # abandoned: the loop drops it, the executor stays usable
            raise TimeoutError from None

    def _run_soon(self, coro: Any) -> None:
        """Schedule ``coro`` on the loop without waiting for it."""
        try:
            asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
        except RuntimeError:
            coro.close()

    def _stderr_tail(self) -> str:
        try:
            self._errlog.seek(0)
            lines = [line for line in self._errlog.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return (": " + " | ".join(lines[-3:]))[:500] if lines else ""

    async def _connect(self) -> _Session:
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        async with self._connect_lock:
            if self._closed:
                raise RuntimeError("the executor is closed")
            if self._session is not None and not self._session.dead:
                return self._session
            if self._session is not None:
                await self._session.close()  # reap the dead process before starting another
            self._errlog.seek(0)
            self._errlog.truncate()
            session = _Session(Client(stdio_client(self._params, errlog=self._errlog)))
            await session.start(self.start_timeout)
            self._session = session
            return session

    def _unavailable(self, exc: BaseException, started: float) -> ExecutionResult:
        detail = str(exc) or type(exc).__name__
        return ExecutionResult.failure(
            "unavailable", f"cannot start MCP server {' '.join(self.command)!r}: {detail}{self._stderr_tail()}",
            seconds=time.perf_counter() - started, executor=self.name)

    def _session_or_failure(self, started: float) -> _Session | ExecutionResult:
        try:
            return self._run(self._connect(), self.start_timeout + _SHUTDOWN_GRACE)
        except RuntimeError as exc:
            return ExecutionResult.failure("unavailable", str(exc), executor=self.name)
        except Exception as exc:
            return self._unavailable(exc, started)

    # ---------------------------------------------------------------- the Executor protocol

    def list_tools(self) -> tuple[Tool, ...]:
        """The server's tools as catalog tools (raises ``ConnectionError`` when the server cannot start)."""
        session = self._session_or_failure(time.perf_counter())
        if isinstance(session, ExecutionResult):
            raise ConnectionError(session.error)

        async def fetch() -> list[Any]:
            tools, cursor = [], None
            for _ in range(1000):  # a paginator that never ends must not hang us
                page = await session.client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        listed = self._run(fetch(), self.start_timeout)
        self._tools = {t.name: t for t in listed}
        return tuple(
            Tool(key=t.name, name=t.name, description=t.description or "", parameters=json_safe(t.input_schema),
                 source="mcp")
            for t in listed
        )

    def covers(self, tool: Tool) -> bool:
        if self._tools is None:
            try:
                self.list_tools()
            except Exception:
                return False
        return tool.name in (self._tools or {})

    def call(self, tool: Tool, arguments: Mapping[str, Any], *, timeout: float = 10.0) -> ExecutionResult:
        """Call ``tool`` once. Never raises: failures come back with an ``error_kind``."""
        started = time.perf_counter()
        try:
            return self._call(tool, arguments, timeout, started)
        except Exception as exc:  # chiefly a call cut short by close(); the contract is to never raise
            kind = "unavailable" if self._closed else "server"
            return ExecutionResult.failure(kind, f"{tool.name}: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE],
                                           seconds=time.perf_counter() - started, executor=self.name)

    def _call(self, tool: Tool, arguments: Mapping[str, Any], timeout: float, started: float) -> ExecutionResult:
        if timeout <= 0:
            return ExecutionResult.failure("refused", f"timeout must be positive, got {timeout!r}",
                                           executor=self.name)
        session = self._session_or_failure(started)
        if isinstance(session, ExecutionResult):
            return session

        def fail(kind: str, message: str) -> ExecutionResult:
            return ExecutionResult.failure(kind, message[:_MAX_MESSAGE], seconds=time.perf_counter() - started,
                                           executor=self.name)

        try:
            result = self._run(session.client.call_tool(tool.name, dict(arguments), read_timeout_seconds=timeout),
                               timeout + 5.0)
        except TimeoutError:
            return fail("timeout", f"{tool.name}: no answer within {timeout:g} s")
        except MCPError as exc:
            return self._protocol_failure(session, tool, exc, fail)
        except Exception as exc:  # the SDK rejected the answer itself (malformed result, schema mismatch)
            return fail("server", f"{tool.name}: {type(exc).__name__}: {exc}")
        if result.is_error:
            message = _text_of(result.content) or "the tool reported an error without a message"
            return fail(classify_error(message), message)
        return ExecutionResult(True, _data_of(result), seconds=time.perf_counter() - started, executor=self.name)

    def _protocol_failure(self, session: _Session, tool: Tool, exc: MCPError, fail: Any) -> ExecutionResult:
        if exc.code == REQUEST_TIMEOUT:
            return fail("timeout", f"{tool.name}: {exc.message}")
        if exc.code == CONNECTION_CLOSED:
            # The process is gone (or its pipes are): retire the session so the next call starts a new one.
            session.dead = True
            if self._closed:
                return fail("unavailable", f"{tool.name}: the executor was closed during the call")
            self._run_soon(session.close())
            return fail("crash", f"{tool.name}: the MCP server process exited or closed its connection "
                                 f"mid-call{self._stderr_tail()}")
        if exc.code == METHOD_NOT_FOUND:
            return fail("not_found", f"{tool.name}: {exc.message}")
        kind = classify_error(exc.message)
        if exc.code == INVALID_PARAMS and kind == "server":
            kind = "invalid_params"
        return fail(kind, f"{tool.name}: {exc.message}")

    def close(self) -> None:
        """Stop the server (stdin closed, then terminate/kill by the SDK) and the loop thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is not None:
            future = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
            try:
                future.result(_SHUTDOWN_GRACE + 4.0)
            except Exception:
                pass  # best effort: the SDK's own shutdown already kills the server's process group
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(5.0)
            if not loop.is_running():
                loop.close()
        self._errlog.close()

    async def _shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
        # Calls still waiting (on a server that ignored the closed pipe) end now rather than at their timeout.
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        if others:
            await asyncio.wait(others, timeout=2.0)

    def __enter__(self) -> McpExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
