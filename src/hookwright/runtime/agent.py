"""The reference agent: one loop that fires every canonical event at the right moment.

    SessionStart
    run(prompt):
      UserPromptSubmit (+ skill after_user_input)
      [planning round: PrePlanning (+ skill before_planning) -> model call without tools]
      agent rounds:
        PreAgentStep (+ skill before_each_agent / before_first_agent, step prompt)
        [compaction: PreCompact -> summary -> PostCompact]
        PreContextBuild -> PostContextBuild -> PreModelCall -> model -> PostModelCall
        tool calls, in the tool step (`tool_step.py`):
          each call: PreToolUse -> permission rules/mode -> PermissionRequest -> execute
                     -> PostToolUse | PostToolUseFailure
          PostToolBatch (+ skill after_tool_call per tool)
        no tool calls: Stop (block -> continue with the reason, at most 8 in a row)
      model error: StopFailure
    interrupted() (the person cancelled the running turn): Interrupt
    close(): SessionEnd

Each checkpoint asks the public host API (`hookwright.host.HookSession`) for a typed decision
and applies it: run / deny / respond / ask / defer for a tool call, the rewritten request for a
model call, context for the next call, the turn's end. The agent never reads a verdict. Inside a
subagent the same loop runs with `agent_id`/`agent_type` on every input and SubagentStop
instead of Stop.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.host import (
    DEFAULT_STOP_BLOCK_CAP,
    Checkpoint,
    EndTurn,
    Event,
    FailurePolicy,
    HookEngine,
    HookInfo,
    HookSession,
    ModelRequest,
    PromptChannel,
    PromptFlow,
    PromptInjection,
    SessionIdentity,
    reminder,
)
from hookwright.host.open import NEWEST, ClaudeCodeProfile
from hookwright.runtime import transcript as transcripts
from hookwright.runtime.model_command import MODEL_COMMAND, model_command
from hookwright.runtime.models import Model, ModelError, ModelResponse, ToolCall, refs
from hookwright.runtime.models.base import BESIDE_CALL
from hookwright.runtime.observation import TurnRecord
from hookwright.runtime.permissions import PermissionMode, PermissionPolicy
from hookwright.runtime.resume_cost import resume_cost
from hookwright.runtime.skill_commands import (
    MODEL_NAME,
    ShellCommandRefused,
    Skill,
    expand,
    find_skill,
)
from hookwright.runtime.subagent import SUBAGENT_PROMPT_DIALECTS
from hookwright.runtime.teammate import Teammate, idle_feedback
from hookwright.runtime.tool_step import AskUser as AskUser  # hosts import it from here
from hookwright.runtime.tool_step import ToolStep
from hookwright.runtime.tools import ToolContext, ToolRegistry
from hookwright.runtime.turn_end import TurnEnded, TurnStatus, end_turn_if

AgentEvent = dict[str, Any]
EventSink = Callable[[AgentEvent], None]
#: Called before each model call with the session id; returns context texts to deliver (e.g.
#: what asynchronous hooks reported since the last call).
ContextSource = Callable[[str], list[str]]

DEFAULT_SYSTEM_PROMPT = (
    "You are hookwright's reference coding agent. Use the tools to inspect and change files in "
    "the working directory; answer concisely."
)
PLANNING_PROMPT = (
    "Before acting, decide whether tools are needed. If you can answer directly, answer the "
    "user now. If tools are needed, reply with a short plan whose first line is exactly "
    "`PLAN: tools`."
)
STEP_PROMPT = "Carry out the next step. Call tools when needed; when done, answer the user."
COMPACT_PROMPT = (
    "Summarize the conversation so far for a continuation: the user's goals, decisions, files "
    "touched, and what remains. Be complete but brief."
)
#: Recorded after a turn the person interrupted, as Claude Code records it.
INTERRUPTED_TEXT = "[Request interrupted by user]"
#: Stored as the assistant's reply when every tool result of a round already answered the user.
HANDLED_REPLY = "The tools delivered the response to the user."


@dataclass(slots=True)
class AgentConfig:
    project_dir: Path
    home: Path
    cwd: Path | None = None
    permission_mode: PermissionMode = "default"
    max_turns: int = 20
    planning: bool = False
    #: Estimated tokens (chars / 4) of the history above which the context is compacted.
    compact_tokens: int = 100_000
    keep_recent: int = 4
    interactive: bool = False
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    #: Whether the repository's own hook definitions may run (subagent frontmatter hooks).
    project_trusted: bool = False
    skill_hooks: list[HookInfo] = field(default_factory=list)
    model_options: dict[str, Any] = field(default_factory=dict)
    channel: str = "cli"
    #: The model's reasoning effort level, sent to Claude Code hooks as `{"level": effort}`.
    effort: str | None = "high"
    #: The settings files' `effortLevel` (None: unset); a turn on another model (a skill's
    #: frontmatter ``model``) sends hooks the level `claude_code` gives that model with it.
    effort_setting: str | None = None
    #: The Claude Code version whose wording hooks' answers reach the model in.
    claude_code: ClaudeCodeProfile = NEWEST
    #: Consecutive Stop blocks honoured before stopping anyway; 0 disables the cap.
    stop_block_cap: int = field(default_factory=lambda: AgentConfig.default_stop_block_cap())
    #: Claude Code settings `env` (trusted files only): Bash commands run with it.
    settings_env: dict[str, str] = field(default_factory=dict)
    #: What fails closed among the hooks added as the session runs (skill prompt hooks, a
    #: subagent's frontmatter hooks); None: read from the policy files when they are added.
    failure_policy: FailurePolicy | None = None
    #: The agent team member this session runs as (TeammateIdle fires when it would stop).
    teammate: Teammate | None = None

    @staticmethod
    def default_stop_block_cap() -> int:
        return env_flag_int("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", DEFAULT_STOP_BLOCK_CAP)

    @property
    def working_dir(self) -> Path:
        return self.cwd or self.project_dir


@dataclass(slots=True)
class TurnResult:
    status: TurnStatus
    final_text: str = ""
    reason: str | None = None
    rounds: int = 0


def new_turn_id() -> str:
    """A fresh id for a user turn (Codex's hook inputs name the turn they belong to)."""
    return f"turn-{uuid.uuid4().hex[:12]}"


def _estimate_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m, ensure_ascii=False, default=str)) for m in messages) // 4


class Agent:
    #: What starts every session (set per instance as the session goes on).
    last_assistant_message: str = ""
    _idle_blocks: int = 0
    closed: bool = False

    def __init__(
        self,
        engine: HookEngine,
        model: Model,
        tools: ToolRegistry,
        config: AgentConfig,
        *,
        policy: PermissionPolicy | None = None,
        session_id: str | None = None,
        messages: list[dict[str, Any]] | None = None,
        on_event: EventSink | None = None,
        ask_user: AskUser | None = None,
        prompt_channel: PromptChannel = "callback",
        agent_id: str | None = None,
        agent_type: str | None = None,
        transcript_file: Path | None = None,
    ) -> None:
        self.engine = engine
        self.model = model
        self.tools = tools
        self.config = config
        self.policy = policy or PermissionPolicy(
            mode=config.permission_mode, project_dir=config.project_dir, home=config.home
        )
        self.session_id = session_id or str(uuid.uuid4())
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.on_event = on_event
        self.ask_user = ask_user
        self.prompt_channel: PromptChannel = prompt_channel
        self.env_files: list[Path] = []
        #: The files the model has read or written in this session.
        self.files_in_context: set[Path] = set()
        self.models = refs.ModelSwitch(config.project_dir)
        #: The name the session's model is called with, when `/model` chose one.
        self._model_name: str | None = None
        #: The effort level the hooks read outside a turn on a skill's model.
        self.session_effort = config.effort
        #: The model the running turn's requests go to, when the skill it typed names one.
        self._turn_model: str | None = None
        #: For PreModelSwitch: the last model call's tokens, and when it answered (epoch s).
        self.context_tokens = 0
        self.answered_at: float | None = None
        self._pending_context: list[str] = []
        self._pending_beside: list[tuple[str, str]] = []  # (call id, text): `queue_call_context`
        self._initial_message: str | None = None
        self._iteration = 0
        self._turn_record = TurnRecord("", str(config.working_dir))
        self.context_sources: list[ContextSource] = []
        self.closers: list[Callable[[], Awaitable[None]]] = []
        #: The skills invoked in this session (their frontmatter hooks are registered).
        self.invoked_skills: set[Path] = set()
        self._start_dir = config.working_dir
        self.transcript = self._open_transcript(transcript_file)
        self.hooks = self._session_hooks()
        self.tool_step = ToolStep(self, self.hooks, tools, self.policy, ask_user, prompt_channel)
        self.messages: list[dict[str, Any]] = []
        self._agents_note = self._open_history(messages)

    def _open_history(self, messages: list[dict[str, Any]] | None) -> str | None:
        """The history the session starts from (`messages` when resumed, else the system
        prompt), and Claude Code's note on launching subagents still to go to the model after
        the first prompt: the session's model when it opened decides (measured: a `/model`
        switch or a skill's model before the first prompt changes nothing); a resumed history
        holds it already."""
        if messages:
            self.messages = list(messages)
            return None
        self.record({"role": "system", "content": self.config.system_prompt})
        return self.hooks.claude_code.concurrency_note(self.model.name)

    def _open_transcript(self, file: Path | None) -> transcripts.Transcript:
        """The session's transcript: `file`, else its place under the user's home."""
        config = self.config
        path = file or transcripts.transcript_path(config.home, config.project_dir, self.session_id)
        return transcripts.Transcript(
            path, self.session_id, str(config.working_dir), sidechain=self.agent_id is not None
        )

    def _session_hooks(self) -> HookSession:
        """The session's hooks, with who and where this agent is on every input."""
        config = self.config
        hooks = HookSession(
            self.engine,
            SessionIdentity(
                session_id=self.session_id,
                cwd=str(config.working_dir),
                project_dir=str(config.project_dir),
                transcript_path=str(self.transcript.path),
                permission_mode=self.policy.mode,
                agent_id=self.agent_id,
                agent_type=self.agent_type,
                channel=config.channel,
                effort=config.effort,
            ),
            report=self.emit,
            stop_block_cap=config.stop_block_cap,
            failure_policy=config.failure_policy,
            claude_code=config.claude_code,
        )
        if config.skill_hooks:
            hooks.add_skill_hooks(config.skill_hooks)
        return hooks

    # Plumbing -------------------------------------------------------------------------------

    @property
    def transcript_path(self) -> str:
        return str(self.transcript.path)

    @property
    def turn_id(self) -> str | None:
        return self.hooks.identity.turn_id

    @turn_id.setter
    def turn_id(self, value: str | None) -> None:
        self.hooks.identity.turn_id = value

    @property
    def prompt_id(self) -> str | None:
        return self.hooks.identity.prompt_id

    @prompt_id.setter
    def prompt_id(self, value: str | None) -> None:
        self.hooks.identity.prompt_id = value
        self.transcript.prompt_id = value

    @property
    def working_dir(self) -> Path:
        return self.config.working_dir

    @property
    def interactive(self) -> bool:
        return self.config.interactive

    @property
    def channel(self) -> str:
        return self.config.channel

    @property
    def model_name(self) -> str:
        """The model name the next model call uses."""
        return self._turn_model or self._model_name or self.model.name

    @property
    def request_model_name(self) -> str:
        """`model_name` as the Claude Code profile sends it: a version's name for a model as
        that model (``opusplan`` by the permission mode), a ``[1m]`` tag left off."""
        planning = self.policy.mode == "plan"
        return self.hooks.claude_code.request_model(self.model_name, planning=planning)

    def use_model(self, model: Model, name: str) -> None:
        """Later model calls go to `model`, called `name` (`/model`, a subagent's own model);
        the hooks read the effort the Claude Code profile gives that model (measured: the
        settings' `effortLevel` if set, else the model's default, for both)."""
        self.model = model
        self._model_name = None if name == model.name else name
        profile = self.hooks.claude_code
        self.session_effort = profile.effort_for(name, self.config.effort_setting)
        self.hooks.identity.effort = self.session_effort

    def tool_context(self) -> ToolContext:
        return ToolContext(
            cwd=self.config.working_dir,
            session_id=self.session_id,
            env=dict(self.config.settings_env) or None,
            env_files=list(self.env_files),
            project_dir=self.config.project_dir,
            files_in_context=self.files_in_context,
            marks_unread_edits=self.hooks.claude_code.marks_unread_edits,
            plain_hint_extensions=self.hooks.claude_code.plain_hint_extensions,
        )

    def tool_ran(self, name: str, content: str, is_error: bool) -> None:
        self._turn_record.record_tool(name, content, is_error)

    def after_running_tool(self, action: Callable[[], Awaitable[None]]) -> bool:
        """Run ``action`` once the tool now running has had its PostToolUse (or
        PostToolUseFailure); False, and nothing kept, when no tool is running."""
        return self.tool_step.after_running_tool(action)

    def move_to(self, cwd: Path) -> None:
        """The shell's working directory changed: later tools, hook inputs and hook processes
        and the transcript's lines use it."""
        self.config.cwd = cwd
        self.hooks.identity.cwd = str(cwd)
        self.transcript.cwd = str(cwd)

    def emit(self, event_type: str, /, **data: Any) -> None:
        if self.on_event is not None:
            event: AgentEvent = {"type": event_type, **data}
            if self.agent_id:
                event["agent_id"] = self.agent_id
            self.on_event(event)

    def observe(self, kind: str, fields: dict[str, Any]) -> None:
        self.hooks.observe(kind, fields, self._iteration)

    def model_retry(self, attempt: int, error: ModelError, delay: float) -> None:
        """A transient model error is being retried: the streamed text starts over."""
        self.observe(
            "agent.llm.retry",
            {
                "Attempt": attempt,
                "MaxRetries": 3,
                "Reason": error.kind,
                "Error": str(error),
                "Backoff": int(delay * 1e9),
            },
        )
        self.emit(
            "notice",
            text=f"model error {error.kind}; retry {attempt} in {delay:.1f}s (text restarts)",
        )

    def record(self, message: dict[str, Any], **meta: Any) -> None:
        self.messages.append(message)
        self.transcript.message(message, **meta)

    def queue_context(self, texts: Sequence[str]) -> None:
        """Hook paragraphs for the model, placed by the next `flush_context`."""
        self._pending_context.extend(texts)

    def queue_call_context(self, call_id: str, texts: Sequence[str]) -> None:
        """Tool hook paragraphs their dialect shows beside the call (Codex: a developer message
        between the call and its output), placed by the next `flush_context`."""
        self._pending_beside.extend((call_id, text) for text in texts)

    def _use_env_files(self, paths: Sequence[str]) -> None:
        for path in paths:
            candidate = Path(path)
            if candidate not in self.env_files:
                self.env_files.append(candidate)

    def flush_context(self) -> None:
        """Put the queued hook paragraphs (and what async hooks reported) into the history as
        one system message, as Claude Code does after the prompt and after tool results.

        Paragraphs shown beside a call come first, and the message lists them with their call
        (`BESIDE_CALL`): chat completions allow no message between a call and its output, so
        the history keeps them after the tool results, and a Responses API model moves each
        next to its call."""
        beside, self._pending_beside = self._pending_beside, []
        for source in self.context_sources:
            self._pending_context.extend(source(self.session_id))
        texts = [text for _, text in beside] + self._pending_context
        self._pending_context = []
        if not texts:
            return
        message: dict[str, Any] = {"role": "system", "content": "\n\n".join(texts)}
        if beside:
            message[BESIDE_CALL] = [[call_id, text] for call_id, text in beside]
        self.record(message)

    def open_with(self, texts: Sequence[str]) -> None:
        """SessionStart (a subagent's SubagentStart) paragraphs whose dialect shows them ahead
        of the next prompt (Codex's developer messages): a system message each, in the
        history now."""
        for text in texts:
            self.record({"role": "system", "content": text})

    # Session --------------------------------------------------------------------------------

    async def start(self, source: str = "startup") -> None:
        audit = self.engine.audit.path
        self.emit(
            "session_start",
            session_id=self.session_id,
            transcript=self.transcript_path,
            model=refs.model_ref(self.model),
            audit=str(audit) if audit is not None else None,
        )
        cost = None
        if source in ("resume", "fork"):
            last = transcripts.last_response(self.transcript.path)
            self.answered_at = None if last is None else last.at
            if self.hooks.claude_code.resume_cost:
                profile = self.hooks.claude_code
                cost = resume_cost(last, self.model_name, time.time(), profile)
                self.context_tokens = cost.context_tokens
        decision = await self.hooks.start(source, resume_cost=cost)
        self.open_with(decision.before_prompt)
        self.queue_context(decision.after_prompt)
        self._use_env_files(decision.env_files)
        if not self.config.interactive:
            self._initial_message = decision.initial_user_message

    async def start_interruptible(self, source: str = "startup") -> None:
        """`start(source)`, where cancelling the calling task (Ctrl-C while the SessionStart
        hooks run) does what Codex CLI 0.171.0 does (measured): the SessionStart hooks are
        stopped, no prompt is submitted, the Interrupt hooks run, naming the turn that was
        beginning, and the cancellation goes on; the caller then ends the session."""
        try:
            await self.start(source)
        except asyncio.CancelledError:
            self.turn_id = self.turn_id or new_turn_id()
            await self.hooks.interrupt()
            raise

    async def close(self, reason: str = "other") -> None:
        if self.closed:
            return
        self.closed = True
        try:
            await self.hooks.end(reason)
        finally:
            for closer in self.closers:
                await closer()
            self.transcript.close()
            self.emit("session_end", session_id=self.session_id, reason=reason)

    # One user turn ---------------------------------------------------------------------------

    async def run(self, prompt: str) -> TurnResult:
        """Answer one user prompt. Each prompt gets a fresh `prompt_id`; without a person at
        the terminal the shell starts again from the session's first directory, as in
        `claude -p` with several prompts (interactive Claude Code keeps it). A SessionStart
        hook's `initialUserMessage` is answered first, as a prompt of its own (`claude -p`)."""
        if self._initial_message is not None:
            first, self._initial_message = self._initial_message, None
            await self.run(first)
        if self.agent_id is None or self.turn_id is None:  # a subagent's turn is named already
            self.turn_id = new_turn_id()
        if self.agent_id is None:
            self.prompt_id = str(uuid.uuid4())
            if not self.config.interactive:
                self.move_to(self._start_dir)
        self.hooks.identity.permission_mode = self.policy.mode
        command = MODEL_COMMAND.fullmatch(prompt.strip()) if self.agent_id is None else None
        if command is not None:
            text = await model_command(self, command.group(1))
            self.emit("command_output", command="/model", text=text)
            self.emit("turn_end", status="completed", text=text, reason=None)
            return TurnResult("completed", text)
        turn_start = len(self.messages)
        self._iteration = 0
        self._turn_record = TurnRecord(prompt, str(self.config.working_dir))
        self.observe("agent.turn.start", {"UserMessage": prompt, "MediaCount": 0})
        flow: PromptFlow | None = None
        result: TurnResult
        rollback = False
        try:
            submitted = await self._submit(prompt)
            self.flush_context()
            if self.config.skill_hooks:
                flow = PromptFlow(self.messages, self._skill_injected)
                self._skill_events(flow.start(submitted.prompts))
            result = await self._turn(prompt, flow)
        except TurnEnded as ended:
            if ended.rollback:
                del self.messages[turn_start:]
                self.transcript.rollback(len(self.messages))
            elif len(self.messages) > turn_start:
                self._close_open_tool_calls(ended.reason or ended.status)
                self.flush_context()
            result = TurnResult(ended.status, reason=ended.reason)
            rollback = ended.rollback
        finally:
            self._turn_model = None
            self.hooks.identity.effort = self.session_effort
            if flow is not None:
                self._skill_events(flow.finish())
        self.observe(
            "agent.turn.end",
            self._turn_record.end_fields(
                result.status, rollback, result.final_text, self._iteration
            ),
        )
        self.emit("turn_end", status=result.status, text=result.final_text, reason=result.reason)
        return result

    async def run_interruptible(self, prompt: str) -> TurnResult:
        """`run(prompt)`, where cancelling the calling task (Ctrl-C, the page's stop)
        interrupts the turn: `interrupted`, then the cancellation goes on."""
        try:
            return await self.run(prompt)
        except asyncio.CancelledError:
            await self.interrupted()
            raise

    async def interrupted(self) -> None:
        """The person interrupted the running turn (its task was cancelled): every open tool
        call gets a result and the history records the interruption in Claude Code's words,
        so the next prompt continues a valid conversation; then the Interrupt hooks are told,
        after the history, as Codex tells them (a hook reading the transcript sees it)."""
        self._pending_context, self._pending_beside = [], []
        self._close_open_tool_calls("interrupted by user")
        self.record({"role": "user", "content": INTERRUPTED_TEXT})
        if self.agent_id is None:
            await self.hooks.interrupt()
        self.emit("turn_end", status="aborted", text="", reason="interrupted by user")

    def _prompt_gate(self, end: EndTurn | None, prompt: str) -> None:
        """End the turn before the prompt is recorded when a UserPromptSubmit hook said so; a
        block is shown to the user in Claude Code's words."""
        if end is not None and end.status == "blocked":
            message = (
                f"UserPromptSubmit operation blocked by hook:\n{end.reason}\n\n"
                f"Original prompt: {prompt}"
            )
            self.emit("prompt_blocked", reason=end.reason, message=message)
        end_turn_if(end)

    async def _submit(self, prompt: str) -> Checkpoint:
        """UserPromptSubmit, and for a prompt that runs a skill UserPromptExpansion and the
        skill's expansion (before or after it, as the Claude Code profile says); then the
        prompt, or the skill's texts, recorded, and the hooks' context queued after them."""
        invoked = find_skill(self, prompt) if self.agent_id is None else None
        early = self.hooks.claude_code.expansion_first
        texts = [prompt] if invoked is None else None
        if invoked is not None and early:
            texts = await self._expand_skill(prompt, *invoked)
        only = SUBAGENT_PROMPT_DIALECTS if self.agent_id else None
        submitted = await self.hooks.prompt(prompt, dialects=only)
        self._prompt_gate(submitted.end, prompt)
        if invoked is not None and not early:
            texts = await self._expand_skill(prompt, *invoked)
        for text in texts or ():
            self.record({"role": "user", "content": text})
        self._note_agents()
        self.queue_context(submitted.context)
        return submitted

    def _note_agents(self) -> None:
        """After the session's first prompt, Claude Code's note on launching subagents, where
        the session can launch them."""
        note, self._agents_note = self._agents_note, None
        if note is not None and self.agent_id is None and self.tools.get("Agent") is not None:
            self.queue_context([note])

    async def _expand_skill(self, prompt: str, skill: Skill, arguments: str) -> list[str]:
        """UserPromptExpansion, then the skill's texts; a shell command of it without
        permission ends the turn with Claude Code's refusal."""
        await self._prompt_expansion(prompt, skill, arguments)
        if skill.model is not None:
            self._use_skill_model(skill)
        try:
            return await expand(self, skill, arguments)
        except ShellCommandRefused as refused:
            self.emit("command_output", command=prompt, text=str(refused))
            raise TurnEnded("stopped", str(refused)) from None

    def _use_skill_model(self, skill: Skill) -> None:
        """The typed skill's frontmatter ``model`` answers this turn (Claude Code: no model
        switch events, the next prompt goes to the session's model again); a value that is no
        model name is said and ignored."""
        model = str(skill.model)
        if MODEL_NAME.fullmatch(model):
            profile = self.hooks.claude_code
            self._turn_model = profile.model_named(model)
            self.hooks.identity.effort = profile.effort_for(
                self._turn_model, self.config.effort_setting
            )
            return
        self.emit(
            "notice",
            text=f"{skill.path}: model: {model!r} is not a model name; ignored (the session's "
            "model answers)",
        )

    async def _prompt_expansion(self, prompt: str, skill: Skill, arguments: str) -> None:
        """UserPromptExpansion before a skill is expanded (before UserPromptSubmit or after
        it, as the Claude Code profile says)."""
        expansion = await self.hooks.prompt_expansion(
            prompt, command_name=skill.name, command_args=arguments, command_source=skill.source
        )
        end_turn_if(expansion.end)
        self.queue_context(expansion.context)

    def _skill_injected(self, prompt: PromptInjection) -> None:
        """Every skill prompt injection, persistent or not, for the user's trace."""
        self.emit(
            "skill_prompt",
            skill=prompt.skill,
            hook=prompt.name,
            timing=prompt.timing,
            role=prompt.role,
            persistent=prompt.persistent,
            content=prompt.content,
            file=prompt.file,
        )

    def _skill_events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.transcript.note(json.dumps(event, ensure_ascii=False), subtype="skill_hook")
            self.emit("hook", **{k: v for k, v in event.items() if k != "type"})

    def _close_open_tool_calls(self, reason: str) -> None:
        """Give every tool call of the last assistant message a result, so the history stays
        valid for the next model call after a turn ended mid-batch."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("role") == "assistant":
                calls = message.get("tool_calls") or []
                answered = {
                    m.get("tool_call_id") for m in self.messages[index + 1 :] if m["role"] == "tool"
                }
                for call in calls:
                    if call.get("id") not in answered:
                        self.record(
                            {
                                "role": "tool",
                                "tool_call_id": call.get("id"),
                                "content": f"Tool call not run: the turn ended ({reason}).",
                            },
                            is_error=True,
                        )
                return
            if message.get("role") == "user":
                return

    async def _turn(self, prompt: str, flow: PromptFlow | None) -> TurnResult:
        tools_available = len(self.tools) > 0
        if self.config.planning and tools_available:
            plan = await self._planning_round(prompt, flow)
            if plan is not None:
                return plan
        if not tools_available:
            flow = None  # without tools the seed makes one plain call: no agent-loop checkpoints
        round_index = 0
        while True:
            round_index += 1
            if round_index > self.config.max_turns:
                self.emit("notice", text=f"stopped after {self.config.max_turns} rounds")
                return TurnResult("max_turns", self.last_assistant_message, rounds=round_index - 1)
            step = await self.hooks.checkpoint(
                Event.PreAgentStep,
                round=round_index,
                first=round_index == 1,
                messages=self.messages,
            )
            end_turn_if(step.end)
            self.queue_context(step.context)
            if flow is not None:
                self._skill_events(flow.before_round(round_index, STEP_PROMPT, step.prompts))
            response = await self._model_round(with_tools=tools_available)
            if response.tool_calls:
                batch = await self.tool_step.run_batch(response.tool_calls, self._iteration - 1)
                if flow is not None:
                    self._skill_events(flow.after_tools(batch.prompts))
                    self._skill_events(flow.end_round())
                if batch.handled:
                    self._turn_record.handled = True
                    self.record({"role": "assistant", "content": HANDLED_REPLY})
                    self.last_assistant_message = HANDLED_REPLY
                    return TurnResult("completed", HANDLED_REPLY, rounds=round_index)
                continue
            if flow is not None:
                self._skill_events(flow.end_round())
            if await self._stop_continues():
                continue
            return TurnResult("completed", self.last_assistant_message, rounds=round_index)

    async def _planning_round(self, prompt: str, flow: PromptFlow | None) -> TurnResult | None:
        planning = await self.hooks.checkpoint(
            Event.PrePlanning, prompt=prompt, messages=self.messages
        )
        end_turn_if(planning.end)
        self.queue_context(planning.context)
        ref: dict[str, Any] | None = None
        if flow is not None:
            self._skill_events(flow.before_planning(PLANNING_PROMPT, planning.prompts))
        else:
            ref = {"role": "system", "content": PLANNING_PROMPT}
            self.messages.append(ref)
        try:
            response = await self._model_round(with_tools=False, record=False)
        finally:
            if ref is not None:
                self.messages[:] = [m for m in self.messages if m is not ref]
            if flow is not None:
                self._skill_events(flow.after_planning())
        content = response.content.strip()
        if not content.upper().startswith("PLAN: TOOLS"):
            self.record({"role": "assistant", "content": response.content}, model=self.model.name)
            self.last_assistant_message = response.content
            self._turn_record.replies.append(response.content)
            if await self._stop_continues():
                return None
            return TurnResult("completed", response.content, rounds=0)
        plan = content.split("\n", 1)[1].strip() if "\n" in content else ""
        if plan:
            self.record({"role": "assistant", "content": plan}, model=self.model.name)
        return None

    async def _fail_run(self, error: str, details: str) -> None:
        await self.hooks.stop_failure(error, details)
        self.observe("agent.error", {"Stage": "llm", "Message": details})
        self.emit("error", kind=error, message=details)

    async def _end_run(self, end: EndTurn | None) -> None:
        """A model or context checkpoint ended the turn; a hook block fails the run."""
        if end is not None and end.failure is not None:
            await self._fail_run(end.failure, end.reason)
        end_turn_if(end)

    # Model round -----------------------------------------------------------------------------

    async def _model_round(self, *, with_tools: bool, record: bool = True) -> ModelResponse:
        iteration = self._iteration
        self._iteration += 1
        if _estimate_tokens(self.messages) > self.config.compact_tokens:
            await self.compact("auto")
        self.flush_context()
        planned = await self.hooks.model_request(
            ModelRequest(
                self.request_model_name,
                self.messages,
                self.tools.definitions() if with_tools else [],
                dict(self.config.model_options),
            ),
            iteration=iteration,
            model_ref=refs.model_ref(self.model, self._turn_model or self._model_name),
        )
        await self._end_run(planned.end)
        request = planned.request
        model, model_name = self.models.resolve(self.model, request.model)
        messages = [dict(m) for m in request.messages]
        tools = [dict(t) for t in request.tools]
        options = dict(request.options or {})
        self._observe_request(request.model, messages, tools, options)
        self.emit("model_request", model=model_name or model.name)
        try:
            response = await model.complete(
                messages,
                tools or None,
                options=options,
                on_text=lambda text: self.emit("text_delta", text=text),
                model=model_name,
            )
        except ModelError as exc:
            await self._fail_run(exc.kind, str(exc))
            raise TurnEnded("failed", f"{exc.kind}: {exc}") from None
        self.answered_at = time.time()
        if response.usage is not None:
            self.context_tokens = response.usage.total_tokens
        model_ref = refs.model_ref(model, model_name)
        response = await self._after_model(request, response, iteration, model_ref)
        self.emit(
            "assistant",
            text=response.content,
            tool_calls=[
                {"id": c.id, "name": c.name, "input": c.arguments} for c in response.tool_calls
            ],
        )
        if record:
            usage = response.usage
            self.record(
                response.to_message(),
                model=response.model or self.model.name,
                usage=(usage.prompt_tokens, usage.completion_tokens) if usage else None,
            )
            self.last_assistant_message = response.content
            self._turn_record.replies.append(response.content)
        return response

    def _observe_request(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        options: dict[str, Any],
    ) -> None:
        self.observe(
            "agent.llm.request",
            {
                "Model": model,
                "MessagesCount": len(messages),
                "ToolsCount": len(tools),
                "MaxTokens": options.get("max_tokens", 0),
                "Temperature": options.get("temperature", 0),
            },
        )

    async def _after_model(
        self, request: ModelRequest, response: ModelResponse, iteration: int, model_ref: str
    ) -> ModelResponse:
        decision = await self.hooks.model_response(
            request, _response_dict(response), iteration=iteration, model_ref=model_ref
        )
        await self._end_run(decision.end)
        if decision.response is not None:
            response = _response_from_dict(dict(decision.response), response)
        if decision.notes:
            response.content = "\n\n".join([response.content, *decision.notes]).strip()
        self.observe(
            "agent.llm.response",
            {
                "ContentLen": len(response.content),
                "ToolCalls": len(response.tool_calls),
                "HasReasoning": False,
            },
        )
        return response

    # Stop -------------------------------------------------------------------------------------

    async def _stop_continues(self) -> bool:
        """Fire Stop (SubagentStop in a subagent); True when a hook made the loop go on.
        The turn's prompt and every answer of it ride along for dialects that send them
        (Gemini's AfterAgent `prompt` and `prompt_response`)."""
        extra: dict[str, Any] = {
            "turn_prompt": self._turn_record.prompt,
            "turn_replies": list(self._turn_record.replies),
        }
        decision = await self.hooks.stop(
            self.last_assistant_message, kept_going=self._idle_blocks > 0, **extra
        )
        end_turn_if(decision.end)
        if decision.capped:
            cap = self.config.stop_block_cap
            self.emit("notice", text=f"Stop hooks blocked {cap} times in a row; stopping anyway")
        if not decision.continues:
            return await self._idle_continues()
        for feedback in decision.continue_with:
            self.record({"role": "user", "content": feedback})
        context = "\n\n".join(decision.context)
        if decision.continue_with and context:
            self.record({"role": "system", "content": context})
        elif context:
            self.record({"role": "user", "content": reminder([context])})
        return True

    async def _idle_continues(self) -> bool:
        """TeammateIdle, when this session is a teammate about to stop; True when a hook kept
        it working (at most the Stop block cap times in a row)."""
        teammate = self.config.teammate
        if teammate is None or self.agent_id:
            return False
        verdict = await self.hooks.fire(
            Event.TeammateIdle, teammate_name=teammate.name, team_name=teammate.team
        )
        feedback = idle_feedback(self.config.claude_code, verdict)
        cap = self.config.stop_block_cap
        if not feedback or (cap and self._idle_blocks >= cap):
            self._idle_blocks = 0
            return False
        self._idle_blocks += 1
        for message in feedback:
            self.record({"role": "user", "content": message})
        return True

    # Compaction --------------------------------------------------------------------------------

    async def compact(self, trigger: str = "manual", instructions: str = "") -> bool:
        """Summarize older history; True when it happened (a PreCompact block skips it).

        A manual compaction is a prompt of its own (a new `prompt_id`), as `/compact` is in
        Claude Code; SessionStart (`compact`) fires before PostCompact."""
        cut = self._compaction_cut()
        if cut is None:
            return False
        if trigger == "manual" and self.agent_id is None:
            self.prompt_id = str(uuid.uuid4())
        pre = await self.hooks.pre_compact(trigger, instructions, self.messages)
        if pre.skip is not None:
            self.emit("notice", text=f"compaction skipped: {pre.skip}")
            return False
        prompt = COMPACT_PROMPT
        for text in (instructions, *pre.instructions):
            if text:
                prompt += f"\n\nAdditional instructions:\n{text}"
        history = [dict(m) for m in pre.messages] if pre.messages is not None else self.messages
        try:
            summary = await self.model.complete(
                [*copy.deepcopy(history[:cut]), {"role": "user", "content": prompt}], None
            )
        except ModelError as exc:
            self.emit("notice", text=f"compaction failed: {exc}")
            return False
        start = await self.hooks.start("compact", model=self.model.name)
        compacted = await self.hooks.post_compact(trigger, summary.content)
        text = compacted.summary if compacted.summary is not None else summary.content
        self._replace_history(cut, text, trigger)
        self.open_with(start.before_prompt)
        self.queue_context(start.after_prompt)
        self._use_env_files(start.env_files)
        return True

    def _replace_history(self, cut: int, summary: str, trigger: str) -> None:
        system = self.messages[0]
        kept = self.messages[cut:]
        summary_message = {
            "role": "user",
            "content": "This session continues an earlier conversation. Summary:\n" + summary,
        }
        dropped = cut - 1
        self.messages[:] = [system, summary_message, *kept]
        self.transcript.compact_boundary(summary_message["content"], trigger)
        for message in kept:
            self.transcript.message(message)
        self.observe(
            "agent.session.summarize",
            {
                "SummarizedMessages": dropped,
                "KeptMessages": len(kept),
                "SummaryLen": len(summary.encode()),
                "OmittedOversized": False,
            },
        )
        self.emit("compact", trigger=trigger, summary=summary, dropped=dropped)

    def _compaction_cut(self) -> int | None:
        """Index of the first kept message: at least `keep_recent` messages stay, and the cut
        falls on a user or assistant message so no tool result loses its call."""
        target = len(self.messages) - self.config.keep_recent
        for index in range(min(target, len(self.messages) - 1), 1, -1):
            if self.messages[index].get("role") in ("user", "assistant"):
                return index if index > 2 else None
        return None


def _response_dict(response: ModelResponse) -> dict[str, Any]:
    return {
        "content": response.content,
        "tool_calls": [call.to_message_part() for call in response.tool_calls],
        "finish_reason": response.finish_reason,
        "usage": {
            "prompt_tokens": response.usage.prompt_tokens,
            "completion_tokens": response.usage.completion_tokens,
            "total_tokens": response.usage.total_tokens,
        }
        if response.usage
        else None,
    }


def _response_from_dict(data: dict[str, Any], original: ModelResponse) -> ModelResponse:
    calls: list[ToolCall] = []
    for index, raw in enumerate(data.get("tool_calls") or []):
        function = raw.get("function", {}) if isinstance(raw, dict) else {}
        arguments_raw = function.get("arguments", "{}")
        if not isinstance(arguments_raw, str):
            arguments_raw = json.dumps(arguments_raw)
        try:
            parsed = json.loads(arguments_raw or "{}")
        except (ValueError, RecursionError):  # a hook's text: bad JSON, huge numbers, deep
            parsed = None
        calls.append(
            ToolCall(
                id=str(raw.get("id") or f"call_hook_{index}"),
                name=str(function.get("name", "")),
                arguments=parsed if isinstance(parsed, dict) else None,
                raw_arguments=arguments_raw,
            )
        )
    return ModelResponse(
        content=str(data.get("content") or ""),
        tool_calls=calls,
        finish_reason=str(data.get("finish_reason") or original.finish_reason),
        model=original.model,
        usage=original.usage,
    )


def env_flag_int(name: str, default: int) -> int:
    """An integer from the environment; `default` when unset or not a number."""
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default
