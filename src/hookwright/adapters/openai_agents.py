"""A project's hooks governing an openai-agents agent (``pip install 'hookwright[openai-agents]'``).

    async with await OpenAIAgentsHooks.open(project, tool_map=...) as hooks:
        outcome = await hooks.run(agent, "Tidy up and publish.")

`run` fires SessionStart (first run) and UserPromptSubmit, runs the agent with every
`FunctionTool` wrapped (PreToolUse/PermissionRequest before the tool, so a rewritten input is
what the tool validates and runs; PostToolUse after it), hook context placed into each model
call by a `call_model_input_filter`, a `tool_use_behavior` that ends the run when a hook says
`continue: false`, and Stop: a block runs the agent again with the feedback. Native tool
guardrails are not used: they cannot rewrite a tool's input.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hookwright.adapters._extras import needs_extra
from hookwright.core.events import Event
from hookwright.host import (
    Abilities,
    EndTurn,
    FrameworkSession,
    ToolResult,
    ToolStep,
    elapsed_ms,
    ended_text,
    reminder,
)
from hookwright.host import ModelRequest as ModelCall

with needs_extra(__name__, "openai-agents", "agents"):
    from agents import (
        Agent,
        FunctionTool,
        FunctionToolResult,
        ModelResponse,
        RunConfig,
        RunContextWrapper,
        Runner,
        RunResult,
        ToolsToFinalOutputResult,
        TResponseInputItem,
    )
    from agents.run_config import CallModelData, ModelInputData, ToolErrorFormatterArgs
    from agents.tool_context import ToolContext

    from hookwright.adapters._openai_agents_model import ModelAnswerHooks, answer_of, model_call_of


ABILITIES = Abilities("openai-agents", ask_user=False, end_turn=True)
Invoke = Callable[[ToolContext[Any], str], Awaitable[Any]]
ErrorText = str | None | Awaitable[str | None]


@dataclass(frozen=True)
class HookedRun:
    """One turn: the agent's final output and its last `RunResult`; `end` when a hook ended
    the turn (a blocked prompt has neither output nor result; a model call a hook blocked has
    the reason as output and no result)."""

    final_output: Any
    result: RunResult | None
    end: EndTurn | None = None


class OpenAIAgentsHooks:
    """One openai-agents session governed by a project's hooks."""

    def __init__(self, session: FrameworkSession) -> None:
        self.session = session
        #: Context notes given to the model this turn, by input position, kept in later calls.
        self._notes: list[tuple[int, TResponseInputItem]] = []
        self._late = False
        #: Calls whose tool raised (the SDK answers them with its error text).
        self._failed: set[str] = set()
        self._call: ModelCall | None = None

    @classmethod
    async def open(cls, project_dir: Path, **options: Any) -> OpenAIAgentsHooks:
        """Options are `skills` (the project's skills whose prompt hooks load) and
        `HookSession.open`'s (tool_map, trust, audit_path, ...)."""
        opened = await asyncio.to_thread(FrameworkSession.open, project_dir, ABILITIES, **options)
        return cls(opened)

    async def __aenter__(self) -> OpenAIAgentsHooks:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """SessionEnd, then the hook processes stop."""
        await self.session.aclose()

    async def run(
        self,
        agent: Agent[Any],
        prompt: str,
        *,
        history: Sequence[TResponseInputItem] = (),
        run_config: RunConfig | None = None,
        **options: Any,
    ) -> HookedRun:
        """One user turn; `options` go to `Runner.run` (context, max_turns, ...). Cancelling
        the turn's task (or Ctrl-C inside it) runs the Interrupt hooks, then goes on."""
        turn = self._turn(agent, prompt, history, run_config, options)
        return await self.session.ainterruptible(turn)

    async def _turn(
        self,
        agent: Agent[Any],
        prompt: str,
        history: Sequence[TResponseInputItem],
        run_config: RunConfig | None,
        options: dict[str, Any],
    ) -> HookedRun:
        end = await self.session.aprompt(prompt)
        if end is not None:
            return HookedRun(None, None, end)
        self._notes, self._late = [], False
        governed = self.govern(agent)
        config = self._config(run_config)
        options["hooks"] = ModelAnswerHooks(self._answered, options.get("hooks"))
        items: list[TResponseInputItem] = [*history, {"role": "user", "content": prompt}]
        while True:
            try:
                result = await Runner.run(governed, items, run_config=config, **options)
            except _ModelCallBlocked as blocked:
                return HookedRun(ended_text(blocked.end), None, blocked.end)
            end = self.session.ending
            if end is not None:
                return HookedRun(result.final_output, result, end)
            feedback = await self.session.astop(str(result.final_output))
            if feedback is None:
                return HookedRun(result.final_output, result)
            items = [*result.to_input_list(), {"role": "user", "content": feedback}]

    def govern(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of `agent` whose function tools run the hooks and whose run ends when a hook
        ends the turn (unless the agent has a `tool_use_behavior` of its own)."""
        tools = [self.wrap(t) if isinstance(t, FunctionTool) else t for t in agent.tools]
        behavior = agent.tool_use_behavior
        if behavior == "run_llm_again":
            return agent.clone(tools=tools, tool_use_behavior=self._end_when_asked)
        return agent.clone(tools=tools)

    def wrap(self, tool: FunctionTool) -> FunctionTool:
        invoke = tool.on_invoke_tool

        async def on_invoke_tool(context: ToolContext[Any], arguments: str) -> Any:
            return await self._invoke(tool.name, invoke, context, arguments)

        return replace(tool, on_invoke_tool=on_invoke_tool)

    async def _invoke(
        self, name: str, invoke: Invoke, context: ToolContext[Any], arguments: str
    ) -> Any:
        try:
            tool_input = json.loads(arguments or "{}")
        except ValueError:
            tool_input = None
        if not isinstance(tool_input, dict):
            return await invoke(context, arguments)  # the tool's own parse error, not run
        step = await self.session.abefore_tool(name, tool_input, context.tool_call_id)
        if step.run is None:
            return _answer(step).content
        started = time.monotonic()
        try:
            output = await invoke(context, json.dumps(dict(step.run.tool_input)))
        except Exception as exc:
            failed = ToolResult(str(exc), is_error=True)
            await self.session.aafter_tool(step, failed, elapsed_ms(started))
            raise
        ran = _result_of(output, failed=context.tool_call_id in self._failed)
        shown = await self.session.aafter_tool(step, ran, elapsed_ms(started))
        return output if shown == ran else shown.content

    def _end_when_asked(
        self, context: RunContextWrapper[Any], results: list[FunctionToolResult]
    ) -> ToolsToFinalOutputResult:
        ending = self.session.ending
        if ending is None:
            return ToolsToFinalOutputResult(is_final_output=False)
        return ToolsToFinalOutputResult(is_final_output=True, final_output=ending.reason)

    def _config(self, given: RunConfig | None) -> RunConfig:
        config = given or RunConfig()
        theirs = config.call_model_input_filter

        async def call_model_input_filter(data: CallModelData[Any]) -> ModelInputData:
            placed = await self._model_call(data)
            if theirs is None:
                return placed
            outcome = theirs(replace(data, model_data=placed))
            return await outcome if isinstance(outcome, Awaitable) else outcome

        formatter = config.tool_error_formatter

        def tool_error_formatter(args: ToolErrorFormatterArgs[Any]) -> ErrorText:
            if args.kind == "tool_exception":
                self._failed.add(args.call_id)
            return None if formatter is None else formatter(args)

        return replace(
            config,
            call_model_input_filter=call_model_input_filter,
            tool_error_formatter=tool_error_formatter,
        )

    async def _model_call(self, data: CallModelData[Any]) -> ModelInputData:
        """The model-call hooks (their context for this call only; a block ends the run),
        then the queued context."""
        given = data.model_data
        self._call = model_call_of(data.agent, given.input, given.instructions)
        ended = self.session.ending
        notes = await self.session.amodel_call(self._call)
        if ended is None and self.session.ending is not None:
            raise _ModelCallBlocked(self.session.ending)
        placed = self._place_context(given)
        if notes:
            placed.input.append({"role": "user", "content": reminder(notes)})
        return placed

    async def _answered(self, response: ModelResponse) -> None:
        if self._call is not None:
            await self.session.amodel_answered(self._call, answer_of(response))

    def _place_context(self, data: ModelInputData) -> ModelInputData:
        """Queued hook context becomes a user note after the current input; notes given
        earlier this turn stay where they were."""
        items = list(data.input)
        texts = self.session.take_context()
        if texts:
            self._notes.append((len(items), {"role": "user", "content": reminder(texts)}))
        for offset, (position, note) in enumerate(self._notes):
            items.insert(position + offset, note)
        late = self.session.ending
        if late is not None and not self._late:
            self._late = True
            what = f"ending the turn ({late.reason}) under the agent's own tool_use_behavior"
            self.session.unexpressed(Event.PostToolUse, what)
        return ModelInputData(input=items, instructions=data.instructions)


class _ModelCallBlocked(Exception):
    """A model-call hook ended the turn: the model must not be called."""

    def __init__(self, end: EndTurn) -> None:
        super().__init__(end.reason)
        self.end = end


def _answer(step: ToolStep) -> ToolResult:
    return step.answer or ToolResult("Tool call not run.", is_error=True)


def _result_of(output: Any, *, failed: bool) -> ToolResult:
    if isinstance(output, str):
        return ToolResult(output, failed)
    data = output if isinstance(output, dict) else None
    return ToolResult(json.dumps(output, default=str) if data else str(output), failed, data)
