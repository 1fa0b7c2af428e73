"""The reference agent's tool step: the tool calls one model turn asks for, each through its
hooks, its permission check and its run.

    run_batch(calls):
      each call: arguments not a JSON object -> an error result, nothing fires
                 PreToolUse -> respond | deny | defer | run | ask
                 run / ask: no such tool -> PermissionRequest (approval gates only) -> error
                            rules and mode -> PermissionRequest -> [the user] -> execute
                            -> PostToolUse | PostToolUseFailure
      a call said stop -> the turn ends here (no PostToolBatch, no Stop)
      PostToolBatch

The agent loop hands the step a round's calls and reads back a `ToolBatch`; the step writes each
call's result into the history through the loop (`ToolStepOwner`). A hook that ends the turn
unwinds to the loop with `TurnEnded`, as from every other checkpoint.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from hookwright.host import (
    Ask,
    Defer,
    Deny,
    HookSession,
    PermissionDecision,
    PermissionSource,
    PromptChannel,
    PromptInjection,
    Respond,
    Run,
    ToolResult,
)
from hookwright.runtime.models import ToolCall
from hookwright.runtime.observation import exec_end_fields
from hookwright.runtime.permissions import (
    PermissionOutcome,
    PermissionPolicy,
    unanswered_message,
)
from hookwright.runtime.suggestions import allow_rule_text, permission_suggestions
from hookwright.runtime.tools import ToolContext, ToolOutput, ToolRegistry
from hookwright.runtime.tools.base import InputCheck
from hookwright.runtime.turn_end import TurnEnded, end_turn_if

#: PicoClaw's channels without a channel manager to deliver media to.
INTERNAL_CHANNELS = frozenset({"cli", "system", "subagent"})
#: Asks the person whether a tool may run: (tool name, the question, the tool's input).
AskUser = Callable[[str, str, dict[str, Any]], Awaitable[bool]]


class ToolStepOwner(Protocol):
    """What the tool step uses of the agent loop that owns it: the session's place, its
    reporting, and its history."""

    @property
    def working_dir(self) -> Path: ...

    @property
    def interactive(self) -> bool:
        """Whether a person answers permission prompts."""
        ...

    @property
    def channel(self) -> str:
        """The channel the session talks on (PicoClaw's `cli`, `telegram`, ...)."""
        ...

    def tool_context(self) -> ToolContext:
        """Where and with what environment a tool runs now."""
        ...

    def move_to(self, cwd: Path) -> None: ...

    def emit(self, event_type: str, /, **data: Any) -> None: ...

    def observe(self, kind: str, fields: dict[str, Any]) -> None: ...

    def record(self, message: dict[str, Any], **meta: Any) -> None:
        """Append a message to the history and the transcript."""
        ...

    def queue_context(self, texts: Sequence[str]) -> None: ...

    def queue_call_context(self, call_id: str, texts: Sequence[str]) -> None:
        """Paragraphs whose dialect shows them beside the call `call_id`."""
        ...

    def flush_context(self) -> None: ...

    def tool_ran(self, name: str, content: str, is_error: bool) -> None:
        """A tool ran (or a hook answered for it), for the turn's record."""
        ...


@dataclass(slots=True)
class CallOutcome:
    """One tool call of a batch as PostToolBatch reports it, and whether it ends the turn."""

    tool_name: str
    tool_input: dict[str, Any] | None
    tool_use_id: str
    #: The result as the model reads it.
    tool_response: str | None = None
    stop: str | None = None
    response_handled: bool = False

    def batch_entry(self) -> dict[str, Any]:
        return {
            "tool_name": self.tool_name,
            "tool_input": self.tool_input,
            "tool_use_id": self.tool_use_id,
            "tool_response": self.tool_response,
        }


@dataclass(frozen=True, slots=True)
class ToolBatch:
    """What a round's tool calls came to: each call, and the skill prompts PostToolBatch
    placed for the next round."""

    calls: tuple[CallOutcome, ...]
    prompts: tuple[PromptInjection, ...]

    @property
    def handled(self) -> bool:
        """Every result already answered the user: the turn ends without another model call."""
        return all(call.response_handled for call in self.calls)


class ToolStep:
    """Runs the tool calls of an agent's model turns through the session's hooks."""

    def __init__(
        self,
        owner: ToolStepOwner,
        hooks: HookSession,
        tools: ToolRegistry,
        policy: PermissionPolicy,
        ask_user: AskUser | None,
        prompt_channel: PromptChannel = "callback",
    ) -> None:
        self.owner = owner
        self.hooks = hooks
        self.tools = tools
        self.policy = policy
        self.ask_user = ask_user
        #: Where `ask_user` asks: named in the audit record of the person's answer.
        self.prompt_channel: PromptChannel = prompt_channel
        self._executing = False
        self._after_tool: list[Callable[[], Awaitable[None]]] = []
        #: User texts the tools of the running batch left for after its results.
        self._followups: list[str] = []

    async def run_batch(self, calls: Sequence[ToolCall], iteration: int) -> ToolBatch:
        """Run a model turn's calls in order, then PostToolBatch."""
        batch: list[CallOutcome] = []
        stop_after: str | None = None
        for call in calls:
            with self.hooks.tool_span(call.name, call.id):
                outcome = await self._call(call, iteration, single=len(calls) == 1)
            batch.append(outcome)
            if outcome.stop and stop_after is None:
                stop_after = outcome.stop
        followups, self._followups = self._followups, []
        for text in followups:
            self.owner.record({"role": "user", "content": text})
        if stop_after is not None:  # Claude Code ends the turn here: no PostToolBatch, no Stop
            self.owner.flush_context()
            raise TurnEnded("stopped", stop_after)
        checkpoint = await self.hooks.tool_batch([o.batch_entry() for o in batch])
        self.owner.queue_context(checkpoint.context)
        end_turn_if(checkpoint.end)
        return ToolBatch(tuple(batch), checkpoint.prompts)

    def after_running_tool(self, action: Callable[[], Awaitable[None]]) -> bool:
        """Run ``action`` once the tool now running has had its PostToolUse (or
        PostToolUseFailure); False, and nothing kept, when no tool is running. What a tool's
        MCP server asked while it ran (the elicitation response's Notification) is reported
        after the call, as in Claude Code."""
        if not self._executing:
            return False
        self._after_tool.append(action)
        return True

    # One call ---------------------------------------------------------------------------------

    async def _call(self, call: ToolCall, iteration: int, *, single: bool) -> CallOutcome:
        owner = self.owner
        outcome = CallOutcome(call.name, call.arguments, call.id)
        owner.emit("tool_call", id=call.id, name=call.name, input=call.arguments)
        if call.arguments is None:
            output = ToolOutput(
                content="InputValidationError: the tool arguments are not a JSON object: "
                f"{call.raw_arguments[:500]}",
                is_error=True,
            )
            return self._finish(call, output, outcome, skipped="invalid arguments")
        arguments = self.tools.read_input(call.name, call.arguments)
        call = replace(call, arguments=arguments)
        refusal = await self._refusal(call.name, arguments, outcome)
        if refusal is not None:
            output = ToolOutput(f"<tool_use_error>{refusal}</tool_use_error>", is_error=True)
            return self._finish(call, output, outcome, skipped="refused by the tool")
        observed = self.tools.observed_input(call.name, arguments, owner.working_dir)
        self.hooks.identity.permission_mode = self.policy.mode
        decision = await self.hooks.before_tool(
            call.name, observed, call.id, iteration=iteration, **self._mcp_fields(call.name)
        )
        owner.queue_call_context(call.id, decision.context[: decision.beside_call])
        owner.queue_context(decision.context[decision.beside_call :])
        if decision.end is not None:
            self._tool_message(call.id, ToolOutput("Tool call aborted by hook.", is_error=True))
            end_turn_if(decision.end)
        outcome.stop = decision.stop_after
        action = decision.action
        if isinstance(action, Respond):
            owner.emit("notice", text=f"{call.name}: answered by a hook without running the tool")
            result = action.result
            owner.observe("agent.tool.exec_start", {"Tool": call.name, "Arguments": call.arguments})
            output = self._result_output(call.name, result, None)
            outcome.response_handled = self._handled(result)
            self._executed(call.name, output, 0, result.for_user)
            return self._finish(call, output, outcome, skipped="answered by hook", observed=True)
        if isinstance(action, Deny):
            output = ToolOutput(action.message, is_error=True)
            reason = action.reason or action.message
            self._decided(call.name, observed, call.id, "deny", reason, _hook(action.decided_by))
            return self._finish(call, output, outcome, skipped="denied by hook")
        if isinstance(action, Defer):
            if single and not owner.interactive:
                self._tool_message(call.id, ToolOutput("Tool call deferred.", is_error=True))
                outcome.stop = "tool_deferred"
                return outcome
            owner.emit("notice", text="a hook answered defer; ignored (only for a single call)")
            action = Run(call.name, observed)
        return await self._run(call, action, outcome, observed)

    async def _refusal(
        self, name: str, arguments: dict[str, Any], outcome: CallOutcome
    ) -> str | None:
        """Why Claude Code refuses the call before any hook runs (its schema, then the tool's
        own check), as its profile words it; None: the call goes on to its hooks. Sets the
        input PostToolBatch reads."""
        profile = self.hooks.claude_code
        refusal = self.tools.schema_refusal(
            name, arguments, lists_invalid_values=profile.lists_invalid_values
        )
        outcome.tool_input = self.tools.parsed_input(name, arguments, refused=refusal is not None)
        if refusal is not None:
            return refusal
        check = InputCheck(
            self.owner.working_dir,
            refuses_folder_writes=profile.refuses_folder_writes,
            plain_hint_extensions=profile.plain_hint_extensions,
        )
        return await self.tools.refusal(name, arguments, check)

    async def _run(
        self, call: ToolCall, action: Run | Ask, outcome: CallOutcome, observed: dict[str, Any]
    ) -> CallOutcome:
        """Run the call. Hooks see `observed` (or what a hook rewrote it to); the tool runs with
        the model's own arguments unless a hook rewrote them, as in Claude Code."""
        name, tool_input = action.tool_name, dict(action.tool_input)
        outcome.tool_name = name
        if name != call.name or tool_input != observed:
            self.owner.emit("tool_rewritten", id=call.id, name=name, input=tool_input)
        tool = self.tools.get(name)
        if tool is None:
            return await self._unknown_tool(call, name, tool_input, outcome)
        permitted = await self._permission(name, tool_input, call.id, tool.read_only, action)
        if permitted is not True:
            output = ToolOutput(permitted, is_error=True)
            return self._finish(call, output, outcome, skipped="permission denied")
        unchanged = name == call.name and tool_input == observed and call.arguments is not None
        self._executing, self._after_tool = True, []
        try:
            output, duration_ns = await self._execute(
                name, dict(call.arguments or {}) if unchanged else tool_input, call.id
            )
        finally:
            self._executing = False
        return await self._after(call, name, tool_input, output, duration_ns, outcome)

    async def _after(
        self,
        call: ToolCall,
        name: str,
        tool_input: dict[str, Any],
        ran: ToolOutput,
        duration_ns: int,
        outcome: CallOutcome,
    ) -> CallOutcome:
        """PostToolUse (or PostToolUseFailure) on what the tool gave; what the hooks make of
        it is what the model sees."""
        after = await self.hooks.after_tool(
            name,
            tool_input,
            call.id,
            ToolResult(ran.content, ran.is_error, ran.data),
            duration_ms=round(duration_ns / 1e6),
            error=ran.error,
            **self._mcp_fields(name),
        )
        pending, self._after_tool = self._after_tool, []
        for deferred in pending:
            await deferred()
        self.owner.queue_call_context(call.id, after.context[: after.beside_call])
        self.owner.queue_context(after.context[after.beside_call :])
        output = None
        if after.response is not None:
            output = self.tools.render_response(name, after.response)
        if output is None:
            output = self._result_output(name, after.result, ran)
        outcome.response_handled = self._handled(after.result)
        if after.stop_after is not None:
            outcome.stop = after.stop_after
        if after.end is not None:
            self._tool_message(call.id, output)
            end_turn_if(after.end)
        self._executed(name, output, duration_ns, after.result.for_user)
        return self._finish(call, output, outcome)

    async def _unknown_tool(
        self, call: ToolCall, name: str, tool_input: dict[str, Any], outcome: CallOutcome
    ) -> CallOutcome:
        """A call of a tool that does not exist: approval gates still decide on it (PicoClaw
        asks its approvers before its registry finds no such tool); nothing runs."""
        request = await self.hooks.permission(name, tool_input, call.id, prompt=False)
        if request.end is not None:
            self._tool_message(call.id, ToolOutput("Permission denied; interrupted.", True))
            end_turn_if(request.end)
        if request.behavior == "deny":
            message = request.message or f"Permission to use {name} was denied"
            output = ToolOutput(message, is_error=True)
            return self._finish(call, output, outcome, skipped="permission denied")
        self.owner.observe("agent.tool.exec_start", {"Tool": name, "Arguments": tool_input})
        output = ToolOutput(f"Error: No such tool available: {name}", is_error=True)
        self._executed(name, output, 0, None)
        return self._finish(call, output, outcome, skipped="unknown tool", observed=True)

    def _mcp_fields(self, name: str) -> dict[str, Any]:
        """An MCP tool's ``mcp_server`` for its hook inputs, under a Claude Code profile that
        sends it."""
        server = getattr(self.tools.get(name), "server", None)
        if not isinstance(server, dict) or not self.hooks.claude_code.mcp_server:
            return {}
        return {"mcp_server": dict(server)}

    # Permission -------------------------------------------------------------------------------

    async def _permission(
        self,
        name: str,
        tool_input: dict[str, Any],
        call_id: str,
        read_only: bool,
        action: Run | Ask,
    ) -> str | Literal[True]:
        """True when the call may run, else the message the model sees.

        PermissionRequest fires for every call that rules and mode do not deny, with
        `permission_prompt` saying whether a prompt would show: approval gates (PicoClaw
        `approve_tool`) see every call and can deny it; Claude Code hooks only see the calls
        that would prompt, as in Claude Code."""
        cwd = str(self.owner.working_dir)
        approved = isinstance(action, Run) and action.approved
        outcome = self.policy.check(
            name, tool_input, read_only=read_only, cwd=cwd, hook_allowed=approved
        )
        behavior = outcome.behavior
        if isinstance(action, Ask) and behavior == "allow":
            behavior = "ask"
        if behavior == "deny":
            self.owner.emit("permission", tool=name, behavior="deny", reason=outcome.reason)
            self._decided(name, tool_input, call_id, "deny", outcome.reason, self._source(outcome))
            return f"Permission to use {name} was denied: {outcome.reason}"
        request = await self.hooks.permission(
            name,
            tool_input,
            call_id,
            prompt=behavior == "ask" and self._prompts(action),
            suggestions=permission_suggestions(
                name, tool_input, self.policy.mode, self.owner.working_dir
            ),
            **self._mcp_fields(name),
        )
        self._settle_permission_hooks(request, call_id)
        if request.behavior == "deny":
            self.owner.emit("permission", tool=name, behavior="deny", reason=request.reason)
            reason = request.reason or "denied by a PermissionRequest hook"
            self._decided(name, tool_input, call_id, "deny", reason, _hook(request.decided_by))
            return request.message or f"Permission to use {name} was denied"
        if behavior == "allow":
            source = self._source(outcome, action.decided_by if isinstance(action, Run) else None)
            self._decided(name, tool_input, call_id, "allow", outcome.reason, source)
            return True
        if request.behavior == "allow":
            return self._allowed_by_hook(name, tool_input, call_id, request, cwd)
        return await self._ask_user(name, tool_input, call_id, outcome, action)

    def _settle_permission_hooks(self, request: PermissionDecision, call_id: str) -> None:
        """What the PermissionRequest hooks did beside deciding: the rule updates of an allow
        applied (and the mode they set made the session's), an abort's turn ended."""
        if request.permission_updates and request.behavior == "allow":
            for note in self.policy.apply_updates(request.permission_updates):
                self.owner.emit("notice", text=f"permissions: {note}")
            self.hooks.identity.permission_mode = self.policy.mode
        if request.end is not None:
            self._tool_message(call_id, ToolOutput("Permission denied; interrupted.", True))
            end_turn_if(request.end)

    def _allowed_by_hook(
        self,
        name: str,
        tool_input: dict[str, Any],
        call_id: str,
        request: PermissionDecision,
        cwd: str,
    ) -> str | Literal[True]:
        """A call a PermissionRequest hook allowed where a person would have been asked:
        True, or the denial of the rules on the input the hook gave it; recorded either way."""
        allowed = self._hook_allowed(name, tool_input, request.tool_input, cwd)
        reason = "allowed by a PermissionRequest hook"
        source = _hook(request.decided_by)
        if allowed is not True:
            reason, source = (
                allowed,
                self._source(self.policy.rule_decision(name, tool_input, cwd)),
            )
        self._decided(
            name,
            tool_input,
            call_id,
            "deny" if allowed is not True else "allow",
            reason,
            source,
        )
        return allowed

    def _prompts(self, action: Run | Ask) -> bool:
        """Whether Claude Code's PermissionRequest hooks see this call: a call a PreToolUse
        hook asked about reaches them only where a person can answer (``claude -p`` fires
        none and gives the model the hook's reason; measured, 2.1.240)."""
        return not isinstance(action, Ask) or (self.ask_user is not None and self.owner.interactive)

    def _hook_allowed(
        self,
        name: str,
        tool_input: dict[str, Any],
        updated_input: Mapping[str, Any] | None,
        cwd: str,
    ) -> str | Literal[True]:
        """A PermissionRequest hook allowed the call, maybe with new input (which the call then
        runs with); the permission rules still deny the new input."""
        if updated_input is not None:
            tool_input.clear()
            tool_input.update(updated_input)
            recheck = self.policy.rule_decision(name, tool_input, cwd)
            if recheck is not None and recheck.behavior == "deny":
                return f"Permission to use {name} was denied: {recheck.reason}"
        self.owner.emit("permission", tool=name, behavior="allow", reason="allowed by hook")
        return True

    async def _ask_user(
        self,
        name: str,
        tool_input: dict[str, Any],
        call_id: str,
        outcome: PermissionOutcome,
        action: Run | Ask,
    ) -> str | Literal[True]:
        """Ask the user; without one, deny with the text Claude Code's ``-p`` gives the model."""
        owner = self.owner
        hook_reason = action.reason if isinstance(action, Ask) else None
        if self.ask_user is not None and owner.interactive:
            mode = self.policy.mode
            person = PermissionSource("person", "user", mode, channel=self.prompt_channel)
            if await self.ask_user(name, hook_reason or outcome.reason, tool_input):
                owner.emit("permission", tool=name, behavior="allow", reason="allowed by user")
                self._decided(name, tool_input, call_id, "allow", "allowed by user", person)
                return True
            owner.emit("permission", tool=name, behavior="deny", reason="denied by user")
            self._decided(name, tool_input, call_id, "deny", "denied by user", person)
            return f"Permission to use {name} was denied by the user."
        message = unanswered_message(
            name,
            tool_input,
            outcome,
            cwd=owner.working_dir,
            hook_asked=isinstance(action, Ask),
            hook_reason=hook_reason,
            write_needs_approval=self.hooks.claude_code.write_needs_approval,
        )
        how: dict[str, Any] = {}
        if not isinstance(action, Ask):  # the rules or mode asked: a host may say how to allow
            how = {"unanswered": True, "allow_rule": allow_rule_text(name, tool_input)}
        owner.emit("permission", tool=name, behavior="deny", reason=message, **how)
        nobody = PermissionSource("mode", self.policy.mode, self.policy.mode)
        self._decided(name, tool_input, call_id, "deny", "no one to ask: " + message, nobody)
        return message

    def _source(
        self, outcome: PermissionOutcome | None, hook: str | None = None
    ) -> PermissionSource:
        """Who decided `outcome` of the rules and mode: its rule, the hook that allowed the
        call beforehand, else the mode."""
        mode = self.policy.mode
        if outcome is not None and outcome.rule is not None:
            return PermissionSource("rule", outcome.rule, mode, outcome.file)
        if outcome is not None and outcome.reason == "allowed by hook":
            return _hook(hook, mode)
        return PermissionSource("mode", mode, mode)

    def _decided(
        self,
        name: str,
        tool_input: Mapping[str, Any],
        call_id: str,
        behavior: Literal["allow", "deny"],
        reason: str,
        source: PermissionSource,
    ) -> None:
        """Audit the permission outcome of one call (see `HookSession.permission_outcome`)."""
        if source.mode != self.policy.mode:
            source = replace(source, mode=self.policy.mode)
        self.hooks.permission_outcome(name, tool_input, call_id, behavior, reason, source)

    # Running and results ----------------------------------------------------------------------

    async def _execute(
        self, name: str, arguments: dict[str, Any], call_id: str
    ) -> tuple[ToolOutput, int]:
        """Run the tool in the session's shell directory (which it may move); the output and
        how long it took, in nanoseconds."""
        self.owner.observe("agent.tool.exec_start", {"Tool": name, "Arguments": arguments})
        started = time.monotonic_ns()
        context = self.owner.tool_context()
        context.tool_use_id = call_id
        output = await self.tools.execute(name, arguments, context)
        if output.cwd is not None:
            self.owner.move_to(output.cwd)
        self._followups.extend(output.followup)
        return output, time.monotonic_ns() - started

    def _executed(
        self, name: str, output: ToolOutput, duration_ns: int, for_user: str | None
    ) -> None:
        """A tool ran (or a hook answered for it): observed with the result the model sees."""
        self.owner.tool_ran(name, output.content, output.is_error)
        self.owner.observe(
            "agent.tool.exec_end",
            exec_end_fields(name, output.content, output.is_error, duration_ns, for_user),
        )

    def _result_output(self, name: str, result: ToolResult, ran: ToolOutput | None) -> ToolOutput:
        """What the model sees of a (hook-supplied) result; what it carries for the user goes to
        the user now when the tool handled the response, else its media refs are listed for the
        model (PicoClaw's artifact tags)."""
        content = result.content
        if result.response_handled and (result.for_user or result.media):
            self.owner.emit("to_user", tool=name, text=result.for_user, media=list(result.media))
        if result.media and not self._handled(result):
            if result.response_handled and result.unhandled_content is not None:
                content = result.unhandled_content
            content = "\n".join([content, *(f"[{ref}]" for ref in result.media)])
        data = result.data if isinstance(result.data, dict) else ran.data if ran else None
        parts = ran.parts if ran is not None and content == ran.content else None
        return ToolOutput(content, result.is_error, data, ran.error if ran else None, parts=parts)

    def _handled(self, result: ToolResult) -> bool:
        """Whether the tool delivered the response itself. On an internal channel (`cli`,
        `system`, `subagent`) there is no channel to send media to: PicoClaw queues the media on
        its bus and counts the response as not handled, so the model reads the result with the
        media's tags and the turn goes on."""
        internal = self.owner.channel in INTERNAL_CHANNELS
        return result.response_handled and not (result.media and internal)

    def _finish(
        self,
        call: ToolCall,
        output: ToolOutput,
        outcome: CallOutcome,
        *,
        skipped: str | None = None,
        observed: bool = False,
    ) -> CallOutcome:
        """The call's result goes into the history and to the user's trace."""
        if skipped is not None and not observed:
            self.owner.observe(
                "agent.tool.exec_skipped", {"Tool": outcome.tool_name, "Reason": output.content}
            )
        self._tool_message(call.id, output)
        outcome.tool_response = output.content
        self.owner.emit(
            "tool_result",
            id=call.id,
            name=outcome.tool_name,
            content=output.content,
            is_error=output.is_error,
            skipped=skipped,
        )
        return outcome

    def _tool_message(self, call_id: str, output: ToolOutput) -> None:
        content: Any = output.content
        if output.parts is not None:
            content = [{"type": "text", "text": part} for part in output.parts]
        message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content}
        if output.is_error:
            message["is_error"] = True
        self.owner.record(message, tool_data=output.data, is_error=output.is_error)


def _hook(name: str | None, mode: str = "") -> PermissionSource:
    """A hook's decision as a permission source (the mode is filled in by `_decided`)."""
    return PermissionSource("hook", name or "a hook", mode)
