"""`hooks test` with a skill prompt hook's timing as the event (`after_tool_call`,
`before_first_agent`, ...): the checkpoint the reference agent fires it on, the input it
passes there, and the prompts that would reach the model.

`after_tool_call` fires once per tool call of a batch (PostToolBatch): the input's
`tool_name` (and `tool_input`) is one call, `tool_calls` the whole batch. `before_first_agent`
and `before_each_agent` are both PreAgentStep; the first round is the one `first` marks."""

from __future__ import annotations

from typing import Any

from hookwright.core.events import Event
from hookwright.core.results import Verdict
from hookwright.dialects.skills.specs import TIMING_EVENTS

NO_TOOL = (
    "after_tool_call fires once per tool call, and the input names none: give "
    '{"tool_name": "Read"} (one call) or {"tool_calls": [{"tool_name": "Read"}, ...]}'
)


def skill_event(name: str) -> Event | None:
    """The event a skill hook's timing fires on; None for a name that is not a timing."""
    return TIMING_EVENTS.get(name)


def skill_input(timing: str, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The input as the reference agent passes it at `timing`, and what it lacks."""
    data = dict(data)
    if timing == "before_first_agent":
        data.setdefault("first", True)
    elif timing == "before_each_agent":
        data.setdefault("first", False)
    if timing != "after_tool_call" or "tool_calls" in data:
        return data, []
    if "tool_name" not in data:
        return data, [NO_TOOL]
    call = {"tool_name": data["tool_name"], "tool_input": data.get("tool_input") or {}}
    data["tool_calls"] = [call]
    return data, []


def injections_json(verdict: Verdict) -> list[dict[str, Any]]:
    """The prompt messages the verdict's skill hooks would put before the model."""
    return [
        {
            "skill": found.skill,
            "name": found.name,
            "timing": found.timing,
            "role": found.role,
            "persistent": found.persistent,
            "content": found.content,
        }
        for found in verdict.effects.prompt_injections
    ]


def injection_lines(verdict: Verdict) -> list[str]:
    """The same, as the text `--explain` prints."""
    lines: list[str] = []
    for found in verdict.effects.prompt_injections:
        kept = "kept" if found.persistent else f"removed after its {found.timing} step"
        lines.append(f"  {found.skill}/{found.name} ({found.role} message, {kept}):")
        lines += [f"    | {line}" for line in found.content.splitlines()]
    return lines
