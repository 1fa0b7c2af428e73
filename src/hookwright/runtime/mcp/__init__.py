"""MCP servers as the reference agent's tools (see docs/mcp.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hookwright.config.trust import TrustPolicy
from hookwright.runtime.mcp.client import McpServers
from hookwright.runtime.mcp.config import ServerConfig, load_servers
from hookwright.runtime.mcp.plugins import plugin_servers
from hookwright.runtime.mcp.tool import McpTool, tool_name
from hookwright.runtime.tools import ToolRegistry


async def connect_servers(
    servers: McpServers,
    registry: ToolRegistry,
    project_dir: Path,
    home: Path,
    trust: TrustPolicy,
    *,
    config_files: Sequence[Path] = (),
    denied: Callable[[str, str], bool] = lambda tool, server: False,
) -> list[str]:
    """Start the session's MCP servers (the user's, the trusted project's, those of enabled
    plugins, `config_files`) in `servers` and register their tools. Returns one line per
    problem (bad config, a server that did not start, a tool name already taken); close
    `servers` when the session ends. A tool `denied(tool name, server)` is not offered."""
    found = load_servers(
        project_dir,
        home,
        project_trusted=trust.trusts(project_dir),
        config_files=config_files,
        plugins=plugin_servers(project_dir, home, trust),
    )
    problems = [*found.problems, *await servers.start(found.servers)]
    for connection in servers.connections:
        for info in connection.tools:
            tool = McpTool(connection, info)
            if denied(tool.name, connection.config.name):
                continue
            if tool.name in registry:
                problems.append(f"warning: MCP tool {tool.name} skipped: the name is taken")
                continue
            registry.register(tool)
    return problems


__all__ = ["McpServers", "McpTool", "ServerConfig", "connect_servers", "load_servers", "tool_name"]
