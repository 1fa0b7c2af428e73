"""`FrameworkSession`: the framework-neutral half of every adapter (`hookwright.adapters`).

An adapter only translates between a framework's callbacks and this class. Everything else is
here: one `SyncHookSession`, usable from any thread or event loop (the ``a*`` twins run the
blocking call in a worker thread, so a framework's async path never blocks its loop and never
meets the session's own loop); SessionStart once; hook context queued for the next model call;
one `ToolStep` per tool call (PreToolUse, then PermissionRequest when a hook asks), kept per call
id so a replayed step never runs the hooks twice; the result the model should see after a tool
ran; the model-call hooks around each model call; Stop feedback; and every decision field the
framework cannot express reported through `HookSession.unexpressed` (warning + audit) instead
of being dropped. A framework that applies verdicts itself in Claude Code's format (the
claude-agent-sdk CLI) uses `relay` and `permission` instead of the tool steps.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hookwright.core.events import Event
from hookwright.core.results import Verdict
from hookwright.host.decisions import (
    Ask,
    Defer,
    Deny,
    EndTurn,
    ModelRequest,
    PermissionDecision,
    Respond,
    Run,
    ToolDecision,
    ToolResult,
)
from hookwright.host.open import NotRun
from hookwright.host.sync import SyncHookSession


@dataclass(frozen=True, slots=True)
class Abilities:
    """What a framework can express. A decision that needs anything else is reported
    (`HookSession.unexpressed`) and applied as closely as the framework allows."""

    framework: str
    #: Pause the run for the user's approval (an interrupt) when a hook asks.
    ask_user: bool = False
    #: End the turn after a tool result (`continue: false`, an abort).
    end_turn: bool = False


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call, decided. Exactly one field besides `call_id` is set: `run` (the tool
    name and input the hooks left), `answer` (the result the model sees; the tool does not
    run and no PostToolUse fires) or `ask` (only with `Abilities.ask_user`: pause for the
    user, then `FrameworkSession.resolve`)."""

    call_id: str
    run: Run | None = None
    answer: ToolResult | None = None
    ask: Ask | None = None


def reminder(texts: Sequence[str]) -> str:
    """Hook context as the model reads it: one system reminder per text."""
    return "\n".join(f"<system-reminder>\n{text}\n</system-reminder>" for text in texts)


def refused(text: str) -> ToolResult:
    return ToolResult(text, is_error=True)


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a `time.monotonic()` reading): a hook's duration_ms."""
    return round((time.monotonic() - started) * 1000, 3)


def ended_text(end: EndTurn) -> str:
    """The answer a turn a hook ended gives in place of the model's: Claude Code's text for a
    blocked prompt, else the hook's reason."""
    if end.status == "blocked":
        return f"UserPromptSubmit operation blocked by hook:\n{end.reason}"
    return end.reason


def ask_payload(ask: Ask) -> dict[str, Any]:
    """What an adapter hands the user (an interrupt, an approval request) when a hook asks."""
    return {
        "hookwright": "ask",
        "tool": ask.tool_name,
        "input": dict(ask.tool_input),
        "reason": ask.reason,
    }


class FrameworkSession:
    """One framework session's hooks; every method is safe from any thread and never raises
    into the framework."""

    def __init__(self, hooks: SyncHookSession, abilities: Abilities) -> None:
        self.hooks = hooks
        self.abilities = abilities
        self._lock = threading.Lock()
        self._context: list[str] = []
        self._steps: dict[str, ToolStep] = {}
        self._end: EndTurn | None = None
        self._started = False

    @classmethod
    def open(cls, project_dir: Path, abilities: Abilities, **options: Any) -> FrameworkSession:
        """`HookSession.open(project_dir, **options)` on a loop of its own (`SyncHookSession`).
        Raises what `HookSession.open` raises (e.g. a bad trust file)."""
        return cls(SyncHookSession.open(project_dir, **options), abilities)

    @property
    def diagnostics(self) -> tuple[str, ...]:
        return self.hooks.diagnostics

    @property
    def skipped(self) -> tuple[NotRun, ...]:
        """Every declared hook that will not run, and why (`HookSession.skipped`)."""
        return self.hooks.skipped

    def unexpressed(self, event: Event, what: str) -> None:
        self.hooks.session.unexpressed(event, what, self.abilities.framework)

    # Context and the turn's end ---------------------------------------------------------------

    def queue(self, texts: Sequence[str]) -> None:
        with self._lock:
            self._context.extend(texts)

    def take_context(self) -> list[str]:
        """The hook context not yet shown to the model; the caller puts it into the next
        model call (`reminder` formats it)."""
        with self._lock:
            texts, self._context = self._context, []
        return texts

    @property
    def ending(self) -> EndTurn | None:
        """The end a hook asked for this turn (`continue: false`, an abort, a blocked prompt);
        the framework ends the turn at its next checkpoint and Stop does not fire."""
        return self._end

    def _end_turn(self, event: Event, end: EndTurn | None) -> None:
        if end is None:
            return
        if not self.abilities.end_turn:
            self.unexpressed(event, f"ending the turn ({end.reason})")
            return
        if end.rollback:
            self.unexpressed(event, "rolling back the turn's messages (hard abort)")
        with self._lock:
            self._end = self._end or end

    # Session and turn -------------------------------------------------------------------------

    def start(self, source: str = "startup") -> None:
        """SessionStart, once per session."""
        with self._lock:
            if self._started:
                return
            self._started = True
        decision = self.hooks.start(source)
        self.queue(decision.context)
        if decision.env_files:
            self.unexpressed(Event.SessionStart, "environment files (CLAUDE_ENV_FILE)")

    def prompt(self, prompt: str) -> EndTurn | None:
        """SessionStart (first time), then UserPromptSubmit; an `EndTurn` means the prompt must
        not reach the model."""
        self.start()
        checkpoint = self.hooks.prompt(prompt)
        with self._lock:
            self._end = checkpoint.end
        if checkpoint.end is not None:
            return checkpoint.end
        self.queue(checkpoint.context)
        if checkpoint.prompts:
            self.unexpressed(Event.UserPromptSubmit, "skill prompt injections")
        return None

    def stop(self, last_assistant_message: str) -> str | None:
        """Stop, unless a hook already ended the turn: the feedback to continue with (the
        session bounds consecutive blocks), or None to let the turn end."""
        if self.ending is not None:
            return None
        decision = self.hooks.stop(last_assistant_message)
        if decision.end is not None or not decision.continues:
            return None
        context = [reminder(decision.context)] if decision.context else []
        return "\n\n".join([*decision.continue_with, *context])

    def close(self, reason: str = "other") -> None:
        """SessionEnd, then the hook processes stop. Idempotent."""
        self.hooks.close(reason)

    # Model calls ------------------------------------------------------------------------------

    def model_call(self, request: ModelRequest, iteration: int = 0) -> tuple[str, ...]:
        """PreContextBuild, PostContextBuild and PreModelCall before a framework's model call
        (`request.messages` in chat format): the hook context to put into this very call only
        (as the reference agent does). A block ends the turn (`ending`; also when the hooks
        cannot run); a rewritten request is reported: the framework sends its own."""
        decision = self.hooks.model_request(request, iteration=iteration)
        if decision.end is not None:
            self._end_turn(Event.PreModelCall, decision.end)
            return ()
        if decision.rewritten:
            what = f"rewriting the model request ({', '.join(decision.rewritten)})"
            self.unexpressed(Event.PreModelCall, what)
        return decision.notes

    def model_answered(
        self, request: ModelRequest, response: Mapping[str, Any], iteration: int = 0
    ) -> None:
        """PostModelCall after a framework's model call (`response`: the assistant message in
        chat format): context is queued for the next call, a block ends the turn, a replaced
        answer is reported."""
        decision = self.hooks.model_response(request, response, iteration=iteration)
        self._end_turn(Event.PostModelCall, decision.end)
        self.queue(decision.notes)
        if decision.response is not None:
            self.unexpressed(Event.PostModelCall, "replacing the model's answer")

    async def amodel_call(self, request: ModelRequest, iteration: int = 0) -> tuple[str, ...]:
        return await asyncio.to_thread(self.model_call, request, iteration)

    async def amodel_answered(
        self, request: ModelRequest, response: Mapping[str, Any], iteration: int = 0
    ) -> None:
        await asyncio.to_thread(self.model_answered, request, response, iteration)

    # A host that applies verdicts itself ----------------------------------------------------

    def relay(self, event: Event, hook_input: Mapping[str, Any]) -> Verdict:
        """`SyncHookSession.relay`, for a host that asks with its own hook input and applies
        the verdict itself (a Claude Code CLI): SessionStart fires before the first
        UserPromptSubmit, and its context joins that verdict's."""
        self.hooks.session.adopt(hook_input)
        if event is Event.UserPromptSubmit:
            self.start()
        verdict = self.hooks.relay(event, hook_input)
        texts = self.take_context()
        if texts:
            verdict = replace(verdict, additional_context=(*texts, *verdict.additional_context))
        return verdict

    # Tools ------------------------------------------------------------------------------------

    def before_tool(self, tool_name: str, tool_input: Mapping[str, Any], call_id: str) -> ToolStep:
        """PreToolUse (and PermissionRequest when a hook asks), once per `call_id`; fails
        closed: when the hooks cannot run, the call is answered with why and never runs."""
        with self._lock:
            known = self._steps.get(call_id)
        if known is not None:
            return known
        try:
            step = self._decide(tool_name, tool_input, call_id)
        except Exception as exc:
            why = f"hookwright could not run the PreToolUse hooks: {exc}"
            step = ToolStep(call_id, answer=refused(why))
        with self._lock:
            return self._steps.setdefault(call_id, step)

    def _decide(self, tool_name: str, tool_input: Mapping[str, Any], call_id: str) -> ToolStep:
        decision: ToolDecision = self.hooks.before_tool(tool_name, tool_input, call_id)
        self.queue(decision.context)
        self._end_turn(Event.PreToolUse, decision.end)
        self._end_turn(Event.PreToolUse, _stopped(decision.stop_after))
        action = decision.action
        if decision.end is not None:
            return ToolStep(call_id, answer=refused("Tool call aborted by hook."))
        match action:
            case Run():
                return self._run(tool_name, action, call_id)
            case Deny(message=message):
                return ToolStep(call_id, answer=refused(message))
            case Respond(result=result):
                return ToolStep(call_id, answer=self.shown(Event.PreToolUse, result))
            case Ask():
                return self._permission(tool_name, action, call_id)
            case Defer():
                self.unexpressed(Event.PreToolUse, "defer")
                return ToolStep(call_id, answer=refused("Tool call deferred."))

    def _run(self, tool_name: str, action: Run, call_id: str) -> ToolStep:
        if action.tool_name != tool_name:
            self.unexpressed(Event.PreToolUse, f"running {action.tool_name} instead of {tool_name}")
            return ToolStep(call_id, answer=refused(f"A hook redirected {tool_name}; not run."))
        return ToolStep(call_id, run=action)

    def permission(self, ask: Ask, call_id: str) -> ToolStep:
        """PermissionRequest for a call the host needs approved (its permission prompt would
        show): a step that runs, answers with the refusal, or (with `Abilities.ask_user`) asks
        the user. Fails closed like `before_tool`."""
        try:
            return self._permission(ask.tool_name, ask, call_id)
        except Exception as exc:
            why = f"hookwright could not run the PermissionRequest hooks: {exc}"
            return ToolStep(call_id, answer=refused(why))

    def _permission(self, tool_name: str, ask: Ask, call_id: str) -> ToolStep:
        verdict: PermissionDecision = self.hooks.permission(
            ask.tool_name, ask.tool_input, call_id, prompt=True
        )
        self._end_turn(Event.PermissionRequest, verdict.end)
        if verdict.permission_updates:
            self.unexpressed(Event.PermissionRequest, "permission rule updates")
        if verdict.behavior == "deny":
            return ToolStep(call_id, answer=refused(verdict.message or "Permission denied."))
        if verdict.behavior == "allow":
            run_input = verdict.tool_input if verdict.tool_input is not None else ask.tool_input
            return self._run(tool_name, Run(ask.tool_name, run_input, approved=True), call_id)
        if self.abilities.ask_user:
            return ToolStep(call_id, ask=ask)
        self.unexpressed(Event.PreToolUse, "ask (no user to ask; the call is refused)")
        return ToolStep(call_id, answer=refused(ask.reason or f"{tool_name} needs approval."))

    def resolve(self, step: ToolStep, approved: bool, message: str | None = None) -> ToolStep:
        """The user's answer to `step.ask`."""
        ask = step.ask
        if ask is None:
            return step
        if approved:
            return ToolStep(step.call_id, run=Run(ask.tool_name, ask.tool_input, approved=True))
        text = message or f"The user did not allow {ask.tool_name}."
        return ToolStep(step.call_id, answer=refused(text))

    def after_tool(self, step: ToolStep, ran: ToolResult, duration_ms: float) -> ToolResult:
        """PostToolUse (PostToolUseFailure for an error) of a call that ran: what the model
        sees, with a blocking hook's feedback appended; context is queued."""
        action = step.run
        if action is None:
            return ran
        after = self.hooks.after_tool(
            action.tool_name, action.tool_input, step.call_id, ran, duration_ms=duration_ms
        )
        self.queue(after.context)
        self._end_turn(Event.PostToolUse, after.end or _stopped(after.stop_after))
        shown = self.shown(Event.PostToolUse, after.result)
        if after.feedback is not None:
            text = f"{shown.content}\n\nPostToolUse hook feedback:\n{after.feedback}"
            shown = replace(shown, content=text)
        return shown

    def shown(self, event: Event, result: ToolResult) -> ToolResult:
        """What the model sees of a hook-supplied result; what it carries for the user has no
        channel in a framework and is reported."""
        if result.for_user or (result.response_handled and result.media):
            self.unexpressed(event, "for_user / media of a tool result (no channel to the user)")
        if result.response_handled:
            self._end_turn(event, EndTurn("stopped", "the tool answered the user"))
        if result.media and not result.response_handled:
            lines = [result.content, *(f"[{ref}]" for ref in result.media)]
            return replace(result, content="\n".join(lines))
        return result

    # Async twins for a framework's async path ---------------------------------------------------

    async def aprompt(self, prompt: str) -> EndTurn | None:
        return await asyncio.to_thread(self.prompt, prompt)

    async def astop(self, last_assistant_message: str) -> str | None:
        return await asyncio.to_thread(self.stop, last_assistant_message)

    async def abefore_tool(
        self, tool_name: str, tool_input: Mapping[str, Any], call_id: str
    ) -> ToolStep:
        return await asyncio.to_thread(self.before_tool, tool_name, tool_input, call_id)

    async def aafter_tool(self, step: ToolStep, ran: ToolResult, duration_ms: float) -> ToolResult:
        return await asyncio.to_thread(self.after_tool, step, ran, duration_ms)

    async def aclose(self, reason: str = "other") -> None:
        await asyncio.to_thread(self.close, reason)


def _stopped(reason: str | None) -> EndTurn | None:
    return None if reason is None else EndTurn("stopped", reason)
