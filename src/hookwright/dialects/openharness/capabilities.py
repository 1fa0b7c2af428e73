"""Capability names and which patch scope each one unlocks.

The real project's schema knows six capabilities. The seed's docs name the tool-input one
``patch_tool_input``; the real project renamed it ``rewrite_tool_request`` and rejects the old
name. hookwright accepts both and treats them as one capability.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from hookwright.core.events import Event

CapabilityName = Literal[
    "rewrite_context",
    "rewrite_model_request",
    "rewrite_model_response",
    "rewrite_tool_request",
    "rewrite_tool_response",
    "suppress_output",
    "patch_tool_input",
]

ALIASES: Final[dict[str, str]] = {"patch_tool_input": "rewrite_tool_request"}

SUPPRESS_OUTPUT: Final = "suppress_output"

#: Patch scope -> the capability it needs.
SCOPE_CAPABILITY: Final[dict[str, str]] = {
    "context": "rewrite_context",
    "model_request": "rewrite_model_request",
    "model_response": "rewrite_model_response",
    "tool_input": "rewrite_tool_request",
    "tool_output": "rewrite_tool_response",
}

_CONTEXT_EVENTS = frozenset(
    {Event.PreContextBuild, Event.PostContextBuild, Event.PreCompact, Event.PostCompact}
)

#: Patch scope -> the events on which the real project applies it.
SCOPE_EVENTS: Final[dict[str, frozenset[Event]]] = {
    "context": _CONTEXT_EVENTS,
    "model_request": frozenset({Event.PreModelCall}),
    "model_response": frozenset({Event.PostModelCall}),
    "tool_input": frozenset({Event.PreToolUse}),
    "tool_output": frozenset({Event.PostToolUse}),
}


def normalize(names: Iterable[str]) -> frozenset[str]:
    """The capability set with seed aliases replaced by the real project's names."""
    return frozenset(ALIASES.get(name, name) for name in names)
