"""The MCP transport: a hook calls a tool on one of the session's connected MCP servers.

The envelope names the server in `url`, the tool in `method`, carries the arguments in `json`
and the session's MCP client in `mcp`; `timeout` is handed to the client, which bounds the
call (no timeout: the client's own). The tool's text blocks, joined, are `Output.text`, with
`code` 1 when the server marked the result as an error and 0 otherwise. A server that is not
connected (or no client at all) is `Failure("unstarted")`, a call past its timeout
`Failure("timeout")`, any other exception `Failure("error")` with its first line as reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any, Protocol

from hookwright.transports.base import BaseTransport, Envelope, Failure, Output, Reply


class ToolAnswer(Protocol):
    """What a tool answered: its text, and whether the server marked it as an error."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...


class ToolCaller(Protocol):
    """The session's MCP client (the engine's `McpToolCaller`): raises `LookupError` when no
    server of that name is connected, `TimeoutError` past `timeout` seconds."""

    async def __call__(
        self, server: str, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> ToolAnswer: ...


class McpTransport(BaseTransport):
    """Calls the tool `envelope.method` of the server `envelope.url` on `envelope.mcp`."""

    async def handle(self, envelope: Envelope) -> Reply:
        server, tool, client = envelope.url or "", envelope.method or "", envelope.mcp
        if client is None:
            return _not_connected(server)
        timeout = envelope.timeout if envelope.timeout is not None else math.inf
        started = time.monotonic()
        try:
            answer = await client(server, tool, envelope.json or {}, timeout)
        except LookupError:
            return _not_connected(server)
        except TimeoutError as exc:
            reason = f"no answer within {timeout:g} s"
            return Failure("timeout", reason, duration_ms=_since(started), cause=exc)
        except Exception as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return Failure("error", reason, duration_ms=_since(started), cause=exc)
        text = answer.text
        code = 1 if answer.is_error else 0
        return Output(text, code=code, size=len(text), duration_ms=_since(started))


def _not_connected(server: str) -> Failure:
    return Failure("unstarted", f"MCP server {server!r} is not connected")


def _since(started: float) -> float:
    return (time.monotonic() - started) * 1000.0
