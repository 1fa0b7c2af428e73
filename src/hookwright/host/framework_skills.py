"""A framework session's skill prompt hooks (`FrameworkSession.open(..., skills=[...])`).

The skills are read from the project's ``skills/<name>/hooks/hooks.json``, as
``hookwright run --skill NAME`` reads them, and only in a trusted folder. Their injections are
placed by the host's `PromptFlow` (the same table the reference agent follows) on a message
list of their own, one per turn; at each model call the framework puts what that list holds
into that call only, and a persistent injection joins the framework's history once.

| timing | a framework with model calls | a host that runs its own loop (a CLI) |
|---|---|---|
| after_user_input | every model call of the turn | the prompt's context |
| before_first_agent / before_each_agent | the turn's first / each model call | reported |
| after_tool_call | the model call after the tools ran | reported |
| before_planning | reported (no planning round) | reported |
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookwright.core.effect_parts import PromptInjection
from hookwright.host.open import scan_skill_hooks
from hookwright.host.prompts import PromptFlow

if TYPE_CHECKING:
    from hookwright.host.open import HookInfo

#: The timings a framework with a model-call point places; the others are reported.
PLACED_WITH_MODEL_CALLS = frozenset(
    {"after_user_input", "before_first_agent", "before_each_agent", "after_tool_call"}
)
#: The timings a host that runs its own agent loop places (through the prompt's context).
PLACED_WITHOUT_MODEL_CALLS = frozenset({"after_user_input"})


def load_skills(
    project_dir: Path, skills: Sequence[str], trusted: bool
) -> tuple[list[HookInfo], list[str]]:
    """The skill prompt hooks of `skills` in the project, and one line per problem (a folder
    that is not trusted, a rejected hook naming its file and field)."""
    if not skills:
        return [], []
    if not trusted:
        return [], [f"warning: skills {', '.join(skills)}: not used, folder not trusted"]
    return scan_skill_hooks(project_dir, skills)


def unplaced(hooks: Sequence[HookInfo], model_calls: bool) -> list[HookInfo]:
    """The hooks whose timing the framework has no point for."""
    placed = PLACED_WITH_MODEL_CALLS if model_calls else PLACED_WITHOUT_MODEL_CALLS
    return [hook for hook in hooks if hook.timing not in placed]


class SkillTurns:
    """The skill injections of the current turn, by the `PromptFlow` table. Not thread-safe:
    a framework session makes its model calls one after another."""

    def __init__(self) -> None:
        self._messages: list[dict[str, Any]] = []
        self._flow: PromptFlow | None = None
        self._round = 0
        self._batch: list[dict[str, Any]] = []

    def begin(self, prompts: Sequence[PromptInjection]) -> list[str]:
        """A new turn with its after_user_input injections: the persistent texts, for the
        framework's history."""
        self.finish()
        self._messages, self._round, self._batch = [], 0, []
        self._flow = PromptFlow(self._messages)
        return self._kept(self._flow.start(prompts))

    def tool_done(self, tool_name: str, tool_input: Any, call_id: str, shown: str) -> None:
        """A call of the round ended (ran or answered): an entry of its PostToolBatch."""
        entry = {"tool_name": tool_name, "tool_input": tool_input, "tool_use_id": call_id}
        self._batch.append({**entry, "tool_response": shown})

    def take_batch(self) -> list[dict[str, Any]]:
        """The calls since the last model call, for PostToolBatch (empty: no tools ran)."""
        batch, self._batch = self._batch, []
        return batch if self._flow is not None and self._round else []

    @property
    def next_round(self) -> int:
        return self._round + 1

    def round(
        self,
        agent_step: Sequence[PromptInjection],
        after_tools: Sequence[PromptInjection] | None,
    ) -> tuple[list[str], list[str]]:
        """Before a model call: (the texts for this call only, the persistent texts for the
        history). `after_tools`: what PostToolBatch placed, when tools ran since the last
        call."""
        flow = self._flow
        if flow is None:
            return [], []
        kept: list[str] = []
        if self._round:
            if after_tools is not None:
                kept += self._kept(flow.after_tools(after_tools))
            flow.end_round()
        self._round += 1
        kept += self._kept(flow.before_round(self._round, "", agent_step))
        return [str(m["content"]) for m in self._messages], kept

    def finish(self) -> None:
        if self._flow is not None:
            self._flow.finish()
            self._flow = None

    def _kept(self, events: list[dict[str, str]]) -> list[str]:
        """Persistent injections leave this turn's list: the framework's history keeps them."""
        for event in events:
            for index, message in enumerate(self._messages):
                if message["role"] == event["role"] and message["content"] == event["content"]:
                    del self._messages[index]
                    break
        return [event["content"] for event in events]
