"""Skill prompt hooks as engine hooks: each `HookInfo` becomes a `HookSpec` on its checkpoint's
canonical event, so it is selected, ordered and audited like every other hook. Its answer is a
typed `PromptInjection`; the host's `PromptFlow` inserts and removes the messages with
`SkillPlacement` (placement.py), whose `SkillHookFlow` keeps the seed's inject/remove table
exactly.

| timing | event | fires |
|---|---|---|
| after_user_input | UserPromptSubmit | every prompt |
| before_planning | PrePlanning | the planning round |
| before_each_agent | PreAgentStep | every agent round |
| before_first_agent | PreAgentStep | the first agent round (`first`) |
| after_tool_call | PostToolBatch | once per tool of the batch that passes `tool_filter` |

after_tool_call injections carry the tool's index in the batch, so a host places them in call
order.

Skill hooks belong to the main agent: subagent inputs never select them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from hookwright.core.dialect_data import DialectData
from hookwright.core.effect_parts import PromptInjection
from hookwright.core.effects import Effects
from hookwright.core.events import Event, HookInput
from hookwright.core.results import HookResult
from hookwright.core.spec import HookSpec, PythonHandler
from hookwright.dialects.skills.config import HookInfo

DIALECT = "skill"


@dataclass(frozen=True, slots=True)
class SkillSpecData(DialectData):
    """The checkpoint as the skill's author wrote it (two timings share PreAgentStep), and an
    after_tool_call hook's `tool_filter` (None: every tool), which selects inside the hook:
    the engine runs it on every PostToolBatch, and it adds a prompt per call the filter
    names."""

    timing: str
    tool_filter: tuple[str, ...] | None = None

    def shown_matcher(self) -> str | None:
        return ", ".join(self.tool_filter) if self.tool_filter else None

    def selection_reason(self, inp: HookInput) -> str | None:
        """``tool_filter read_file, search_text does not match tool 'Read': adds nothing``."""
        if not self.tool_filter:
            return None
        said = f"tool_filter {', '.join(self.tool_filter)}"
        names = [_tool_name(call) or "?" for call in _calls(inp)]
        if not names:
            return f"{said}: the input has no tool call, so it adds nothing"
        taken = [name for name in names if name in self.tool_filter]
        left = [name for name in names if name not in self.tool_filter]
        quoted = ", ".join(map(repr, taken or left))
        if not taken:
            return f"{said} does not match tool {quoted}: adds nothing"
        if not left:
            return f"{said} matches tool {quoted}"
        return f"{said} matches tool {quoted} (not {', '.join(map(repr, left))})"


TIMING_EVENTS: dict[str, Event] = {
    "after_user_input": Event.UserPromptSubmit,
    "before_planning": Event.PrePlanning,
    "before_each_agent": Event.PreAgentStep,
    "before_first_agent": Event.PreAgentStep,
    "after_tool_call": Event.PostToolBatch,
}


def injection(hook: HookInfo) -> PromptInjection:
    return PromptInjection(
        hook.name,
        hook.timing,
        hook.role,
        hook.content,
        hook.persistent,
        skill=hook.skill,
        file=prompt_file(hook),
    )


def prompt_file(hook: HookInfo) -> str:
    """The hook's prompt file, relative to the project."""
    return f"skills/{hook.skill}/hooks/{hook.file}"


def _main_agent(inp: HookInput) -> bool:
    return inp.agent_id is None


def _first_round(inp: HookInput) -> bool:
    return inp.agent_id is None and bool(inp.payload.get("first"))


class _Inject:
    """The hook: one injection, or for after_tool_call one per matching tool of the batch."""

    def __init__(self, hook: HookInfo) -> None:
        self.hook = hook
        self.injection = injection(hook)

    def __call__(self, inp: HookInput) -> HookResult | None:
        if self.hook.timing != "after_tool_call":
            return HookResult(effects=Effects(prompt_injections=(self.injection,)))
        found = tuple(
            replace(self.injection, position=index)
            for index, call in enumerate(_calls(inp))
            if self._matches(call)
        )
        return HookResult(effects=Effects(prompt_injections=found)) if found else None

    def _matches(self, call: Any) -> bool:
        wanted = self.hook.tool_filter
        name = _tool_name(call)
        return wanted is None or (name is not None and name in wanted)


def _calls(inp: HookInput) -> list[Any]:
    """The batch's tool calls, as the hook reads them."""
    calls = inp.payload.get("tool_calls")
    return list(calls) if isinstance(calls, list | tuple) else []


def _tool_name(call: Any) -> str | None:
    name = call.get("tool_name") if isinstance(call, dict) else None
    return name if isinstance(name, str) else None


def skill_specs(hooks: Iterable[HookInfo], scope: str | None = None) -> list[HookSpec]:
    """One spec per hook, in hook order; `scope` limits them to one session."""
    specs: list[HookSpec] = []
    for hook in hooks:
        first = hook.timing == "before_first_agent"
        specs.append(
            HookSpec(
                name=f"{hook.skill}/{hook.name}",
                event=TIMING_EVENTS[hook.timing],
                handler=PythonHandler(_Inject(hook)),
                source="skill",
                dialect=DIALECT,
                scope=scope,
                when=_first_round if first else _main_agent,
                origin=prompt_file(hook),
                description=_description(hook),
                dialect_data=SkillSpecData(hook.timing, _tool_filter(hook)),
            )
        )
    return specs


def _tool_filter(hook: HookInfo) -> tuple[str, ...] | None:
    """The filter where it selects: an after_tool_call hook's (other timings have no tool)."""
    if hook.timing != "after_tool_call" or not hook.tool_filter:
        return None
    return tuple(hook.tool_filter)


def _description(hook: HookInfo) -> str:
    """``skill prompt hook; tool_filter: Write, Edit``: the note names the field the views show
    as the hook's matcher (`SkillSpecData.shown_matcher`); the timing is said beside it as the
    hook's own event (``as after_tool_call``), not again here."""
    text = "skill prompt hook"
    if hook.timing == "after_tool_call" and hook.tool_filter:
        text += f"; tool_filter: {', '.join(hook.tool_filter)}"
    return text
