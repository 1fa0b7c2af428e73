"""`PromptFlow`: where a host puts the prompt messages hooks inject (skill prompt hooks).

The session's decisions carry `PromptInjection`s selected by the engine; at each fixed point of
a request the flow picks those of that point by their `timing` and hands them to a
`PromptPlacement`, which inserts them into the host's message list and takes the non-persistent
ones out again. The host names no dialect: the placement comes from the one opening place
(`host.open.prompt_placement`), or a host passes its own. Each method returns the persistent
injections as ``{"type": "hook", "name", "role", "content"}`` events for the host's client;
``on_inject`` hears of every injection, persistent or not, as it is made (for a trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from hookwright.core.effect_parts import PromptInjection
from hookwright.host.open import prompt_placement

Events = list[dict[str, str]]
OnInject = Callable[[PromptInjection], None]


class PromptPlacement(Protocol):
    """One request's prompt injections on its message list (changed in place), at the fixed
    points a host reaches in this order: `start`, then optionally `before_planning` and
    `after_planning`, then per agent round `before_round`, `after_tools` (when tools ran) and
    `end_round`, and `finish` (at any point; again does nothing). Each method gets the
    injections chosen for that point and returns the persistent ones as events; what it
    removes, and when, is the placement's table. A call out of order raises."""

    def start(self, prompts: Sequence[PromptInjection]) -> Events: ...

    def before_planning(
        self, planning_prompt: str, prompts: Sequence[PromptInjection]
    ) -> Events: ...

    def after_planning(self) -> Events: ...

    def before_round(
        self,
        round_index: int,
        step_prompt: str,
        each: Sequence[PromptInjection],
        first: Sequence[PromptInjection],
    ) -> Events: ...

    def after_tools(self, prompts: Sequence[PromptInjection]) -> Events: ...

    def end_round(self) -> Events: ...

    def finish(self) -> Events: ...


#: Builds the placement of one request on that request's message list.
PlacementFactory = Callable[[list[dict[str, Any]]], PromptPlacement]


class PromptFlow:
    """One request's prompt injections on `messages` (changed in place), placed by
    `placement` (by default the one `host.open` supplies)."""

    def __init__(
        self,
        messages: list[dict[str, Any]],
        on_inject: OnInject | None = None,
        placement: PlacementFactory = prompt_placement,
    ) -> None:
        self._placement = placement(messages)
        self._on_inject = on_inject
        self._first_round = True

    def _told(self, prompts: list[PromptInjection]) -> None:
        if self._on_inject is not None:
            for prompt in prompts:
                self._on_inject(prompt)

    def start(self, prompts: Sequence[PromptInjection]) -> Events:
        chosen = _of(prompts, "after_user_input")
        events = self._placement.start(chosen)
        self._told(chosen)
        return events

    def before_planning(self, planning_prompt: str, prompts: Sequence[PromptInjection]) -> Events:
        chosen = _of(prompts, "before_planning")
        events = self._placement.before_planning(planning_prompt, chosen)
        self._told(chosen)
        return events

    def after_planning(self) -> Events:
        return self._placement.after_planning()

    def before_round(
        self, round_index: int, step_prompt: str, prompts: Sequence[PromptInjection]
    ) -> Events:
        each = _of(prompts, "before_each_agent")
        first = _of(prompts, "before_first_agent") if self._first_round else []
        events = self._placement.before_round(round_index, step_prompt, each, first)
        self._first_round = False
        self._told(each + first)
        return events

    def after_tools(self, prompts: Sequence[PromptInjection]) -> Events:
        """After a batch: one injection per tool, in call order."""
        ordered = sorted(_of(prompts, "after_tool_call"), key=lambda p: p.position)
        events = self._placement.after_tools(ordered)
        self._told(ordered)
        return events

    def end_round(self) -> Events:
        return self._placement.end_round()

    def finish(self) -> Events:
        """End of the request: the placement takes out what it still holds for it."""
        return self._placement.finish()


def _of(prompts: Sequence[PromptInjection], timing: str) -> list[PromptInjection]:
    return [p for p in prompts if p.timing == timing]
