"""What the conformance cases are written with: scripted tool calls, hook actions, observers."""

from __future__ import annotations

from typing import Any

from conformance.fake_api import ToolUse, Turn
from conformance.harness import Action, Case, Hook


def bash(use_id: str, command: str) -> ToolUse:
    return ToolUse(use_id, "Bash", {"command": command, "description": "run it"})


def write(use_id: str, name: str, content: str) -> ToolUse:
    return ToolUse(use_id, "Write", {"file_path": "{project}/" + name, "content": content})


def out(payload: dict[str, Any], exit: int = 0) -> Action:
    return Action.json(payload, exit)


def specific(event: str, **fields: Any) -> Action:
    return Action.json({"hookSpecificOutput": {"hookEventName": event, **fields}})


def blocked(stderr: str) -> Action:
    return Action(stderr=stderr, exit=2)


#: A foreground subagent (2.1.332 runs one in the background unless told).
SUBAGENT_INPUT = {
    "description": "make it",
    "prompt": "touch sub.txt",
    "subagent_type": "general-purpose",
    "run_in_background": False,
}
ONE_BASH = [Turn(tools=[bash("toolu_a", "echo hi")]), Turn("done")]
WRITES = [Turn(tools=[bash("toolu_a", "touch ran.txt")]), Turn("done")]
EVERY_EVENT = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PostToolBatch")
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


#: A skill whose `!command` line prints a mark and leaves a file (whether it ran shows).
SKILL = """---
description: Greets
---
Greeting $ARGUMENTS.
Status: !`echo MARK-SHELL && touch ran.txt`
End.
"""
#: The events a typed prompt command passes before the model sees it.
PROMPT_GATE = ("UserPromptSubmit", "UserPromptExpansion", "PreSkillShellCommand")


def typed_command(
    name: str, prompt: str, files: dict[str, str], *also: str, **options: Any
) -> Case:
    """A one-turn case typing `prompt` (a ``/command``), observed on `PROMPT_GATE` and the
    events `also`."""
    return Case(name, prompt, [Turn("done")], observers(*PROMPT_GATE, *also), files, **options)


def observers(*events: str, matcher: str = "*") -> list[Hook]:
    """A hook that only logs, on each event (tool events with `matcher`)."""
    return [
        Hook(event, f"log-{event}", matcher=matcher if event in TOOL_EVENTS else None)
        for event in events
    ]
