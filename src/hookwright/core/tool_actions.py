"""The canonical actions of one tool call, whichever host named the tool.

Tools are known by a loose form of their name (lower case, letters and digits only), so
Claude Code's ``Write``, PicoClaw's and OpenHarness's ``write_file``, Gemini's ``write_file``
and an MCP server's ``write_file`` are one kind of tool; their path is the first of the usual
argument names a call carries (``file_path``, ``path``, ...). Shell tools (``Bash``, ``exec``,
``run_shell_command``, Codex's ``shell`` with an argv) are read by
`hookwright.core.shell_actions`. An MCP tool (``mcp__server__tool``) is an ``McpCall`` plus what
its tool name says. A tool of no known kind has no action.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any, Final

from hookwright.core.actions import Action, FileDelete, FileRead, FileWrite, McpCall
from hookwright.core.code_actions import url_actions
from hookwright.core.home import home_text
from hookwright.core.programs import command_actions
from hookwright.core.shell_actions import script_actions, shell_actions
from hookwright.core.shell_scope import NO_STDIN, Scope, Word, normal_path

__all__ = ["derive_actions"]

#: Kind of tool -> the loose forms of the names it goes by.
_NAMES: Final[dict[str, tuple[str, ...]]] = {
    "read": ("read", "readfile", "fileread", "readtextfile", "view"),
    "list": (
        "glob",
        "grep",
        "ls",
        "listdir",
        "listdirectory",
        "listfiles",
        "searchfiles",
        "grepsearch",
        "directorytree",
        "find",
    ),
    "read_many": ("readmultiplefiles", "readmanyfiles"),
    "write": (
        "write",
        "writefile",
        "filewrite",
        "createfile",
        "appendfile",
        "edit",
        "editfile",
        "fileedit",
        "multiedit",
        "notebookedit",
        "replace",
        "strreplace",
        "createdirectory",
    ),
    "delete": ("deletefile", "removefile", "delete", "unlink"),
    "move": ("movefile", "move", "rename", "renamefile"),
    "shell": (
        "bash",
        "exec",
        "shell",
        "runshellcommand",
        "execcommand",
        "runcommand",
        "terminal",
        "powershell",
        "localshell",
    ),
    "fetch": ("webfetch", "fetch", "fetchurl", "httpget", "httprequest"),
    "patch": ("applypatch",),
}
_KINDS: Final = {name: kind for kind, names in _NAMES.items() for name in names}
_PATH_KEYS: Final = (
    "file_path",
    "path",
    "filePath",
    "notebook_path",
    "absolute_path",
    "filename",
    "file",
    "target_file",
    "dir_path",
    "directory",
)
_DIR_KEYS: Final = ("working_dir", "cwd", "workdir", "dir_path", "directory")
_SOURCE_KEYS: Final = ("source", "src", "from", "old_path")
_TARGET_KEYS: Final = ("destination", "dest", "to", "new_path")
_PATCH_FILE: Final = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$")
_URL: Final = re.compile(r"""https?://[^\s'"<>)]+""")


def derive_actions(
    tool_name: str, tool_input: Mapping[str, Any], cwd: str | None = None, home: str | None = None
) -> tuple[Action, ...]:
    """The actions of a call of `tool_name` with `tool_input` run in `cwd` (default: the
    process's); `home` resolves ``~`` (default: the user's)."""
    work_dir = normal_path(cwd if cwd and cwd.startswith("/") else os.path.abspath(cwd or "."))
    home_dir = home if home is not None else home_text()
    prefix: tuple[Action, ...] = ()
    name = tool_name
    if tool_name.startswith("mcp__"):
        server, _, name = tool_name[5:].partition("__")
        prefix = (McpCall(server, name),)
    kind = _kind_of(name)
    if kind is None:
        return prefix
    if kind == "shell" and not any(key in tool_input for key in _DIR_KEYS):
        command = tool_input.get("command", tool_input.get("cmd"))
        if isinstance(command, str):
            return prefix + shell_actions(command, work_dir, home_dir)
    scope = Scope(work_dir, home_dir, script_actions, command_actions)
    if kind == "shell":
        return prefix + _shell(tool_input, scope)
    _READERS[kind](tool_input, scope)
    return prefix + tuple(dict.fromkeys(scope.out))


@functools.lru_cache(maxsize=256)
def _kind_of(name: str) -> str | None:
    return _KINDS.get(re.sub(r"[^a-z0-9]", "", name.lower()))


def _text(tool_input: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _shell(tool_input: Mapping[str, Any], scope: Scope) -> tuple[Action, ...]:
    folder = _text(tool_input, _DIR_KEYS)
    if folder is not None:
        scope = Scope(scope.paths(Word(folder))[0][0], scope.home, script_actions, command_actions)
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        command_actions([Word(word) for word in command], scope, NO_STDIN)
        return tuple(dict.fromkeys(scope.out))
    if not isinstance(command, str):
        command = "" if command is None else str(command)
    return shell_actions(command, scope.cwd, scope.home)


def _read(tool_input: Mapping[str, Any], scope: Scope) -> None:
    path = _text(tool_input, _PATH_KEYS)
    if path is not None:
        scope.file(FileRead, Word(path))


def _list(tool_input: Mapping[str, Any], scope: Scope) -> None:
    scope.file(FileRead, Word(_text(tool_input, _PATH_KEYS) or scope.cwd))


def _read_many(tool_input: Mapping[str, Any], scope: Scope) -> None:
    paths = tool_input.get("paths")
    for path in paths if isinstance(paths, list) else []:
        if isinstance(path, str):
            scope.file(FileRead, Word(path))


def _write(tool_input: Mapping[str, Any], scope: Scope) -> None:
    path = _text(tool_input, _PATH_KEYS)
    if path is not None:
        scope.file(FileWrite, Word(path))


def _delete(tool_input: Mapping[str, Any], scope: Scope) -> None:
    path = _text(tool_input, _PATH_KEYS)
    if path is not None:
        scope.file(FileDelete, Word(path))


def _move(tool_input: Mapping[str, Any], scope: Scope) -> None:
    source = _text(tool_input, _SOURCE_KEYS)
    target = _text(tool_input, _TARGET_KEYS)
    if source is not None:
        scope.file(FileDelete, Word(source))
    if target is not None:
        scope.file(FileWrite, Word(target))


def _fetch(tool_input: Mapping[str, Any], scope: Scope) -> None:
    url = _text(tool_input, ("url", "uri"))
    for found in [url] if url is not None else _URL.findall(_text(tool_input, ("prompt",)) or ""):
        scope.out.extend(url_actions(found))


def _patch(tool_input: Mapping[str, Any], scope: Scope) -> None:
    """Codex's apply_patch: the files its ``*** Add/Update/Delete File:`` lines name."""
    for line in (_text(tool_input, ("input", "patch")) or "").splitlines():
        match = _PATCH_FILE.match(line.strip())
        if match is None:
            continue
        verb, path, moved = match.groups()
        if moved is not None:
            scope.file(FileWrite, Word(moved.strip()))
        else:
            scope.file(FileDelete if verb == "Delete" else FileWrite, Word(path.strip()))


_READERS: Final = {
    "read": _read,
    "list": _list,
    "read_many": _read_many,
    "write": _write,
    "delete": _delete,
    "move": _move,
    "fetch": _fetch,
    "patch": _patch,
}
