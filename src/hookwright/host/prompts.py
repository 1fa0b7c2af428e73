"""`PromptFlow`: where a host puts the prompt messages hooks inject (skill prompt hooks).

The session's decisions carry `PromptInjection`s selected by the engine; the flow inserts them
into the host's message list and takes the non-persistent ones out again at the seed's fixed
points (`hookwright.dialects.skills.flow` has the table). Each method returns the persistent
injections as ``{"type": "hook", "name", "role", "content"}`` events for the host's client;
``on_inject`` hears of every injection, persistent or not, as it is made (for a trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hookwright.core.effects import PromptInjection
from hookwright.dialects.skills import HookManager, SkillHookFlow

Events = list[dict[str, str]]
OnInject = Callable[[PromptInjection], None]


class PromptFlow:
    """One request's prompt injections on `messages` (changed in place)."""

    def __init__(self, messages: list[dict[str, Any]], on_inject: OnInject | None = None) -> None:
        self.manager = HookManager(messages, [])
        self._flow = SkillHookFlow(self.manager)
        self._on_inject = on_inject

    def _told(self, prompts: list[PromptInjection]) -> None:
        if self._on_inject is not None:
            for prompt in prompts:
                self._on_inject(prompt)

    def start(self, prompts: Sequence[PromptInjection]) -> Events:
        events = self._flow.start(_of(prompts, "after_user_input"))
        self._told(_of(prompts, "after_user_input"))
        return events

    def before_planning(self, planning_prompt: str, prompts: Sequence[PromptInjection]) -> Events:
        chosen = _of(prompts, "before_planning")
        events = self._flow.before_planning(planning_prompt, chosen)
        self._told(chosen)
        return events

    def after_planning(self) -> Events:
        return self._flow.after_planning()

    def before_round(
        self, round_index: int, step_prompt: str, prompts: Sequence[PromptInjection]
    ) -> Events:
        each = _of(prompts, "before_each_agent")
        first = _of(prompts, "before_first_agent") if self._flow.current_round is None else []
        events = self._flow.before_round(round_index, step_prompt, each, first)
        self._told(each + first)
        return events

    def after_tools(self, prompts: Sequence[PromptInjection]) -> Events:
        """After a batch: one injection per tool, in call order."""
        ordered = sorted(_of(prompts, "after_tool_call"), key=lambda p: p.position)
        events = self._flow.after_tools([], ordered)
        self._told(ordered)
        return events

    def end_round(self) -> Events:
        return self._flow.end_round()

    def finish(self) -> Events:
        """End of the request; this history outlives it, so the request-long injections go
        too (the seed drops them with its per-request list)."""
        events = self._flow.finish()
        self.manager.remove("after_user_input")
        self.manager.remove("before_each_agent")
        return events


def _of(prompts: Sequence[PromptInjection], timing: str) -> list[PromptInjection]:
    return [p for p in prompts if p.timing == timing]
