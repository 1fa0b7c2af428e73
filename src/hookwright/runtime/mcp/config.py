"""Which MCP servers a session connects to, read the way Claude Code reads them: the user's
`~/.claude.json` (`mcpServers`, then the project's entry under `projects`), the project's
`.mcp.json` (only once the folder is trusted), then each `--mcp-config FILE`; a later source
replaces a server of the same name."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_FILE = ".mcp.json"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server: `transport` is "stdio" (command, args, env, cwd) or "http" (url, headers)."""

    name: str
    transport: str
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ServerSet:
    servers: tuple[ServerConfig, ...]
    problems: tuple[str, ...]


def load_servers(
    project_dir: Path,
    home: Path,
    *,
    project_trusted: bool,
    config_files: Sequence[Path] = (),
) -> ServerSet:
    chosen: dict[str, ServerConfig] = {}
    problems: list[str] = []
    user_file = home / ".claude.json"
    user = _read_json(user_file, problems)
    sources: list[tuple[Path, Any]] = [(user_file, user.get("mcpServers"))]
    projects = user.get("projects")
    if isinstance(projects, dict) and isinstance(projects.get(str(project_dir)), dict):
        sources.append((user_file, projects[str(project_dir)].get("mcpServers")))
    if project_trusted:
        project_file = project_dir / PROJECT_FILE
        sources.append((project_file, _read_json(project_file, problems).get("mcpServers")))
    for path in config_files:
        sources.append((path, _read_json(path, problems, required=True).get("mcpServers")))
    for path, entries in sources:
        if entries is None:
            continue
        if not isinstance(entries, dict):
            problems.append(f"error: {path}: mcpServers must be an object")
            continue
        for name, entry in entries.items():
            server = _parse_server(str(name), entry, path, project_dir, problems)
            if server is not None:
                chosen[server.name] = server
    return ServerSet(tuple(chosen.values()), tuple(problems))


def _read_json(path: Path, problems: list[str], *, required: bool = False) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if required:
            problems.append(f"error: {path}: MCP config file not found")
        return {}
    except (OSError, ValueError) as exc:
        problems.append(f"error: {path}: not valid JSON ({exc})")
        return {}
    if not isinstance(data, dict):
        problems.append(f"error: {path}: must hold a JSON object")
        return {}
    return data


def _parse_server(
    name: str, entry: Any, path: Path, project_dir: Path, problems: list[str]
) -> ServerConfig | None:
    where = f"{path}: mcpServers.{name}"
    if not isinstance(entry, dict):
        problems.append(f"error: {where}: must be an object")
        return None
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind == "stdio":
        command = entry.get("command")
        args = entry.get("args", [])
        env = entry.get("env", {})
        if not isinstance(command, str) or not command:
            problems.append(f"error: {where}.command: a non-empty string is required")
            return None
        if not _strings(args, list) or not _strings(env, dict):
            problems.append(f"error: {where}: args must be strings and env string values")
            return None
        return ServerConfig(
            name, "stdio", str(path), command=command, args=tuple(args), env=env, cwd=project_dir
        )
    if kind in ("http", "streamable-http"):
        url, headers = entry.get("url"), entry.get("headers", {})
        if not isinstance(url, str) or not url or not _strings(headers, dict):
            problems.append(f"error: {where}: url must be a string, headers string values")
            return None
        return ServerConfig(name, "http", str(path), url=url, headers=headers)
    problems.append(f"error: {where}.type: {kind!r} is not supported (stdio, http)")
    return None


def _strings(value: Any, kind: type[list[Any]] | type[dict[str, Any]]) -> bool:
    if not isinstance(value, kind):
        return False
    items: list[Any] = list(value.values()) if isinstance(value, dict) else list(value)
    return all(isinstance(item, str) for item in items)
