"""`SkillHookFlow`: the seed's flow chart as one method per checkpoint, so a host need not know it.

A host runs one flow per request, on that request's message list, and forwards the events each
method returns (persistent hooks, as ``{"type": "hook", "name", "role", "content"}``) to its
client. What each method does, in the order a request reaches them:

========================  ==================================================================
method                    effect on the message list
========================  ==================================================================
``start()``               inject ``after_user_input`` (never removed: the list dies with the
                          request)
``before_planning(p)``    inject ``before_planning``; ``inject_prompt(p)``
(planning model call, without tools)
``after_planning()``      ``remove_prompt(planning)``; remove ``before_planning``
``before_round(i, s)``    remove ``before_each_agent`` (the previous round's); inject
                          ``before_each_agent``; on the first round only, inject
                          ``before_first_agent``; ``inject_prompt(s)``
(agent model call, with tools; the host appends the assistant message and all tool results)
``after_tools(names)``    remove ``after_tool_call`` (the previous round's); inject
                          ``after_tool_call`` once per tool, in call order
``end_round()``           ``remove_prompt(step)`` (both with and without tool calls)
``finish()``              remove ``before_first_agent``; remove ``after_tool_call``
========================  ==================================================================

So the model sees ``after_user_input`` on every call, ``before_planning`` on the planning call
only, ``before_first_agent`` on every agent round, ``before_each_agent`` once per round (that
round's), and ``after_tool_call`` on the round after the tools ran. As in the seed, `finish`
leaves the last round's ``before_each_agent`` and ``after_user_input`` in the list. Persistent
hooks are never removed by any of these.

A request whose tools are off makes one plain model call after `start` and then `finish`;
the planning round is optional (``before_round`` may follow ``start`` directly). Calls out of
order raise `RuntimeError`. `finish` may be called at any point (e.g. from a ``finally``) and
also takes out a planning or step prompt, and an aborted planning round's hooks, still in the
list; calling it again does nothing.

The tool hooks go after the whole batch of results of one assistant message because providers
reject a message between an assistant tool call and its results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from hookwright.dialects.skills.config import HookInfo
from hookwright.dialects.skills.manager import HookManager, Prompt

__all__ = ["SkillHookFlow"]

#: Hooks a host's engine selected for a checkpoint; None: the manager's own matching hooks.
Selected = Sequence[Prompt] | None
_Phase = Literal["new", "started", "planning", "planned", "round", "tools", "between", "finished"]


class SkillHookFlow:
    """Drives a `HookManager` through one request; see the module docstring for the table."""

    def __init__(self, manager: HookManager) -> None:
        self.manager = manager
        self._phase: _Phase = "new"
        self._planning_ref: dict[str, Any] | None = None
        self._step_ref: dict[str, Any] | None = None
        self._round: int | None = None
        self._last = ""

    @classmethod
    def for_request(
        cls, full_messages: list[dict[str, Any]], hooks: Sequence[HookInfo]
    ) -> SkillHookFlow:
        return cls(HookManager(full_messages, hooks))

    @property
    def current_round(self) -> int | None:
        """The ``round_index`` of the last `before_round`, or None before the agent loop."""
        return self._round

    def _inject(self, timing: str, selected: Selected) -> list[dict[str, str]]:
        """Inject the hooks of `timing`: the manager's own matching hooks, or exactly the ones
        a host's engine selected."""
        if selected is None:
            return _events(self.manager.inject(timing))
        return _events(self.manager.inject_hooks(timing, selected))

    def start(self, selected: Selected = None) -> list[dict[str, str]]:
        self._advance("start", ("new",), "started")
        return self._inject("after_user_input", selected)

    def before_planning(
        self, planning_prompt: str | None, selected: Selected = None
    ) -> list[dict[str, str]]:
        """Call just before the planning model call; a None or empty prompt injects none."""
        self._advance("before_planning", ("started",), "planning")
        events = self._inject("before_planning", selected)
        if planning_prompt:
            self._planning_ref = self.manager.inject_prompt(planning_prompt)
        return events

    def after_planning(self) -> list[dict[str, str]]:
        self._advance("after_planning", ("planning",), "planned")
        self._drop_planning()
        return []

    def before_round(
        self,
        round_index: int,
        step_prompt: str | None,
        each: Selected = None,
        first: Selected = None,
    ) -> list[dict[str, str]]:
        """Call just before each agent model call.

        The first call of the flow is the first round, whatever index the host counts from;
        ``round_index`` must grow from round to round. A None or empty prompt injects none.
        `each` and `first`: the before_each_agent / before_first_agent hooks a host selected.
        """
        self._require("before_round", ("started", "planned", "between"))
        if self._round is not None and round_index <= self._round:
            raise ValueError(
                f"round_index must increase: got {round_index} after round {self._round}"
            )
        self._advance("before_round", ("started", "planned", "between"), "round")
        is_first = self._round is None
        self._round = round_index
        self.manager.remove("before_each_agent")
        events = self._inject("before_each_agent", each)
        if is_first:
            events += self._inject("before_first_agent", first)
        if step_prompt:
            self._step_ref = self.manager.inject_prompt(step_prompt)
        return events

    def after_tools(
        self, tool_names: Sequence[str], selected: Selected = None
    ) -> list[dict[str, str]]:
        """Call once per round, after every result of the round's tool calls is in the list.
        `selected`: the hooks a host selected, already once per tool in call order."""
        self._advance("after_tools", ("round",), "tools")
        self.manager.remove("after_tool_call")
        if selected is not None:
            return self._inject("after_tool_call", selected)
        events: list[dict[str, str]] = []
        for tool_name in tool_names:
            events += _events(self.manager.inject("after_tool_call", tool_name=tool_name))
        return events

    def end_round(self) -> list[dict[str, str]]:
        self._advance("end_round", ("round", "tools"), "between")
        self._drop_step()
        return []

    def finish(self) -> list[dict[str, str]]:
        if self._phase == "finished":
            return []
        if self._phase == "planning":
            self._drop_planning()
        self._drop_step()
        self._phase = "finished"
        self._last = "finish"
        self.manager.remove("before_first_agent")
        self.manager.remove("after_tool_call")
        return []

    def _require(self, method: str, allowed: tuple[_Phase, ...]) -> None:
        if self._phase not in allowed:
            after = f"after {self._last}()" if self._last else "before start()"
            raise RuntimeError(f"SkillHookFlow.{method}() cannot be called {after}")

    def _advance(self, method: str, allowed: tuple[_Phase, ...], to: _Phase) -> None:
        self._require(method, allowed)
        self._phase = to
        self._last = method

    def _drop_planning(self) -> None:
        if self._planning_ref is not None:
            self.manager.remove_prompt(self._planning_ref)
            self._planning_ref = None
        self.manager.remove("before_planning")

    def _drop_step(self) -> None:
        if self._step_ref is not None:
            self.manager.remove_prompt(self._step_ref)
            self._step_ref = None


def _events(persistent: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"type": "hook", **hook} for hook in persistent]
