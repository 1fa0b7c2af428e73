"""The host's tools as Codex hooks see them (Codex CLI 0.171.0), and a Codex hook's rewrite of
a call mapped back to the host's tool.

Codex shows hooks its shell tool as ``Bash`` with ``{"command": ...}`` alone, and the tool
starting a subagent as ``spawn_agent`` with ``{"message": ...}`` (plus ``agent_type`` when
the call names one; measured). The host's subagent tool is Claude Code's ``Agent``
(``prompt``, ``subagent_type``; ``Task`` its old name): a Codex hook reads it as
``spawn_agent``, its matchers select it by that name (and by ``Agent``, as Codex's do), its
deny names it, and its
``updatedInput`` (``message``, ``agent_type``) is read back as ``prompt`` and
``subagent_type``. Other tools keep their names and input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from hookwright.core.matching import Matcher, canonical_tool_name

SHELL_TOOL: Final = "Bash"
#: The host's subagent tool (Claude Code's) and Codex's.
HOST_SPAWN: Final = "Agent"
CODEX_SPAWN: Final = "spawn_agent"
#: The names a Codex matcher selects the subagent call by (measured on Codex CLI 0.171.0).
SPAWN_NAMES: Final = (CODEX_SPAWN, HOST_SPAWN)
_EXACT_SPLIT: Final = re.compile(r"[|,]")
#: Codex's argument -> the host's, for the subagent tool.
_SPAWN_ARGUMENTS: Final = {"message": "prompt", "agent_type": "subagent_type"}


def codex_tool_name(name: Any) -> Any:
    """The name a Codex hook reads for the host's tool `name`."""
    if isinstance(name, str) and canonical_tool_name(name) == HOST_SPAWN:
        return CODEX_SPAWN
    return name


def codex_tool_input(name: Any, arguments: Any) -> Any:
    """What a Codex hook reads of a call's input: a shell call's command alone, a subagent
    call's message (and its agent type when it asked for one); other input as it is."""
    if not isinstance(arguments, Mapping):
        return arguments
    if name == SHELL_TOOL:
        return {"command": arguments.get("command")}
    if codex_tool_name(name) == CODEX_SPAWN and name != CODEX_SPAWN:
        shown = {"message": arguments.get("prompt")}
        if arguments.get("subagent_type") is not None:
            shown["agent_type"] = arguments["subagent_type"]
        return shown
    return arguments


def host_tool_input(
    name: Any, updated: Mapping[str, Any], original: Mapping[str, Any]
) -> dict[str, Any]:
    """A Codex hook's ``updatedInput`` for the host's tool `name`, as that tool takes it. A
    subagent call keeps what Codex does not show (its ``description``, ``model``); the
    message and agent type are the hook's, as Codex takes them (an agent type left out asks
    for none)."""
    if codex_tool_name(name) != CODEX_SPAWN or name == CODEX_SPAWN:
        return dict(updated)
    kept = {key: value for key, value in original.items() if key not in ("prompt", "subagent_type")}
    return {**kept, **{_SPAWN_ARGUMENTS.get(key, key): value for key, value in updated.items()}}


class CodexToolMatcher(Matcher):
    """A tool event's matcher as Codex tests it: the subagent call by the names Codex matches
    it by, `spawn_agent` and `Agent` (measured: `Task`, Claude Code's old name, selects
    nothing), as written; any other call as a Claude Code matcher tests it."""

    _written: frozenset[str]

    def __post_init__(self) -> None:
        super().__post_init__()
        written = frozenset(item.strip() for item in _EXACT_SPLIT.split(self.pattern or ""))
        object.__setattr__(self, "_written", written)

    def matches(self, value: str | None) -> bool:
        if not value or self.matches_all or codex_tool_name(value) != CODEX_SPAWN:
            return super().matches(value)
        if self._names is not None:  # an exact list: its names as written, no `Task`
            return not self._written.isdisjoint(SPAWN_NAMES)
        regex = self._regex
        return regex is not None and any(regex.search(name) for name in SPAWN_NAMES)
