"""Live connections to MCP servers through the official `mcp` SDK.

Each server is held open by a task of its own (the SDK's transports are anyio task groups,
which must be entered and left in the same task); tools call through the shared
`ClientSession`. `McpServers.close` stops them all. A stdio server runs through
`hookwright.runtime.mcp.stdio`, which bounds what it may print (its stderr goes to a log file,
never to the terminal). A call that ends without the tool's result raises `McpCallError`
(`McpCallTimeout` past its timeout) with one line naming the server and the tool.

A server's elicitation requests go to `on_elicit` (the session's Elicitation flow); without one
the client does not offer elicitation. A server's notice that a URL-mode elicitation was
completed (`notifications/elicitation/complete`) goes to `on_complete`, in a task of its own so
the connection keeps reading meanwhile. Lifecycle and calls are reported to `observe` as
PicoClaw's runtime events (`mcp.server.connecting|connected|failed`, `mcp.tool.discovered`,
`mcp.tool.call.start|end`) with PicoClaw's payload fields."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx2
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    CallToolResult,
    ElicitCompleteNotification,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    TextContent,
    Tool,
)

from hookwright.config.private_files import appending_text
from hookwright.engine.hook_requests import McpToolReply
from hookwright.runtime.mcp.config import ServerConfig
from hookwright.runtime.mcp.stdio import STOP_WITHIN, ServerLog, StdioLink, open_stdio

#: Answers a server's elicitation request: (server name, the request) -> the answer.
ElicitHandler = Callable[[str, ElicitRequestParams], Awaitable[ElicitResult]]
#: Told that a URL-mode elicitation was completed: (server name, elicitation id).
CompleteHandler = Callable[[str, str], Awaitable[None]]
#: Receives a runtime event: (kind, PascalCase payload fields plus `source` and `severity`).
Observer = Callable[[str, dict[str, Any]], None]

DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_TOOL_TIMEOUT = 600.0
CLOSE_WITHIN = STOP_WITHIN + 1.0
"""How long `McpServers.close` lets the servers stop as the MCP spec says (a stdio server's
stop, and a second for its session to wind down) before it cuts the stops short."""


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


def _ignore(kind: str, fields: dict[str, Any]) -> None:
    return None


class McpCallError(Exception):
    """A tool call that ended without the tool's result; the message names server and tool."""


class McpCallTimeout(McpCallError, TimeoutError):
    """A tool call the server did not answer in time."""


def server_fields(server: ServerConfig) -> dict[str, Any]:
    """PicoClaw's server event payload (`Server`, `Type`, `URL`, `Command`) and source."""
    fields: dict[str, Any] = {"Server": server.name, "Type": server.transport}
    if server.url:
        fields["URL"] = server.url
    if server.command:
        fields["Command"] = server.command
    return {**fields, "source": {"component": "mcp", "name": server.name}}


@dataclass(slots=True)
class Connection:
    config: ServerConfig
    session: ClientSession
    tools: list[Tool]
    observe: Observer = _ignore
    link: StdioLink | None = None
    """A stdio server's link (says how it ended); None for HTTP."""

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout: float | None = None
    ) -> CallToolResult:
        """Call `tool`, reporting `mcp.tool.call.start` and `.end`; raises `McpCallTimeout`
        past `timeout` seconds (default `MCP_TOOL_TIMEOUT`) and `McpCallError` when the server
        answers with a protocol error or goes away."""
        started = time.monotonic()
        self._report("mcp.tool.call.start", tool, started, None)
        try:
            result = await self._call(tool, arguments, timeout or tool_timeout())
        except BaseException as exc:
            self._report("mcp.tool.call.end", tool, started, _why(exc))
            raise
        error = (_text(result) or "error") if result.is_error else None
        self._report("mcp.tool.call.end", tool, started, error)
        return result

    async def _call(
        self, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> CallToolResult:
        where = f"MCP server {self.config.name!r}: tool {tool!r}"
        try:
            return await asyncio.wait_for(self.session.call_tool(tool, dict(arguments)), timeout)
        except TimeoutError:
            raise McpCallTimeout(f"{where}: no answer within {timeout:g} s") from None
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                ended = self.link.ended if self.link is not None else None
                gone = ended or "the connection closed"
                raise McpCallError(f"{where}: {gone}") from None
            refused = f"the server answered with an error: {exc.message}"
            raise McpCallError(f"{where}: {refused}") from None

    def _report(self, kind: str, tool: str, started: float, error: str | None) -> None:
        fields: dict[str, Any] = {
            "Server": self.config.name,
            "Tool": tool,
            "DurationMS": int((time.monotonic() - started) * 1000),
            "IsError": error is not None,
            "source": {"component": "mcp", "name": self.config.name},
            "severity": "error" if error is not None else "info",
        }
        if error is not None:
            fields["Error"] = error
        self.observe(kind, fields)


def _text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


class McpServers:
    """The session's servers: `start` connects each (one-line error for those that fail),
    `close` stops them."""

    def __init__(
        self,
        log_dir: Path | None = None,
        *,
        on_elicit: ElicitHandler | None = None,
        on_complete: CompleteHandler | None = None,
        observe: Observer = _ignore,
    ) -> None:
        self._log_dir = log_dir
        self.on_elicit = on_elicit
        self.on_complete = on_complete
        self._told: set[asyncio.Task[None]] = set()
        self.observe = observe
        self._stops: list[asyncio.Event] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.connections: list[Connection] = []

    async def start(self, servers: Sequence[ServerConfig]) -> list[str]:
        results = await asyncio.gather(*(self._start_one(server) for server in servers))
        return [problem for problem in results if problem]

    async def _start_one(self, server: ServerConfig) -> str | None:
        ready: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        self.observe("mcp.server.connecting", server_fields(server))
        task = asyncio.create_task(self._hold(server, ready, stop))
        try:
            connection = await asyncio.wait_for(asyncio.shield(ready), startup_timeout())
        except Exception as exc:
            stop.set()
            ready.cancel()  # nothing sets it now, so no error is left unretrieved
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            why = _why(exc)
            failed = {**server_fields(server), "ToolCount": 0, "Error": why, "severity": "error"}
            self.observe("mcp.server.failed", failed)
            return f"error: MCP server {server.name!r} ({server.source}) failed to start: {why}"
        self._stops.append(stop)
        self._tasks.append(task)
        self.connections.append(connection)
        for tool in connection.tools:
            self.observe("mcp.tool.discovered", {**server_fields(server), "Tool": tool.name})
        connected = {**server_fields(server), "ToolCount": len(connection.tools)}
        self.observe("mcp.server.connected", connected)
        return None

    def connection(self, server: str) -> Connection | None:
        """The connected server of that name (Claude Code's, e.g. ``plugin:<p>:<s>``)."""
        return next((c for c in self.connections if c.config.name == server), None)

    async def call_for_hook(
        self, server: str, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> McpToolReply:
        """An `mcp_tool` hook's call (`hookwright.engine.services.McpToolCaller`)."""
        connection = self.connection(server)
        if connection is None:
            raise LookupError(server)
        result = await connection.call(tool, arguments, timeout)
        return McpToolReply(_text(result), bool(result.is_error))

    async def _elicit(self, server: str, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        if self.on_elicit is None:
            return ErrorData(code=-32600, message="Elicitation not supported")
        try:
            return await self.on_elicit(server, params)
        except Exception as exc:
            return ErrorData(code=-32603, message=f"elicitation failed: {_why(exc)}")

    async def _hold(
        self, server: ServerConfig, ready: asyncio.Future[Connection], stop: asyncio.Event
    ) -> None:
        try:
            async with _open(
                server, self._log_dir, self._elicitation_for(server), self._messages_for(server)
            ) as (session, link):
                await session.initialize()
                listed = await session.list_tools()
                connection = Connection(server, session, list(listed.tools), self.observe, link)
                ready.set_result(connection)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError("stopped"))
            if not isinstance(exc, Exception):
                raise

    def _elicitation_for(self, server: ServerConfig) -> Any:
        if self.on_elicit is None:
            return None

        async def answer(
            context: ClientRequestContext, params: ElicitRequestParams
        ) -> ElicitResult | ErrorData:
            return await self._elicit(server.name, params)

        return answer

    def _messages_for(self, server: ServerConfig) -> Any:
        async def receive(message: Any) -> None:
            if isinstance(message, ElicitCompleteNotification) and self.on_complete is not None:
                told = self.on_complete(server.name, message.params.elicitation_id)
                task = asyncio.ensure_future(told)
                self._told.add(task)
                task.add_done_callback(self._told.discard)

        return receive

    async def close(self) -> None:
        """Stop every server, each given `CLOSE_WITHIN` to stop as the MCP spec says; then (or
        at once when this close is cancelled) cut the stops short and wait for them."""
        try:
            if self._told:
                await asyncio.wait(set(self._told), timeout=5.0)
            for stop in self._stops:
                stop.set()
            if self._tasks:
                await asyncio.wait(self._tasks, timeout=CLOSE_WITHIN)
        finally:
            for stop in self._stops:
                stop.set()
            try:
                await _cut(self._tasks)
            finally:
                self._stops.clear()
                self._tasks.clear()
                self.connections.clear()


async def _cut(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel the servers' tasks still running and wait, at most `CLOSE_WITHIN`, for them to
    end, also when this wait is cancelled (the cancellation is raised again after): a cut
    stdio stop still kills its server's process group and waits until it is gone
    (`stdio._stop`), so no server outlives the close."""
    for task in tasks:
        task.cancel()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CLOSE_WITHIN
    cancelled = False
    while (pending := [task for task in tasks if not task.done()]) and loop.time() < deadline:
        try:
            await asyncio.wait(pending, timeout=deadline - loop.time())
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


@asynccontextmanager
async def _open(
    server: ServerConfig, log_dir: Path | None, elicitation: Any, messages: Any
) -> AsyncIterator[tuple[ClientSession, StdioLink | None]]:
    if server.transport == "http":
        async with (
            httpx2.AsyncClient(headers=dict(server.headers), timeout=startup_timeout()) as http,
            streamable_http_client(server.url, http_client=http) as (read, write),
            ClientSession(
                read, write, elicitation_callback=elicitation, message_handler=messages
            ) as session,
        ):
            yield session, None
        return
    link = StdioLink()
    with _server_log(log_dir, server.name) as sink:
        async with (
            open_stdio(
                server.command,
                server.args,
                env={**os.environ, **server.env},
                cwd=server.cwd,
                log=ServerLog(sink),
                link=link,
            ) as (read, write),
            ClientSession(
                read, write, elicitation_callback=elicitation, message_handler=messages
            ) as session,
        ):
            yield session, link


_UNSAFE_FILE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


@contextlib.contextmanager
def _server_log(log_dir: Path | None, name: str) -> Iterator[IO[str] | None]:
    """The server's log file, ``mcp-<name>.log`` (0600), or None without a log folder."""
    if log_dir is None:
        yield None
        return
    with appending_text(log_dir / f"mcp-{_UNSAFE_FILE_NAME.sub('_', name)}.log") as sink:
        yield sink


def _why(exc: BaseException) -> str:
    """The innermost readable cause: the SDK wraps failures in exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpCallError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return f"no answer within {startup_timeout():g} s"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


__all__ = ["Connection", "McpCallError", "McpCallTimeout", "McpServers"]
