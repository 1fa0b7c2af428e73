"""OpenHarness event names, their canonical events and what each event's matcher tests.

The seed documents eight events; the real project later added the two compaction events. All
ten are accepted.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from hookwright.core.events import ALIASES, Event

OhEventName = Literal[
    "before_context_build",
    "after_context_build",
    "before_model_call",
    "after_model_call",
    "before_tool_dispatch",
    "after_tool_dispatch",
    "run_completed",
    "run_failed",
    "before_context_compact",
    "after_context_compact",
]

#: Each OpenHarness event's canonical event, from the kernel's alias table.
CANONICAL: Final[dict[str, Event]] = {name: ALIASES[name] for name in get_args(OhEventName)}

OH_NAME: Final[dict[Event, str]] = {event: name for name, event in CANONICAL.items()}

#: Payload field the matcher regex is tested against. Events absent here ignore the matcher.
MATCH_FIELD: Final[dict[str, str]] = {
    "before_tool_dispatch": "tool_name",
    "after_tool_dispatch": "tool_name",
    "before_model_call": "model_ref",
    "after_model_call": "model_ref",
    "run_completed": "trigger_type",
    "run_failed": "trigger_type",
}

CONTEXT_EVENTS: Final = frozenset(
    {Event.PreContextBuild, Event.PostContextBuild, Event.PreCompact, Event.PostCompact}
)
MODEL_EVENTS: Final = frozenset({Event.PreModelCall, Event.PostModelCall})
TOOL_EVENTS: Final = frozenset({Event.PreToolUse, Event.PostToolUse})
#: run_completed / run_failed hooks only observe: their answers never block or rewrite.
LIFECYCLE_EVENTS: Final = frozenset({Event.Stop, Event.StopFailure})
