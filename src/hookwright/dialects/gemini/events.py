"""Gemini CLI's 11 hook events, its tool names, and its matchers, against hookwright's
canonical lifecycle and Claude-Code-named tools.

Gemini fires BeforeModel and BeforeToolSelection before every model call; both are hooks of
the canonical PreModelCall (the request in, a rewritten request out: BeforeToolSelection's
answer narrows the request's `tools`). The dialect keeps Gemini's own event name on the spec
(`GeminiData.event_name`) and in what each hook reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from hookwright.core.events import Event
from hookwright.core.matching import Matcher

EVENTS: Mapping[str, Event] = MappingProxyType(
    {
        "SessionStart": Event.SessionStart,
        "BeforeAgent": Event.UserPromptSubmit,
        "BeforeModel": Event.PreModelCall,
        "BeforeToolSelection": Event.PreModelCall,
        "AfterModel": Event.PostModelCall,
        "BeforeTool": Event.PreToolUse,
        "AfterTool": Event.PostToolUse,
        "AfterAgent": Event.Stop,
        "Notification": Event.Notification,
        "PreCompress": Event.PreCompact,
        "SessionEnd": Event.SessionEnd,
    }
)
#: Events whose matcher is a regex on the tool name.
TOOL_EVENTS = frozenset({"BeforeTool", "AfterTool"})
#: Events whose matcher is compared as an exact string, and the payload field it reads.
TRIGGER_FIELDS: Mapping[str, str] = MappingProxyType(
    {"SessionStart": "source", "SessionEnd": "reason", "PreCompress": "trigger"}
)

#: Claude-Code-named tool -> (Gemini tool, argument renames Claude -> Gemini).
TOOLS: Mapping[str, tuple[str, Mapping[str, str]]] = MappingProxyType(
    {
        "Bash": ("run_shell_command", {}),
        "Write": ("write_file", {}),
        "Read": ("read_file", {}),
        "Edit": ("replace", {"replace_all": "allow_multiple"}),
        "Glob": ("glob", {"path": "dir_path"}),
        "Grep": ("grep_search", {"path": "dir_path", "glob": "include_pattern"}),
        "LS": ("list_directory", {"path": "dir_path"}),
        "WebFetch": ("web_fetch", {}),
        "WebSearch": ("google_web_search", {}),
    }
)
_BY_GEMINI = {gemini: (claude, renames) for claude, (gemini, renames) in TOOLS.items()}


def gemini_tool(name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A call as Gemini hooks see it; a tool Gemini does not have keeps its name."""
    known = TOOLS.get(name)
    if known is None:
        return name, dict(arguments)
    gemini, renames = known
    return gemini, {renames.get(key, key): value for key, value in arguments.items()}


def host_arguments(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments a Gemini hook gave for the Gemini tool `name`, renamed back to the host's."""
    known = _BY_GEMINI.get(name)
    if known is None:
        return dict(arguments)
    back = {gemini: claude for claude, gemini in known[1].items()}
    return {back.get(key, key): value for key, value in arguments.items()}


def host_tool(name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A call as Gemini names it (`run_shell_command`), as the host's hooks see it (`Bash`)."""
    known = _BY_GEMINI.get(name)
    return (name, dict(arguments)) if known is None else (known[0], host_arguments(name, arguments))


def host_tool_names(names: Iterable[str]) -> list[str]:
    """Gemini tool names as the host's tools are named. A host name Gemini calls otherwise
    (`Bash`) is left out: no Gemini tool has it, so Gemini would allow nothing by it."""
    return [
        _BY_GEMINI[name][0] if name in _BY_GEMINI else name for name in names if name not in TOOLS
    ]


def gemini_tool_name(name: str) -> str:
    known = TOOLS.get(name)
    return name if known is None else known[0]


class ToolNameMatcher(Matcher):
    """A tool event's matcher as Gemini tests it: a regex searched in the Gemini tool name
    (`run_shell_command` for the host's `Bash`); a pattern that is no valid regex matches
    that exact name; an absent, empty or ``*`` matcher matches every tool."""

    def matches(self, value: str | None) -> bool:
        if not value or self.matches_all:
            return True
        name = gemini_tool_name(value)
        if self.error is not None:
            return self.pattern == name
        return super().matches(name)


class ExactMatcher(Matcher):
    """A lifecycle event's matcher as Gemini tests it: the whole value, exactly."""

    def matches(self, value: str | None) -> bool:
        return not value or self.matches_all or value == self.pattern


def matcher_for(event_name: str, pattern: str | None) -> Matcher | None:
    """The matcher of a group of `event_name`, or None when Gemini ignores it there."""
    text = (pattern or "").strip()
    if event_name in TOOL_EVENTS:
        return ToolNameMatcher(None if text in ("", "*") else text, "regex")
    if event_name in TRIGGER_FIELDS:
        return ExactMatcher(None if text in ("", "*") else text, "regex")
    return None
