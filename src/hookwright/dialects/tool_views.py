"""The host's tool calls as each system's hooks read them, for a view that speaks of a call on
a hook's behalf (`hookwright run --summary`): a Codex hook reads the host's subagent tool
``Agent`` as ``spawn_agent`` with ``{"message": ...}`` and a shell call as its command alone
(`codex.tools`); a Gemini CLI hook reads Gemini's tool names and arguments
(``run_shell_command`` for ``Bash``, `gemini.events`); a hook of any other system reads the
host's calls as they are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookwright.dialects.codex.tools import codex_tool_input, codex_tool_name
from hookwright.dialects.gemini.events import gemini_tool, gemini_tool_name


def tool_seen(dialect: str, name: str) -> str:
    """The host's tool `name` as a hook of `dialect` reads it."""
    if dialect == "codex":
        return str(codex_tool_name(name))
    if dialect == "gemini":
        return gemini_tool_name(name)
    return name


def call_seen(dialect: str, name: str, tool_input: Any) -> tuple[str, Any]:
    """A call of the host's tool `name` with `tool_input` as a hook of `dialect` reads it:
    (its tool name, its input)."""
    if dialect == "codex":
        return tool_seen(dialect, name), codex_tool_input(name, tool_input)
    if dialect == "gemini" and isinstance(tool_input, Mapping):
        return gemini_tool(name, tool_input)
    return tool_seen(dialect, name), tool_input
