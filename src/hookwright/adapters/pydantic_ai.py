"""A project's hooks governing a pydantic-ai agent (``pip install 'hookwright[pydantic-ai]'``).

    with PydanticAIHooks.open(project, tool_map=...) as hooks:
        agent = Agent(model, tools=[shell], capabilities=[hooks])
        first = agent.run_sync("Tidy up and publish.")
        agent.run_sync("Now tag it.", message_history=first.all_messages())

A capability, one per framework session (any number of runs): `wrap_run` fires SessionStart
(first run) and UserPromptSubmit; `before_model_request` enqueues hook context into the request
(it stays in the history), or answers in the model's place once a hook ended the turn;
`before_tool_validate` runs PreToolUse/PermissionRequest on the model's raw arguments, so a
rewritten input goes through the tool's own validation, and a refusal is a `ToolFailed`;
`wrap_tool_execute` answers a `respond` without running the tool, defers an `ask` with
`ApprovalRequired` (``approvals=True``), and fires PostToolUse after the tool; `after_node_run`
fires Stop when the run would end, and a block enqueues the feedback, so the run goes on.

A call pydantic-ai itself defers for approval (a ``requires_approval`` tool, or a tool raising
`ApprovalRequired`) meets the PermissionRequest hooks in `handle_deferred_tool_calls`, as a
permission prompt would: a hook's deny is a `ToolDenied` and its allow a `ToolApproved`,
neither asks the user. Whoever answers a deferred call (a person, the host) is audited when
the run resumes: an approval when the tool is about to run, a denial when the model is next
asked (pydantic-ai runs no tool hook for a denied call).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookwright.adapters._extras import needs_extra
from hookwright.host import (
    Abilities,
    Ask,
    FrameworkSession,
    ToolResult,
    ToolStep,
    ask_payload,
    elapsed_ms,
    ended_text,
    reminder,
    tool_result_from_value,
)

with needs_extra(__name__, "pydantic-ai", "pydantic_ai", "pydantic_graph"):
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import (
        AbstractCapability,
        AgentNode,
        NodeResult,
        RawToolArgs,
        ValidatedToolArgs,
        WrapRunHandler,
        WrapToolExecuteHandler,
    )
    from pydantic_ai.exceptions import (
        ApprovalRequired,
        CallDeferred,
        SkipModelRequest,
        SkipToolExecution,
        SkipToolValidation,
        ToolFailed,
    )
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.run import AgentRunResult
    from pydantic_ai.tools import (
        DeferredToolRequests,
        DeferredToolResults,
        ToolApproved,
        ToolDefinition,
        ToolDenied,
    )
    from pydantic_graph import End

    from hookwright.adapters._pydantic_ai_chat import assistant_message, model_call_of, prompt_text


#: What the tool raised when it did not finish on its own (deferred, skipped): no PostToolUse.
NOT_FINISHED = (ApprovalRequired, CallDeferred, SkipToolExecution)


class PydanticAIHooks(AbstractCapability[Any]):
    """One pydantic-ai session governed by a project's hooks; pass it in an agent's (or a
    run's) ``capabilities``. With ``approvals=True`` an ``ask`` no PermissionRequest hook
    decides defers the call for the user (the agent's output types must include
    `DeferredToolRequests`); otherwise the call is refused with the hook's reason."""

    def __init__(self, session: FrameworkSession) -> None:
        super().__init__()
        self.session = session
        #: Deferred calls whose answer is not audited yet, by call id.
        self._pending: dict[str, Ask] = {}
        #: Deferred calls a PermissionRequest hook approved, by call id: they run as it said.
        self._granted: dict[str, ToolStep] = {}

    @classmethod
    def open(cls, project_dir: Path, *, approvals: bool = False, **options: Any) -> PydanticAIHooks:
        """Options are `skills` (the project's skills whose prompt hooks load) and
        `HookSession.open`'s (tool_map, trust, audit_path, ...)."""
        abilities = Abilities("pydantic-ai", ask_user=approvals, end_turn=True)
        return cls(FrameworkSession.open(project_dir, abilities, **options))

    def close(self) -> None:
        """SessionEnd, then the hook processes stop."""
        self.session.close()

    async def aclose(self) -> None:
        await self.session.aclose()

    def __enter__(self) -> PydanticAIHooks:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> PydanticAIHooks:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # The run ----------------------------------------------------------------------------------

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        """The run, whose cancellation (a cancelled task, Ctrl-C) runs the Interrupt hooks
        before it goes on."""
        return await self.session.ainterruptible(self._run(ctx, handler))

    async def _run(self, ctx: RunContext[Any], handler: WrapRunHandler) -> AgentRunResult[Any]:
        if ctx.prompt is not None:  # a run resuming deferred calls has no new prompt
            await self.session.aprompt(prompt_text(ctx.prompt))
        return await handler()

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        if self._pending:
            self._audit_denials(request_context.messages)
        notes = await self.session.amodel_call(model_call_of(request_context), ctx.run_step)
        ending = self.session.ending
        if ending is not None:
            raise SkipModelRequest(ModelResponse(parts=[TextPart(ended_text(ending))]))
        texts = self.session.take_context()
        if texts:
            ctx.enqueue(reminder(texts))
        if notes:  # model-call context: this request only
            note = ModelRequest([UserPromptPart(reminder(notes))])
            request_context.messages = [*request_context.messages, note]
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        call = model_call_of(request_context)
        await self.session.amodel_answered(call, assistant_message(response), ctx.run_step)
        return response

    async def after_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], result: NodeResult[Any]
    ) -> NodeResult[Any]:
        if not isinstance(result, End) or isinstance(result.data.output, DeferredToolRequests):
            return result
        feedback = await self.session.astop(_final_text(result.data.output))
        if feedback is not None:
            ctx.enqueue(feedback, priority="when_idle")
        return result

    # Tools ------------------------------------------------------------------------------------

    async def _before_tool(
        self, ctx: RunContext[Any], call: ToolCallPart, tool_input: Mapping[str, Any]
    ) -> ToolStep:
        """PreToolUse's step for `call` (run once per call id); for an approved deferred call,
        what its PermissionRequest hook allowed, or the step the person's approval (audited
        here, or by `resolve` for an ask of ours) lets run."""
        call_id = call.tool_call_id
        granted = self._granted.get(call_id) if ctx.tool_call_approved else None
        if granted is not None:
            return granted
        step = await self.session.abefore_tool(call.tool_name, tool_input, call_id)
        pending = self._pending.pop(call_id, None) if ctx.tool_call_approved else None
        if pending is not None and step.ask is None:
            self.session.answered(pending, call_id, approved=True)
        return step

    async def before_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
    ) -> RawToolArgs:
        tool_input = _parsed(args)
        if tool_input is None:
            return args  # the tool's own validation error; it does not run
        step = await self._before_tool(ctx, call, tool_input)
        action = step.run or step.ask
        if action is not None:
            return dict(action.tool_input)
        answer = _answer(step)
        if answer.is_error:
            raise ToolFailed(answer.content)
        raise SkipToolValidation(tool_input)  # wrap_tool_execute answers it

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        step = await self._before_tool(ctx, call, args)
        if step.ask is not None:
            if not ctx.tool_call_approved:
                raise ApprovalRequired(ask_payload(step.ask))
            step = self.session.resolve(step, approved=True)
        if step.run is None:
            answer = _answer(step)
            if answer.is_error:
                raise ToolFailed(answer.content)
            return answer.content
        started = time.monotonic()
        try:
            output = await handler(args)
        except NOT_FINISHED:
            raise
        except Exception as exc:
            failed = ToolResult(str(exc), is_error=True)
            await self.session.aafter_tool(step, failed, elapsed_ms(started))
            raise
        ran = _result_of(output)
        shown = await self.session.aafter_tool(step, ran, elapsed_ms(started))
        if shown == ran:
            return output
        if shown.is_error:
            raise ToolFailed(shown.content)
        return shown.content

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[Any], *, requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        """The PermissionRequest hooks on each call pydantic-ai defers for approval: a hook's
        deny or allow answers it; a call still undecided goes to the user (its answer is
        audited on resume). A call a hook of ours deferred has met them already."""
        decided = DeferredToolResults()
        for call in requests.approvals:
            call_id = call.tool_call_id
            meta = requests.metadata.get(call_id)
            if isinstance(meta, Mapping) and meta.get("hookwright") == "ask":
                self._pending[call_id] = Ask(call.tool_name, meta["input"], meta["reason"])
                continue
            tool_input = _parsed(call.args or {}) or {}
            ask = Ask(call.tool_name, tool_input, None)
            step = await asyncio.to_thread(self.session.permission, ask, call_id)
            if step.ask is not None:
                self._pending[call_id] = ask
            elif step.run is not None:
                self._granted[call_id] = step
                decided.approvals[call_id] = ToolApproved(override_args=dict(step.run.tool_input))
            else:
                decided.approvals[call_id] = ToolDenied(_answer(step).content)
        return decided if decided.approvals else None

    def _audit_denials(self, messages: list[ModelMessage]) -> None:
        """The denials a resumed run carries for deferred calls: pydantic-ai answers them
        with a `denied` tool return and runs no tool hook."""
        for message in messages:
            for part in message.parts if isinstance(message, ModelRequest) else ():
                if isinstance(part, ToolReturnPart) and part.outcome == "denied":
                    ask = self._pending.pop(part.tool_call_id, None)
                    if ask is not None:
                        self.session.answered(ask, part.tool_call_id, approved=False)


def _final_text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output, default=str)


def _parsed(args: RawToolArgs) -> dict[str, Any] | None:
    if isinstance(args, Mapping):
        return dict(args)
    try:
        value = json.loads(args or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _answer(step: ToolStep) -> ToolResult:
    return step.answer or ToolResult("Tool call not run.", is_error=True)


def _result_of(output: Any) -> ToolResult:
    return ToolResult(output) if isinstance(output, str) else tool_result_from_value(output)
