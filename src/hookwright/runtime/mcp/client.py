"""Live connections to MCP servers through the official `mcp` SDK.

Each server is held open by a task of its own (the SDK's transports are anyio task groups,
which must be entered and left in the same task); tools call through the shared
`ClientSession`. `McpServers.close` stops them all; a server's stderr goes to a log file, never
to the terminal."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, Tool

from hookwright.runtime.mcp.config import ServerConfig

DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_TOOL_TIMEOUT = 600.0


def startup_timeout() -> float:
    """Claude Code's MCP_TIMEOUT (milliseconds), else 30 s."""
    return _millis("MCP_TIMEOUT", DEFAULT_STARTUP_TIMEOUT)


def tool_timeout() -> float:
    """Claude Code's MCP_TOOL_TIMEOUT (milliseconds), else 600 s."""
    return _millis("MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT)


def _millis(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value / 1000 if value > 0 else default


@dataclass(slots=True)
class Connection:
    config: ServerConfig
    session: ClientSession
    tools: list[Tool]

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        result: CallToolResult = await self.session.call_tool(
            tool, arguments, read_timeout_seconds=tool_timeout()
        )
        return result


class McpServers:
    """The session's servers: `start` connects each (one-line error for those that fail),
    `close` stops them."""

    def __init__(self, log_dir: Path | None = None) -> None:
        self._log_dir = log_dir
        self._stops: list[asyncio.Event] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.connections: list[Connection] = []

    async def start(self, servers: Sequence[ServerConfig]) -> list[str]:
        results = await asyncio.gather(*(self._start_one(server) for server in servers))
        return [problem for problem in results if problem]

    async def _start_one(self, server: ServerConfig) -> str | None:
        ready: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        task = asyncio.create_task(self._hold(server, ready, stop))
        try:
            connection = await asyncio.wait_for(asyncio.shield(ready), startup_timeout())
        except Exception as exc:
            stop.set()
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return (
                f"error: MCP server {server.name!r} ({server.source}) failed to start: {_why(exc)}"
            )
        self._stops.append(stop)
        self._tasks.append(task)
        self.connections.append(connection)
        return None

    async def _hold(
        self, server: ServerConfig, ready: asyncio.Future[Connection], stop: asyncio.Event
    ) -> None:
        try:
            async with _open(server, self._log_dir) as session:
                await session.initialize()
                listed = await session.list_tools()
                ready.set_result(Connection(server, session, list(listed.tools)))
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError("stopped"))
            if not isinstance(exc, Exception):
                raise

    async def close(self) -> None:
        for stop in self._stops:
            stop.set()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5.0)
        self._stops.clear()
        self._tasks.clear()
        self.connections.clear()


@asynccontextmanager
async def _open(server: ServerConfig, log_dir: Path | None) -> AsyncIterator[ClientSession]:
    if server.transport == "http":
        async with (
            httpx2.AsyncClient(headers=dict(server.headers), timeout=startup_timeout()) as http,
            streamable_http_client(server.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            yield session
        return
    params = StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env={**os.environ, **server.env},
        cwd=server.cwd,
    )
    with _errlog(log_dir, server.name) as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            yield session


@contextlib.contextmanager
def _errlog(log_dir: Path | None, name: str) -> Any:
    if log_dir is None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            yield sink
        return
    log_dir.mkdir(parents=True, exist_ok=True)
    with (log_dir / f"mcp-{name}.log").open("a", encoding="utf-8") as sink:
        yield sink


def _why(exc: BaseException) -> str:
    """The innermost readable cause: the SDK wraps failures in exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"no answer within {startup_timeout():g} s"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


__all__ = ["Connection", "McpServers"]
