"""Canonical actions: what a tool call does, whatever the tool is called.

A `Write`, an `Edit`, `tee /etc/x`, `sed -i ... /etc/x`, PicoClaw's `write_file` and an MCP
server's `write_file` are all one :class:`FileWrite`. Hooks read the actions of a call as
`HookInput.actions`, and `if` rules such as ``FileWrite(/etc/**)`` match them (see
`hookwright.core.tool_actions` for how they are derived).

Paths are absolute and normalised, resolved against the call's working directory; a path that
holds a shell expansion (``$DIR/x``) or depends on a ``cd`` to an unknown folder keeps its
text and is marked ``dynamic``: no one can say where it points before the command runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "WIRE_FIELD",
    "Action",
    "FileDelete",
    "FileRead",
    "FileWrite",
    "McpCall",
    "NetFetch",
    "ProcExec",
    "action_json",
    "actions_json",
]

#: The input field that carries a call's actions to a hook of another dialect that asked for
#: them (``"actions": true`` in its configuration); absent otherwise, so a dialect's default
#: bytes never change.
WIRE_FIELD = "hookwright_actions"


@dataclass(frozen=True, slots=True)
class FileAction:
    """What the three file actions hold: the path, and whether it is `dynamic`. Each kind is
    its own class, so a read never equals a write of the same path."""

    path: str
    dynamic: bool = False


@dataclass(frozen=True, slots=True)
class FileRead(FileAction):
    """A file or folder read (listed, searched)."""

    kind: ClassVar[str] = "file.read"


@dataclass(frozen=True, slots=True)
class FileWrite(FileAction):
    """A file created, changed, moved to, or its metadata changed."""

    kind: ClassVar[str] = "file.write"


@dataclass(frozen=True, slots=True)
class FileDelete(FileAction):
    """A file or folder removed (or moved away)."""

    kind: ClassVar[str] = "file.delete"


@dataclass(frozen=True, slots=True)
class NetFetch:
    """A request to a URL; `host` is empty when the URL names none."""

    kind: ClassVar[str] = "net.fetch"
    url: str
    host: str


@dataclass(frozen=True, slots=True)
class ProcExec:
    """A program run. `opaque`: the command could not be understood (it does not parse, its
    program name is an expansion, or a shell reads its script from a pipe), so the other
    actions of the call are not known."""

    kind: ClassVar[str] = "proc.exec"
    argv: tuple[str, ...]
    opaque: bool = False


@dataclass(frozen=True, slots=True)
class McpCall:
    """A tool of an MCP server called."""

    kind: ClassVar[str] = "mcp.call"
    server: str
    tool: str


Action = FileRead | FileWrite | FileDelete | NetFetch | ProcExec | McpCall


def action_json(action: Action) -> dict[str, object]:
    """One action as the JSON object hooks outside the process read: ``kind`` and its fields."""
    if isinstance(action, NetFetch):
        return {"kind": action.kind, "url": action.url, "host": action.host}
    if isinstance(action, ProcExec):
        return {"kind": action.kind, "argv": list(action.argv), "opaque": action.opaque}
    if isinstance(action, McpCall):
        return {"kind": action.kind, "server": action.server, "tool": action.tool}
    return {"kind": action.kind, "path": action.path, "dynamic": action.dynamic}


def actions_json(actions: tuple[Action, ...]) -> list[dict[str, object]]:
    """The ``hookwright_actions`` value: each action as `action_json` writes it."""
    return [action_json(action) for action in actions]
