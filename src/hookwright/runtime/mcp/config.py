"""Which MCP servers a session connects to, read the way Claude Code reads them: the user's
`~/.claude.json` (`mcpServers`, then the project's entry under `projects`), the project's
`.mcp.json` (only once the folder is trusted), then each `--mcp-config FILE`; a later source
replaces a server of the same name. Enabled plugins' servers come after, named
``plugin:<plugin>:<server>`` (so their tools are ``mcp__plugin_<plugin>_<server>__<tool>``),
with ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` replaced in their command, args,
env, url and headers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PROJECT_FILE = ".mcp.json"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server: `transport` is "stdio" (command, args, env, cwd) or "http" (url, headers)."""

    name: str
    transport: str
    source: str
    #: Where Claude Code says the server was configured (hooks' ``mcp_server.source``): ``user``
    #: and ``local`` (`~/.claude.json`), ``project`` (`.mcp.json`), ``dynamic`` (--mcp-config),
    #: ``plugin``.
    scope: str = "dynamic"
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PluginServers:
    """The `mcpServers` object one plugin declares in `file`."""

    plugin: str
    root: Path
    data_dir: Path
    file: Path
    entries: Any


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
    plugins: Sequence[PluginServers] = (),
) -> ServerSet:
    chosen: dict[str, ServerConfig] = {}
    problems: list[str] = []
    user_file = home / ".claude.json"
    user = _read_json(user_file, problems)
    sources: list[tuple[Path, Any, str]] = [(user_file, user.get("mcpServers"), "user")]
    projects = user.get("projects")
    if isinstance(projects, dict) and isinstance(projects.get(str(project_dir)), dict):
        sources.append((user_file, projects[str(project_dir)].get("mcpServers"), "local"))
    if project_trusted:
        project_file = project_dir / PROJECT_FILE
        entries = _read_json(project_file, problems).get("mcpServers")
        sources.append((project_file, entries, "project"))
    for path in config_files:
        entries = _read_json(path, problems, required=True).get("mcpServers")
        sources.append((path, entries, "dynamic"))
    for path, entries, scope in sources:
        if entries is None:
            continue
        if not isinstance(entries, dict):
            problems.append(f"error: {path}: mcpServers must be an object")
            continue
        for name, entry in entries.items():
            server = _parse_server(str(name), entry, path, project_dir, problems)
            if server is not None:
                chosen[server.name] = replace(server, scope=scope)
    for declared in plugins:
        for server in _plugin_servers(declared, project_dir, problems):
            chosen.setdefault(server.name, server)
    return ServerSet(tuple(chosen.values()), tuple(problems))


def _plugin_servers(
    declared: PluginServers, project_dir: Path, problems: list[str]
) -> list[ServerConfig]:
    if not isinstance(declared.entries, dict):
        problems.append(f"error: {declared.file}: mcpServers must be an object")
        return []
    values = {
        "CLAUDE_PLUGIN_ROOT": str(declared.root),
        "CLAUDE_PLUGIN_DATA": str(declared.data_dir),
    }
    found: list[ServerConfig] = []
    for name, entry in declared.entries.items():
        server = _parse_server(
            f"plugin:{declared.plugin}:{name}", entry, declared.file, project_dir, problems
        )
        if server is not None:
            found.append(replace(_with_plugin_values(server, values), scope="plugin"))
    return found


def _fill(text: str, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"${{{key}}}", value)
    return text


def _with_plugin_values(server: ServerConfig, values: Mapping[str, str]) -> ServerConfig:
    return replace(
        server,
        command=_fill(server.command, values),
        args=tuple(_fill(arg, values) for arg in server.args),
        env={**values, **{k: _fill(v, values) for k, v in server.env.items()}},
        url=_fill(server.url, values),
        headers={k: _fill(v, values) for k, v in server.headers.items()},
    )


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
