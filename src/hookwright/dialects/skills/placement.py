"""`SkillPlacement`: where the skills dialect puts one request's prompt injections.

The host's `PromptFlow` picks, at each fixed point of a request, the injections the engine
selected for it and hands them here (the host's `PromptPlacement` protocol, which this class
meets by shape: a dialect imports nothing of the host). The messages go into the request's
list, and out again, by the seed's table (`SkillHookFlow`, flow.py). `host.open` supplies this
placement to the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookwright.dialects.skills.flow import SkillHookFlow
from hookwright.dialects.skills.manager import HookManager, Prompt

__all__ = ["SkillPlacement"]

Events = list[dict[str, str]]


class SkillPlacement:
    """One request's skill prompt injections on `messages` (changed in place); each method
    returns the persistent injections as ``{"type": "hook", "name", "role", "content"}``
    events for the host's client."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self._manager = HookManager(messages, [])
        self._flow = SkillHookFlow(self._manager)

    def start(self, prompts: Sequence[Prompt]) -> Events:
        return self._flow.start(prompts)

    def before_planning(self, planning_prompt: str, prompts: Sequence[Prompt]) -> Events:
        return self._flow.before_planning(planning_prompt, prompts)

    def after_planning(self) -> Events:
        return self._flow.after_planning()

    def before_round(
        self,
        round_index: int,
        step_prompt: str,
        each: Sequence[Prompt],
        first: Sequence[Prompt],
    ) -> Events:
        return self._flow.before_round(round_index, step_prompt, each, first)

    def after_tools(self, prompts: Sequence[Prompt]) -> Events:
        """`prompts`: already one per tool, in call order."""
        return self._flow.after_tools([], prompts)

    def end_round(self) -> Events:
        return self._flow.end_round()

    def finish(self) -> Events:
        """End of the request; the host's history outlives it, so the request-long injections
        go too (the seed drops them with its per-request list)."""
        events = self._flow.finish()
        self._manager.remove("after_user_input")
        self._manager.remove("before_each_agent")
        return events
