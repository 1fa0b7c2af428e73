"""`FrameworkSession`: the framework-neutral half of every adapter (`hookwright.adapters`).

An adapter only translates between a framework's callbacks and this class. Everything else is
here: one `SyncHookSession`, usable from any thread or event loop (the ``a*`` twins run the
blocking call in a worker thread, so a framework's async path never blocks its loop and never
meets the session's own loop); SessionStart once; hook context queued for the next model call;
one `ToolStep` per tool call (PreToolUse, then PermissionRequest: with ``permission_prompt:
false`` for a call the hooks let run, so approval gates such as PicoClaw's `approve_tool` see
every call as in the reference agent, and with a prompt when a hook asks), kept per call id so
a replayed step never runs the hooks twice; the result the model should see after a tool ran;
the model-call hooks around each model call; skill prompt hooks (`skills=`, framework_skills.py)
placed into each model call; Stop feedback; and every decision field the framework cannot
express reported through `HookSession.unexpressed` (warning + audit) instead of being dropped.
A framework that applies verdicts itself in Claude Code's format (the claude-agent-sdk CLI)
uses `relay` and `permission` instead of the tool steps.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from hookwright.core.audit_detail import PermissionSource
from hookwright.core.events import Event
from hookwright.core.results import Decision, Verdict
from hookwright.host.decisions import (
    Ask,
    Checkpoint,
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
from hookwright.host.framework_skills import SkillTurns, load_skills, unplaced
from hookwright.host.not_run import NotRun
from hookwright.host.open import add_skill_hooks
from hookwright.host.sync import SyncHookSession

T = TypeVar("T")
log = logging.getLogger("hookwright")
#: How many calls a relaying host's approval gates allowed are remembered until the host
#: prompts about them (it prompts right after PreToolUse, if at all).
GATED_CALLS_KEPT = 256


@dataclass(frozen=True, slots=True)
class Abilities:
    """What a framework can express. A decision that needs anything else is reported
    (`HookSession.unexpressed`) and applied as closely as the framework allows."""

    framework: str
    #: Pause the run for the user's approval (an interrupt) when a hook asks.
    ask_user: bool = False
    #: End the turn after a tool result (`continue: false`, an abort).
    end_turn: bool = False
    #: The adapter sees each model call (`model_call`); False for a host that runs its own
    #: agent loop (a CLI), where only the prompt's context reaches the model.
    model_calls: bool = True


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
        #: The Interrupt hooks ran for this turn's cancellation (`interrupted`).
        self._interrupted = False
        self._skills: SkillTurns | None = None
        #: Calls whose approval gates `relay` asked and which they allowed (insertion order).
        self._gated: dict[str, None] = {}

    @classmethod
    def open(
        cls,
        project_dir: Path,
        abilities: Abilities,
        *,
        skills: Sequence[str] = (),
        **options: Any,
    ) -> FrameworkSession:
        """`HookSession.open(project_dir, **options)` on a loop of its own (`SyncHookSession`),
        with the skill prompt hooks of `skills` (``<project>/skills/<name>``, as
        ``hookwright run --skill NAME``). Raises what `HookSession.open` raises (e.g. a bad
        trust file); a skill that cannot load is a diagnostic and a warning."""
        session = cls(SyncHookSession.open(project_dir, **options), abilities)
        session.hooks.session.engine.audit.describe(host=abilities.framework)
        session._load_skills(project_dir.resolve(), skills)
        return session

    def _load_skills(self, project_dir: Path, skills: Sequence[str]) -> None:
        hook_session = self.hooks.session
        trusted = hook_session.opened is not None and hook_session.opened.trusted
        hooks, problems = load_skills(project_dir, skills, trusted)
        for problem in problems:
            log.warning("%s: %s", self.abilities.framework, problem)
        hook_session.diagnostics = (*hook_session.diagnostics, *problems)
        if not hooks:
            return
        # Unscoped: the session's engine is its own, and a CLI names its session at its first
        # hook call (`relay` adopts that id).
        add_skill_hooks(hook_session.engine, hooks, None, hook_session.effective_failure_policy())
        self._skills = SkillTurns()
        for hook in unplaced(hooks, self.abilities.model_calls):
            event = Event.PrePlanning if hook.timing == "before_planning" else Event.PreModelCall
            what = f"the skill prompt hook {hook.skill}/{hook.name} ({hook.timing}; no such point)"
            self.unexpressed(event, what)

    @property
    def diagnostics(self) -> tuple[str, ...]:
        return self.hooks.diagnostics

    @property
    def skipped(self) -> tuple[NotRun, ...]:
        """Every declared hook that will not run, and why (`HookSession.skipped`)."""
        return self.hooks.skipped

    def unexpressed(self, event: Event, what: str) -> bool:
        """Report what the framework cannot apply (a warning and an audit record). True when a
        hook of `event` fails closed (``on_error: block``): the caller then refuses the call
        (or ends the turn) instead of applying the decision in part."""
        closed = self.fails_closed(event)
        if closed:
            what = f"{what} (refused instead: a hook of this event fails closed)"
        self.hooks.session.unexpressed(event, what, self.abilities.framework)
        return closed

    def fails_closed(self, event: Event) -> bool:
        return any(spec.on_error == "block" for spec in self.hooks.session.engine.hooks(event))

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
            self._interrupted = False
        if checkpoint.end is not None:
            return checkpoint.end
        self.queue(checkpoint.context)
        skills = self._skills
        if skills is not None:
            self.queue(skills.begin(checkpoint.prompts))
        elif checkpoint.prompts:
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

    def interrupted(self) -> None:
        """The framework's run was cancelled (a cancelled task, Ctrl-C, an aborted stream):
        the Interrupt hooks run, as the reference agent runs them (`HookSession.interrupt`:
        Codex's payload, each hook bounded by its own timeout), once per turn however many of
        the turn's callbacks saw the cancellation."""
        with self._lock:
            if self._interrupted:
                return
            self._interrupted = True
        self.hooks.interrupt()

    def interruptible(self, call: Callable[[], T]) -> T:
        """`call()`; when Ctrl-C (`KeyboardInterrupt`) interrupts it, `interrupted`, then the
        interruption goes on to the caller unchanged."""
        try:
            return call()
        except KeyboardInterrupt:
            self.interrupted()
            raise

    async def ainterruptible(self, work: Awaitable[T]) -> T:
        """`await work`; when its task is cancelled (or Ctrl-C lands inside it),
        `interrupted`, then the cancellation goes on to the caller unchanged. The hooks run
        on the session's own loop, so cancelling the caller again cannot cut them short."""
        try:
            return await work
        except (asyncio.CancelledError, KeyboardInterrupt):
            await asyncio.to_thread(self.interrupted)
            raise

    def close(self, reason: str = "other") -> None:
        """SessionEnd, then the hook processes stop. Idempotent."""
        self.hooks.close(reason)

    # Model calls ------------------------------------------------------------------------------

    def model_call(self, request: ModelRequest, iteration: int = 0) -> tuple[str, ...]:
        """PreContextBuild, PostContextBuild and PreModelCall before a framework's model call
        (`request.messages` in chat format): the hook context to put into this very call only
        (as the reference agent does). A block ends the turn (`ending`; also when the hooks
        cannot run); a rewritten request is reported: the framework sends its own."""
        injected = self._skill_round(request)
        decision = self.hooks.model_request(request, iteration=iteration)
        if decision.end is not None:
            self._end_turn(Event.PreModelCall, decision.end)
            return ()
        if decision.rewritten:
            what = f"rewriting the model request ({', '.join(decision.rewritten)})"
            if self.unexpressed(Event.PreModelCall, what):
                self._end_turn(Event.PreModelCall, EndTurn("failed", f"{what}: not applied"))
                return ()
        return (*injected, *decision.notes)

    def _skill_round(self, request: ModelRequest) -> tuple[str, ...]:
        """With skills: PostToolBatch (when tools ran since the last call) and PreAgentStep, as
        the reference agent fires them around a round; the skill injections for this call."""
        skills = self._skills
        if skills is None:
            return ()
        batch = skills.take_batch()
        after_tools: Checkpoint | None = self.hooks.tool_batch(batch) if batch else None
        round_index = skills.next_round
        step = self.hooks.checkpoint(
            Event.PreAgentStep,
            round=round_index,
            first=round_index == 1,
            messages=list(request.messages),
        )
        for event, checkpoint in ((Event.PostToolBatch, after_tools), (Event.PreAgentStep, step)):
            if checkpoint is not None:
                self.queue(checkpoint.context)
                self._end_turn(event, checkpoint.end)
        notes, kept = skills.round(step.prompts, after_tools.prompts if after_tools else None)
        self.queue(kept)
        return tuple(notes)

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
            what = "replacing the model's answer"
            if self.unexpressed(Event.PostModelCall, what):
                self._end_turn(Event.PostModelCall, EndTurn("failed", f"{what}: not applied"))

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
            with self._lock:
                self._interrupted = False
        verdict = self.hooks.relay(event, hook_input)
        if event is Event.PreToolUse:
            verdict = self._relayed_approval(verdict, hook_input)
        texts = self.take_context()
        if event is Event.UserPromptSubmit and self._skills is not None:
            texts += [p.content for p in verdict.effects.prompt_injections]
        if texts:
            verdict = replace(verdict, additional_context=(*texts, *verdict.additional_context))
        return verdict

    def _relayed_approval(self, verdict: Verdict, hook_input: Mapping[str, Any]) -> Verdict:
        """The approval gates of a call the PreToolUse hooks let run (`_approval`): the host
        asks its permission callback only where it would prompt, so a gate that must see
        every call is asked here, and its refusal is the PreToolUse denial the host applies.
        A call a hook asks about goes to the host's permission callback (`permission`)."""
        refused_or_asked = verdict.blocked or verdict.decision in (Decision.ask, Decision.defer)
        if refused_or_asked or verdict.respond is not None or verdict.abort is not None:
            return verdict
        name = str(hook_input.get("tool_name") or "")
        tool_input = verdict.updated_input or hook_input.get("tool_input") or {}
        call_id = str(hook_input.get("tool_use_id") or "")
        step = self._approval(ToolStep(call_id, run=Run(name, tool_input)))
        if step.answer is None:
            self._gates_allowed(call_id)
            return verdict
        return replace(verdict, decision=Decision.deny, reason=step.answer.content)

    def _gates_allowed(self, call_id: str) -> None:
        """Remember that the approval gates allowed `call_id`, so that a prompt the host then
        shows for it (`permission`) does not ask them again."""
        if not call_id:
            return
        with self._lock:
            self._gated[call_id] = None
            while len(self._gated) > GATED_CALLS_KEPT:
                del self._gated[next(iter(self._gated))]

    # Tools ------------------------------------------------------------------------------------

    def before_tool(self, tool_name: str, tool_input: Mapping[str, Any], call_id: str) -> ToolStep:
        """PreToolUse, then PermissionRequest (see `_approval`), once per `call_id`; fails
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
            known = self._steps.get(call_id)
            if known is not None:
                return known
            self._steps[call_id] = step
        if step.answer is not None and self._skills is not None:
            self._skills.tool_done(tool_name, dict(tool_input), call_id, step.answer.content)
        return step

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
                return self._approval(self._run(tool_name, action, call_id))
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

    def _approval(self, step: ToolStep) -> ToolStep:
        """PermissionRequest with ``permission_prompt: false`` for a call the hooks let run, as
        the reference agent fires it for a call its rules allow: approval gates (PicoClaw
        `approve_tool`) see every call and can refuse it, with the text the reference agent
        gives the model; Claude Code PermissionRequest hooks only fire where a prompt would
        show. A gate that cannot run refuses the call (`SyncHookSession` fails closed)."""
        action = step.run
        if action is None or not self.hooks.session.engine.hooks(Event.PermissionRequest):
            return step  # no PermissionRequest hook: skip the round trip to the session's loop
        verdict = self.hooks.permission(
            action.tool_name, action.tool_input, step.call_id, prompt=False
        )
        if verdict.end is not None:
            self._end_turn(Event.PermissionRequest, verdict.end)
            return ToolStep(step.call_id, answer=refused("Permission denied; interrupted."))
        if verdict.behavior == "deny":
            text = verdict.message or f"Permission to use {action.tool_name} was denied"
            return ToolStep(step.call_id, answer=refused(text))
        return step

    def permission(self, ask: Ask, call_id: str) -> ToolStep:
        """PermissionRequest for a call the host needs approved (its permission prompt would
        show): a step that runs, answers with the refusal, or (with `Abilities.ask_user`) asks
        the user. Fails closed like `before_tool`. The approval gates `relay` already asked
        about this call are not asked again: only the hooks that fire on a prompt run."""
        with self._lock:
            gates_asked = call_id in self._gated
            self._gated.pop(call_id, None)
        try:
            return self._permission(ask.tool_name, ask, call_id, gates_asked)
        except Exception as exc:
            why = f"hookwright could not run the PermissionRequest hooks: {exc}"
            return ToolStep(call_id, answer=refused(why))

    def _permission(
        self, tool_name: str, ask: Ask, call_id: str, gates_asked: bool = False
    ) -> ToolStep:
        verdict: PermissionDecision = self.hooks.permission(
            ask.tool_name, ask.tool_input, call_id, prompt=True, gates_asked=gates_asked
        )
        self._end_turn(Event.PermissionRequest, verdict.end)
        if verdict.permission_updates and self.unexpressed(
            Event.PermissionRequest, "permission rule updates"
        ):
            return ToolStep(call_id, answer=refused(_not_expressed("permission rule updates")))
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
        """The user's answer to `step.ask` (audited, `answered`)."""
        ask = step.ask
        if ask is None:
            return step
        self.answered(ask, step.call_id, approved)
        if approved:
            return ToolStep(step.call_id, run=Run(ask.tool_name, ask.tool_input, approved=True))
        text = message or f"The user did not allow {ask.tool_name}."
        return ToolStep(step.call_id, answer=refused(text))

    def answered(self, ask: Ask, call_id: str, approved: bool) -> None:
        """Audit a person's answer to a permission prompt the framework showed (its approval
        callback or interrupt): a ``Permission`` record by ``person`` on channel
        ``callback``, its reason naming the framework."""
        session = self.hooks.session
        mode = session.identity.permission_mode or "default"
        source = PermissionSource("person", "user", mode, channel="callback")
        behavior: Literal["allow", "deny"] = "allow" if approved else "deny"
        verb = "allowed" if approved else "denied"
        reason = f"{verb} by user ({self.abilities.framework} callback)"
        session.permission_outcome(ask.tool_name, ask.tool_input, call_id, behavior, reason, source)

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
        if self._skills is not None:
            self._skills.tool_done(
                action.tool_name, dict(action.tool_input), step.call_id, shown.content
            )
        return shown

    def shown(self, event: Event, result: ToolResult) -> ToolResult:
        """What the model sees of a hook-supplied result; what it carries for the user has no
        channel in a framework and is reported."""
        if result.for_user or (result.response_handled and result.media):
            what = "for_user / media of a tool result (no channel to the user)"
            if self.unexpressed(event, what):
                return refused(_not_expressed("text for the user"))
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


def _not_expressed(what: str) -> str:
    return (
        f"hookwright refused the call: a fail-closed hook answered with {what}, which this "
        "framework cannot apply."
    )
