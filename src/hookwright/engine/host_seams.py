"""The protocols a host implements for a session's services (`engine.services.Services`):
how hooks lease the workspace's files, and how they call a connected MCP server's tools.

Kept apart from `engine.services` because a protocol is a `typing` class: the services name
them in annotations alone, so a process that answers one event never loads `typing` for them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from hookwright.engine.hook_requests import McpToolReply

LeaseMode = Literal["read", "write"]


class WorkspaceLease(Protocol):
    """Access to a workspace's files while it is held: `root` is where they are (the workspace
    itself, or a copy the host materialized for the holder)."""

    @property
    def root(self) -> Path: ...

    async def release(self, *, dirty: bool = False) -> None:
        """Give the files back; `dirty`: the holder changed them (never for a read lease)."""


WorkspaceAccess = Callable[[Path, LeaseMode], Awaitable[WorkspaceLease]]
"""Leases the workspace at a root (OpenHarness' workspace file-access provider); raises when
the files cannot be had."""


class McpToolCaller(Protocol):
    """Calls `tool` on the connected server named `server` (Claude Code's server name, e.g.
    ``github`` or ``plugin:<plugin>:<server>``). Raises `LookupError` when no such server is
    connected, `TimeoutError` past `timeout` seconds, and any other exception when the call
    fails."""

    async def __call__(
        self, server: str, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> McpToolReply: ...


__all__ = ["LeaseMode", "McpToolCaller", "WorkspaceAccess", "WorkspaceLease"]
