"""The reference agent: one loop that fires every canonical event at the right moment.

    SessionStart
    run(prompt):
      UserPromptSubmit (+ skill after_user_input)
      [planning round: PrePlanning (+ skill before_planning) -> model call without tools]
      agent rounds:
        PreAgentStep (+ skill before_each_agent / before_first_agent, step prompt)
        [compaction: PreCompact -> summary -> PostCompact]
        PreContextBuild -> PostContextBuild -> PreModelCall -> model -> PostModelCall
        each tool call: PreToolUse -> permission rules/mode -> PermissionRequest -> execute
                        -> PostToolUse | PostToolUseFailure
        PostToolBatch (+ skill after_tool_call per tool)
        no tool calls: Stop (block -> continue with the reason, at most 8 in a row)
      model error: StopFailure
    close(): SessionEnd

Each checkpoint applies its verdict in one place (`_apply_*` helpers below): deny / respond /
updated input / additional context / continue: false / abort. Inside a subagent the same loop
runs with `agent_id`/`agent_type` on every input and SubagentStop instead of Stop.
"""

from __future__ import annotations

import copy
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hookwright.dialects.skills import HookInfo, HookManager, SkillHookFlow
from hookwright.engine import HookEngine
from hookwright.events import Event, HookInput
from hookwright.results import Decision, HookResult, Status, Verdict
from hookwright.runtime import transcript as transcripts
from hookwright.runtime.models import Model, ModelError, ModelResponse, ToolCall
from hookwright.runtime.permissions import PermissionMode, PermissionPolicy
from hookwright.runtime.tools import ToolContext, ToolOutput, ToolRegistry

AgentEvent = dict[str, Any]
EventSink = Callable[[AgentEvent], None]
#: Called before each model call with the session id; returns context texts to deliver (e.g.
#: what asynchronous hooks reported since the last call).
ContextSource = Callable[[str], list[str]]
AskUser = Callable[[str, str, dict[str, Any]], Awaitable[bool]]
TurnStatus = Literal[
    "completed", "blocked", "failed", "aborted", "stopped", "max_turns", "deferred"
]

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
DEFAULT_STOP_BLOCK_CAP = 8


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
    #: Consecutive Stop blocks honoured before stopping anyway; 0 disables the cap.
    stop_block_cap: int = field(
        default_factory=lambda: env_flag_int(
            "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", DEFAULT_STOP_BLOCK_CAP
        )
    )

    @property
    def working_dir(self) -> Path:
        return self.cwd or self.project_dir


@dataclass(slots=True)
class TurnResult:
    status: TurnStatus
    final_text: str = ""
    reason: str | None = None
    rounds: int = 0


class _TurnEnded(Exception):
    """Unwinds the loop when a checkpoint ends the turn (abort, block, continue: false)."""

    def __init__(self, status: TurnStatus, reason: str | None = None, rollback: bool = False):
        super().__init__(reason or status)
        self.status = status
        self.reason = reason
        self.rollback = rollback


def _reminder(texts: list[str]) -> str:
    return "\n".join(f"<system-reminder>\n{text}\n</system-reminder>" for text in texts)


def _estimate_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m, ensure_ascii=False, default=str)) for m in messages) // 4


def tool_output_from_value(value: Any, *, default_error: bool = False) -> ToolOutput:
    """Read a hook-supplied tool result (`respond`, `updated_output`): a string is the content;
    a PicoClaw ToolResult dict (`for_llm`) gives content and `is_error`; anything else is the
    structured result, shown to the model as JSON."""
    if isinstance(value, str):
        return ToolOutput(content=value, is_error=default_error)
    if isinstance(value, dict) and "for_llm" in value:
        return ToolOutput(
            content=str(value.get("for_llm") or ""),
            is_error=bool(value.get("is_error", default_error)),
            data=dict(value),
        )
    return ToolOutput(
        content=json.dumps(value, ensure_ascii=False, default=str),
        is_error=default_error,
        data=value if isinstance(value, dict) else {"result": value},
    )


class Agent:
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
        self.turn_id: str | None = None
        self.env_files: list[Path] = []
        self._pending_context: list[str] = []
        self._stop_blocks = 0
        self._iteration = 0
        self.context_sources: list[ContextSource] = []
        #: Run once when the session closes (e.g. undo process-wide dialect settings).
        self.closers: list[Callable[[], None]] = []
        self.last_assistant_message = ""
        self.closed = False
        path = transcript_file or transcripts.transcript_path(
            config.home, config.project_dir, self.session_id
        )
        self.transcript = transcripts.Transcript(
            path, self.session_id, str(config.working_dir), sidechain=agent_id is not None
        )
        self.messages: list[dict[str, Any]] = []
        if messages:
            self.messages = list(messages)
        else:
            self._append({"role": "system", "content": config.system_prompt})

    # Plumbing -------------------------------------------------------------------------------

    @property
    def transcript_path(self) -> str:
        return str(self.transcript.path)

    def emit(self, event_type: str, /, **data: Any) -> None:
        if self.on_event is not None:
            event: AgentEvent = {"type": event_type, **data}
            if self.agent_id:
                event["agent_id"] = self.agent_id
            self.on_event(event)

    def observe(self, kind: str, payload: dict[str, Any]) -> None:
        """Publish a runtime event (PicoClaw's observation stream) without waiting: PascalCase
        payload fields plus the lowercase envelope keys `scope`, `correlation`, `attrs`."""
        self.engine.publish(
            kind,
            {
                **payload,
                "scope": {
                    "agent_id": self.agent_id or "main",
                    "session_key": self.session_id,
                    "turn_id": self.turn_id or "",
                    "channel": self.config.channel,
                    "chat_id": self.session_id,
                },
                "correlation": {"trace_id": kind},
                "attrs": {"agent_source": "runTurn", "iteration": self._iteration},
            },
        )

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

    def _append(self, message: dict[str, Any], **meta: Any) -> None:
        self.messages.append(message)
        self.transcript.message(message, **meta)

    def _input(self, event: Event, **payload: Any) -> HookInput:
        base = {
            "channel": self.config.channel,
            "chat_id": self.session_id,
            "workspace_id": str(self.config.project_dir),
            "run_id": self.turn_id or "",
            "project_dir": str(self.config.project_dir),
        }
        return HookInput(
            event,
            session_id=self.session_id,
            turn_id=self.turn_id,
            agent_id=self.agent_id,
            agent_type=self.agent_type,
            cwd=str(self.config.working_dir),
            transcript_path=self.transcript_path,
            permission_mode=self.policy.mode,
            payload={**base, **payload},
        )

    async def fire(self, event: Event, **payload: Any) -> Verdict:
        """Dispatch one checkpoint and report what the hooks did."""
        inp = self._input(event, **payload)
        selected = self.engine.select(inp)
        slow = any(not spec.inline for spec in selected)
        if slow:
            self.emit("hooks_running", event=event.value, count=len(selected))
        verdict = await self.engine.dispatch(inp, selected)
        if slow:
            self.emit("hooks_done", event=event.value)
        for result in verdict.results:
            spec = result.hook
            if not result.has_effect and result.status.value == "ok" and not result.error:
                continue
            self.emit(
                "hook_result",
                effect=_effect_of(result),
                event=event.value,
                hook=spec.name if spec else "?",
                source=spec.source if spec else "?",
                dialect=spec.dialect if spec else "?",
                status=result.status.value,
                decision=result.decision.value if result.decision else None,
                reason=result.reason,
                error=result.error,
            )
        for message in verdict.system_messages:
            self.emit("notice", text=message, event=event.value)
        for path in verdict.effects.env_files:
            candidate = Path(path)
            if candidate not in self.env_files:
                self.env_files.append(candidate)
        return verdict

    def _queue_context(self, verdict: Verdict) -> None:
        self._pending_context.extend(verdict.additional_context)

    def _flush_context(self) -> None:
        """Deliver queued additionalContext once, as a system reminder before the next call."""
        for source in self.context_sources:
            self._pending_context.extend(source(self.session_id))
        if not self._pending_context:
            return
        text = _reminder(self._pending_context)
        self._pending_context = []
        last = self.messages[-1] if self.messages else None
        if last is not None and last.get("role") == "user" and isinstance(last.get("content"), str):
            last["content"] = f"{last['content']}\n\n{text}"
            self.transcript.note(text, subtype="hook_additional_context")
        else:
            self._append({"role": "user", "content": text})

    # Session --------------------------------------------------------------------------------

    async def start(self, source: str = "startup") -> None:
        self.emit("session_start", session_id=self.session_id, transcript=self.transcript_path)
        verdict = await self.fire(Event.SessionStart, source=source, model=self.model.name)
        self._queue_context(verdict)

    async def close(self, reason: str = "other") -> None:
        if self.closed:
            return
        self.closed = True
        try:
            await self.fire(Event.SessionEnd, reason=reason)
        finally:
            for closer in self.closers:
                closer()
            self.transcript.close()
            self.emit("session_end", session_id=self.session_id, reason=reason)

    # One user turn ---------------------------------------------------------------------------

    async def run(self, prompt: str) -> TurnResult:
        self.turn_id = f"turn-{uuid.uuid4().hex[:12]}"
        turn_start = len(self.messages)
        started = time.monotonic_ns()
        self.observe("agent.turn.start", {"UserMessage": prompt, "MediaCount": 0})
        self._stop_blocks = 0
        self._iteration = 0
        flow: SkillHookFlow | None = None
        result: TurnResult
        try:
            verdict = (
                Verdict(Event.UserPromptSubmit)
                if self.agent_id
                else await self.fire(Event.UserPromptSubmit, prompt=prompt)
            )
            if verdict.blocked:
                reason = verdict.reason or "prompt blocked by a hook"
                self.emit("prompt_blocked", reason=reason)
                raise _TurnEnded("blocked", reason)
            if not verdict.continue_:
                raise _TurnEnded("stopped", verdict.stop_reason)
            self._append({"role": "user", "content": prompt})
            self._queue_context(verdict)
            self._flush_context()
            if self.config.skill_hooks:
                flow = SkillHookFlow(HookManager(self.messages, self.config.skill_hooks))
                self._skill_events(flow.start())
            result = await self._turn(prompt, flow)
        except _TurnEnded as ended:
            if ended.rollback:
                del self.messages[turn_start:]
                self.transcript.rollback(len(self.messages))
            else:
                self._close_open_tool_calls(ended.reason or ended.status)
            result = TurnResult(ended.status, reason=ended.reason)
        finally:
            if flow is not None:
                self._skill_events(flow.finish())
                # The seed drops these with its per-request list; this history outlives the turn.
                flow.manager.remove("after_user_input")
                flow.manager.remove("before_each_agent")
        self.observe(
            "agent.turn.end",
            {
                "Status": "completed"
                if result.status == "completed"
                else "error"
                if result.status == "failed"
                else "aborted",
                "Iterations": result.rounds,
                "Duration": time.monotonic_ns() - started,
                "FinalContentLen": len(result.final_text),
                "UserMessage": prompt,
                "FinalContent": result.final_text,
            },
        )
        self.emit("turn_end", status=result.status, text=result.final_text, reason=result.reason)
        return result

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
                        self._append(
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

    async def _turn(self, prompt: str, flow: SkillHookFlow | None) -> TurnResult:
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
            step = await self.fire(
                Event.PreAgentStep,
                round=round_index,
                first=round_index == 1,
                messages=self.messages,
            )
            self._check_control(step)
            self._queue_context(step)
            if flow is not None:
                self._skill_events(flow.before_round(round_index, STEP_PROMPT))
            response = await self._model_round(with_tools=tools_available)
            if response.tool_calls:
                names = await self._tool_batch(response.tool_calls, self._iteration - 1)
                if flow is not None:
                    self._skill_events(flow.after_tools(names))
                    self._skill_events(flow.end_round())
                continue
            if flow is not None:
                self._skill_events(flow.end_round())
            if await self._stop_continues():
                continue
            return TurnResult("completed", self.last_assistant_message, rounds=round_index)

    async def _planning_round(self, prompt: str, flow: SkillHookFlow | None) -> TurnResult | None:
        verdict = await self.fire(Event.PrePlanning, prompt=prompt, messages=self.messages)
        self._check_control(verdict)
        self._queue_context(verdict)
        manager = HookManager(self.messages, [])
        if flow is not None:
            self._skill_events(flow.before_planning(PLANNING_PROMPT))
            ref = None
        else:
            ref = manager.inject_prompt(PLANNING_PROMPT)
        try:
            response = await self._model_round(with_tools=False, record=False)
        finally:
            if ref is not None:
                manager.remove_prompt(ref)
            if flow is not None:
                self._skill_events(flow.after_planning())
        content = response.content.strip()
        if not content.upper().startswith("PLAN: TOOLS"):
            self._append({"role": "assistant", "content": response.content}, model=self.model.name)
            self.last_assistant_message = response.content
            if await self._stop_continues():
                return None
            return TurnResult("completed", response.content, rounds=0)
        plan = content.split("\n", 1)[1].strip() if "\n" in content else ""
        if plan:
            self._append({"role": "assistant", "content": plan}, model=self.model.name)
        return None

    def _check_control(self, verdict: Verdict) -> None:
        """The common tail of every checkpoint: abort and continue: false end the turn."""
        if verdict.abort == "hard":
            raise _TurnEnded("aborted", verdict.reason or "hard abort by hook", rollback=True)
        if verdict.abort == "turn":
            raise _TurnEnded("aborted", verdict.reason or "turn aborted by hook")
        if not verdict.continue_:
            raise _TurnEnded("stopped", verdict.stop_reason or "stopped by hook")

    async def _fail_run(self, error: str, details: str) -> None:
        await self.fire(
            Event.StopFailure,
            error=error,
            error_details=details,
            last_assistant_message=details,
            trigger_type="message",
            run_status="failed",
        )
        self.observe("agent.error", {"Stage": "model", "Message": details})
        self.emit("error", kind=error, message=details)

    # Model round -----------------------------------------------------------------------------

    async def _model_round(self, *, with_tools: bool, record: bool = True) -> ModelResponse:
        iteration = self._iteration
        self._iteration += 1
        if _estimate_tokens(self.messages) > self.config.compact_tokens:
            await self.compact("auto")
        self._flush_context()
        before = await self.fire(Event.PreContextBuild, messages=self.messages, iteration=iteration)
        await self._model_gate(before, defer_context=False)
        messages = _context_messages(before, copy.deepcopy(self.messages))
        after = await self.fire(Event.PostContextBuild, messages=messages, iteration=iteration)
        await self._model_gate(after, defer_context=False)
        messages = _context_messages(after, messages)
        tools = self.tools.definitions() if with_tools else []
        request: dict[str, Any] = {
            "model": self.model.name,
            "messages": messages,
            "tools": tools,
            "options": dict(self.config.model_options),
        }
        pre = await self.fire(
            Event.PreModelCall,
            **request,
            model_ref=f"{type(self.model).__name__.lower()}/{self.model.name}",
            iteration=iteration,
            graceful_terminal=False,
        )
        await self._model_gate(pre, defer_context=False)
        if pre.updated_input:
            request.update(
                {k: v for k, v in pre.updated_input.items() if k in request and v is not None}
            )
        notes = [*before.additional_context, *after.additional_context, *pre.additional_context]
        if notes:
            request["messages"] = _insert_system_notes(request["messages"], notes)
        self.observe(
            "agent.llm.request",
            {
                "Model": request["model"],
                "MessagesCount": len(request["messages"]),
                "ToolsCount": len(request["tools"]),
                "MaxTokens": request["options"].get("max_tokens", 0),
                "Temperature": request["options"].get("temperature", 0),
            },
        )
        try:
            response = await self.model.complete(
                request["messages"],
                request["tools"] or None,
                options=request["options"],
                on_text=lambda text: self.emit("text_delta", text=text),
            )
        except ModelError as exc:
            await self._fail_run(exc.kind, str(exc))
            raise _TurnEnded("failed", f"{exc.kind}: {exc}") from None
        post = await self.fire(
            Event.PostModelCall,
            model=request["model"],
            model_ref=f"{type(self.model).__name__.lower()}/{self.model.name}",
            messages=request["messages"],
            options=request["options"],
            iteration=iteration,
            response=_response_dict(response),
        )
        await self._model_gate(post, defer_context=False)
        if isinstance(post.updated_output, dict):
            response = _response_from_dict(post.updated_output, response)
        if post.additional_context:
            response.content = "\n\n".join([response.content, *post.additional_context]).strip()
        self.observe(
            "agent.llm.response",
            {
                "ContentLen": len(response.content),
                "ToolCalls": len(response.tool_calls),
                "HasReasoning": False,
            },
        )
        self.emit(
            "assistant",
            text=response.content,
            tool_calls=[
                {"id": c.id, "name": c.name, "input": c.arguments} for c in response.tool_calls
            ],
        )
        if record:
            self._append(response.to_message(), model=response.model or self.model.name)
            self.last_assistant_message = response.content
        return response

    async def _model_gate(self, verdict: Verdict, *, defer_context: bool = True) -> None:
        """Model and context checkpoints: a block fails the run (OpenHarness run_failed).
        Their context goes into this very call (`defer_context=False`: the caller inserts it)."""
        if verdict.blocked:
            reason = verdict.reason or "blocked by hook"
            await self._fail_run("hook_blocked", reason)
            raise _TurnEnded("failed", reason)
        self._check_control(verdict)
        if defer_context:
            self._queue_context(verdict)

    # Tools ------------------------------------------------------------------------------------

    async def _tool_batch(self, calls: list[ToolCall], iteration: int) -> list[str]:
        batch: list[dict[str, Any]] = []
        stop_after: str | None = None
        for call in calls:
            outcome = await self._tool_call(call, iteration, single=len(calls) == 1)
            batch.append(outcome)
            if outcome.get("stop") and stop_after is None:
                stop_after = outcome["stop"]
        self._flush_context()
        verdict = await self.fire(
            Event.PostToolBatch,
            tool_calls=[
                {k: o[k] for k in ("tool_name", "tool_input", "tool_use_id", "tool_response")}
                for o in batch
            ],
        )
        self._queue_context(verdict)
        if stop_after is not None:
            raise _TurnEnded("stopped", stop_after)
        if verdict.blocked:
            raise _TurnEnded("stopped", verdict.reason or "PostToolBatch hook stopped the loop")
        self._check_control(verdict)
        return [o["tool_name"] for o in batch]

    def _tool_message(self, call_id: str, output: ToolOutput, *, data: Any = None) -> None:
        self._append(
            {"role": "tool", "tool_call_id": call_id, "content": output.content},
            tool_data=data if data is not None else output.data,
            is_error=output.is_error,
        )

    async def _tool_call(self, call: ToolCall, iteration: int, *, single: bool) -> dict[str, Any]:
        name = call.name
        outcome: dict[str, Any] = {
            "tool_name": name,
            "tool_input": call.arguments,
            "tool_use_id": call.id,
            "tool_response": None,
        }
        self.emit("tool_call", id=call.id, name=name, input=call.arguments)
        if call.arguments is None:
            output = ToolOutput(
                content="InputValidationError: the tool arguments are not a JSON object: "
                f"{call.raw_arguments[:500]}",
                is_error=True,
            )
            return self._finish_call(call, output, outcome, skipped="invalid arguments")
        tool_input: dict[str, Any] = dict(call.arguments)
        pre = await self.fire(
            Event.PreToolUse,
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=call.id,
            iteration=iteration,
        )
        self._queue_context(pre)
        if pre.abort is not None:
            self._tool_message(call.id, ToolOutput("Tool call aborted by hook.", is_error=True))
            self._check_control(pre)
        if pre.respond is not None:
            output = tool_output_from_value(pre.respond)
            self.emit("notice", text=f"{name}: answered by a hook without running the tool")
            return self._finish_call(call, output, outcome, skipped="answered by hook", pre=pre)
        if pre.decision in (Decision.deny, Decision.block):
            message = pre.effects.tool_message or pre.reason or "Blocked by hook"
            output = ToolOutput(str(message), is_error=True)
            return self._finish_call(call, output, outcome, skipped="denied by hook", pre=pre)
        if pre.decision is Decision.defer:
            if single and not self.config.interactive:
                self._tool_message(call.id, ToolOutput("Tool call deferred.", is_error=True))
                outcome["stop"] = "tool_deferred"
                return outcome
            self.emit("notice", text="a hook answered defer; ignored (only for a single call)")
        if pre.payload_updates.get("tool_name"):
            name = str(pre.payload_updates["tool_name"])
            outcome["tool_name"] = name
        if pre.updated_input is not None:
            tool_input = dict(pre.updated_input)
        outcome["tool_input"] = tool_input
        if not pre.continue_:
            outcome["stop"] = pre.stop_reason or "stopped by hook"
        tool = self.tools.get(name)
        if tool is None:
            output = ToolOutput(f"Error: No such tool available: {name}", is_error=True)
            return self._finish_call(call, output, outcome, skipped="unknown tool")
        permitted = await self._permission(
            name, tool_input, call.id, read_only=tool.read_only, pre=pre
        )
        if permitted is not True:
            output = ToolOutput(permitted, is_error=True)
            return self._finish_call(call, output, outcome, skipped="permission denied")
        tool_input = outcome["tool_input"]
        self.observe("agent.tool.exec_start", {"Tool": name, "Arguments": tool_input})
        started = time.monotonic_ns()
        output = await self.tools.execute(
            name,
            tool_input,
            ToolContext(
                cwd=self.config.working_dir,
                session_id=self.session_id,
                env_files=list(self.env_files),
            ),
        )
        duration_ns = time.monotonic_ns() - started
        self.observe(
            "agent.tool.exec_end",
            {
                "Tool": name,
                "Duration": duration_ns,
                "ForLLMLen": len(output.content),
                "ForUserLen": 0,
                "IsError": output.is_error,
                "Async": False,
            },
        )
        duration_ms = round(duration_ns / 1e6, 3)
        tool_result = {"content": output.content, "is_error": output.is_error}
        if output.is_error:
            failure = await self.fire(
                Event.PostToolUseFailure,
                tool_name=name,
                tool_input=tool_input,
                tool_use_id=call.id,
                error=output.error or output.content,
                tool_result=tool_result,
                duration_ms=duration_ms,
                is_interrupt=False,
            )
            self._queue_context(failure)
            if not failure.continue_:
                outcome["stop"] = failure.stop_reason or "stopped by hook"
            if failure.abort is not None:
                self._tool_message(call.id, output)
                self._check_control(failure)
            return self._finish_call(call, output, outcome)
        post = await self.fire(
            Event.PostToolUse,
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=call.id,
            tool_response=output.data if output.data is not None else {"content": output.content},
            tool_result=tool_result,
            duration_ms=duration_ms,
        )
        if post.updated_output is not None:
            replaced = tool_output_from_value(post.updated_output)
            output = ToolOutput(
                content=replaced.content,
                is_error=replaced.is_error,
                data=replaced.data if replaced.data is not None else output.data,
            )
        if post.decision is Decision.block and post.reason:
            output = ToolOutput(
                f"{output.content}\n\nPostToolUse hook feedback:\n{post.reason}",
                is_error=output.is_error,
                data=output.data,
            )
        self._queue_context(post)
        if not post.continue_:
            outcome["stop"] = post.stop_reason or "stopped by hook"
        if post.abort is not None:
            self._tool_message(call.id, output)
            self._check_control(post)
        return self._finish_call(call, output, outcome)

    def _finish_call(
        self,
        call: ToolCall,
        output: ToolOutput,
        outcome: dict[str, Any],
        *,
        skipped: str | None = None,
        pre: Verdict | None = None,
    ) -> dict[str, Any]:
        if skipped is not None:
            self.observe(
                "agent.tool.exec_skipped", {"Tool": outcome["tool_name"], "Reason": skipped}
            )
        self._tool_message(call.id, output)
        outcome["tool_response"] = output.data if output.data is not None else output.content
        self.emit(
            "tool_result",
            id=call.id,
            name=outcome["tool_name"],
            content=output.content,
            is_error=output.is_error,
            skipped=skipped,
        )
        if pre is not None and not pre.continue_:
            outcome["stop"] = pre.stop_reason or "stopped by hook"
        return outcome

    async def _permission(
        self,
        name: str,
        tool_input: dict[str, Any],
        call_id: str,
        *,
        read_only: bool,
        pre: Verdict,
    ) -> str | Literal[True]:
        """True when the call may run, else the message the model sees.

        PermissionRequest fires for every call that rules and mode do not deny, with
        `permission_prompt` saying whether a prompt would show: approval gates (PicoClaw
        `approve_tool`) see every call and can deny it; Claude Code hooks only see the calls
        that would prompt, as in Claude Code."""
        cwd = str(self.config.working_dir)
        outcome = self.policy.check(
            name,
            tool_input,
            read_only=read_only,
            cwd=cwd,
            hook_allowed=pre.decision is Decision.allow,
        )
        behavior = outcome.behavior
        if pre.decision is Decision.ask and behavior == "allow":
            behavior = "ask"
        if behavior == "deny":
            self.emit("permission", tool=name, behavior="deny", reason=outcome.reason)
            return f"Permission to use {name} was denied: {outcome.reason}"
        request = await self.fire(
            Event.PermissionRequest,
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=call_id,
            permission_prompt=behavior == "ask",
            permission_suggestions=[
                {
                    "type": "addRules",
                    "rules": [{"toolName": name}],
                    "behavior": "allow",
                    "destination": "session",
                }
            ],
        )
        updates = request.effects.permission_updates
        if updates and request.decision is Decision.allow:
            for note in self.policy.apply_updates(updates):
                self.emit("notice", text=f"permissions: {note}")
        if request.abort is not None:
            self._tool_message(call_id, ToolOutput("Permission denied; interrupted.", True))
            self._check_control(request)
        if request.decision in (Decision.deny, Decision.block):
            reason = request.reason or "denied by a PermissionRequest hook"
            self.emit("permission", tool=name, behavior="deny", reason=reason)
            tool_message = request.effects.tool_message
            return (
                str(tool_message)
                if tool_message
                else f"Permission to use {name} was denied: {reason}"
            )
        if behavior == "allow":
            return True
        if request.decision is Decision.allow:
            if request.updated_input is not None:
                tool_input.clear()
                tool_input.update(request.updated_input)
                recheck = self.policy.rule_decision(name, tool_input, cwd)
                if recheck is not None and recheck.behavior == "deny":
                    return f"Permission to use {name} was denied: {recheck.reason}"
            self.emit("permission", tool=name, behavior="allow", reason="allowed by hook")
            return True
        question = pre.reason if pre.decision is Decision.ask and pre.reason else outcome.reason
        if self.ask_user is not None and self.config.interactive:
            if await self.ask_user(name, question, tool_input):
                self.emit("permission", tool=name, behavior="allow", reason="allowed by user")
                return True
            self.emit("permission", tool=name, behavior="deny", reason="denied by user")
            return f"Permission to use {name} was denied by the user."
        message = (
            f"Permission to use {name} was not granted: {question}, and nobody can answer a "
            "permission prompt in a non-interactive run (use --permission-mode acceptEdits or "
            "bypassPermissions, or add an allow rule)."
        )
        self.emit("permission", tool=name, behavior="deny", reason=message)
        return message

    # Stop -------------------------------------------------------------------------------------

    async def _stop_continues(self) -> bool:
        """Fire Stop (SubagentStop in a subagent); True when a hook made the loop go on."""
        event = Event.SubagentStop if self.agent_id else Event.Stop
        payload: dict[str, Any] = {
            "stop_hook_active": self._stop_blocks > 0,
            "last_assistant_message": self.last_assistant_message,
            "trigger_type": "message",
            "run_status": "completed",
        }
        if self.agent_id:
            payload["agent_transcript_path"] = self.transcript_path
        verdict = await self.fire(event, **payload)
        if not verdict.continue_:
            raise _TurnEnded("stopped", verdict.stop_reason or "stopped by hook")
        feedback: str | None = None
        if verdict.blocked:
            feedback = f"Stop hook feedback:\n{verdict.reason or 'continue working'}"
        elif verdict.additional_context:
            feedback = "\n".join(verdict.additional_context)
        if feedback is None:
            self._stop_blocks = 0
            return False
        cap = self.config.stop_block_cap
        if cap and self._stop_blocks >= cap:
            self.emit("notice", text=f"Stop hooks blocked {cap} times in a row; stopping anyway")
            self._stop_blocks = 0
            return False
        self._stop_blocks += 1
        self._append({"role": "user", "content": feedback})
        return True

    # Compaction --------------------------------------------------------------------------------

    async def compact(self, trigger: str = "manual", instructions: str = "") -> bool:
        """Summarize older history; True when it happened (a PreCompact block skips it)."""
        cut = self._compaction_cut()
        if cut is None:
            return False
        pre = await self.fire(
            Event.PreCompact,
            trigger=trigger,
            custom_instructions=instructions,
            messages=self.messages,
        )
        if pre.blocked:
            self.emit("notice", text=f"compaction skipped: {pre.reason or 'blocked by hook'}")
            return False
        prompt = COMPACT_PROMPT
        for text in (instructions, *pre.effects.compact_instructions):
            if text:
                prompt += f"\n\nAdditional instructions:\n{text}"
        try:
            summary = await self.model.complete(
                [*copy.deepcopy(self.messages[:cut]), {"role": "user", "content": prompt}], None
            )
        except ModelError as exc:
            self.emit("notice", text=f"compaction failed: {exc}")
            return False
        system = self.messages[0]
        kept = self.messages[cut:]
        summary_message = {
            "role": "user",
            "content": "This session continues an earlier conversation. Summary:\n"
            + summary.content,
        }
        dropped = cut - 1
        self.messages[:] = [system, summary_message, *kept]
        self.transcript.compact_boundary(summary_message["content"], trigger)
        for message in kept:
            self.transcript.message(message)
        self.observe(
            "agent.context.compress",
            {
                "Reason": "summarize",
                "DroppedMessages": dropped,
                "RemainingMessages": len(self.messages),
            },
        )
        self.emit("compact", trigger=trigger, summary=summary.content, dropped=dropped)
        await self.fire(Event.PostCompact, trigger=trigger, compact_summary=summary.content)
        start = await self.fire(Event.SessionStart, source="compact", model=self.model.name)
        self._queue_context(start)
        return True

    def _compaction_cut(self) -> int | None:
        """Index of the first kept message: at least `keep_recent` messages stay, and the cut
        falls on a user or assistant message so no tool result loses its call."""
        target = len(self.messages) - self.config.keep_recent
        for index in range(min(target, len(self.messages) - 1), 1, -1):
            if self.messages[index].get("role") in ("user", "assistant"):
                return index if index > 2 else None
        return None


def _context_messages(verdict: Verdict, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The context a context-build hook rewrote: `payload_updates.messages` or the
    `patches.context.messages` of an OpenHarness context patch; else `messages` unchanged."""
    rewritten = verdict.payload_updates.get("messages")
    patch = verdict.patches.get("context")
    if not isinstance(rewritten, list) and isinstance(patch, dict):
        rewritten = patch.get("messages")
    return list(rewritten) if isinstance(rewritten, list) else messages


def _insert_system_notes(messages: list[dict[str, Any]], notes: list[str]) -> list[dict[str, Any]]:
    """Insert hook notes as system messages after the leading system messages."""
    index = 0
    while index < len(messages) and messages[index].get("role") == "system":
        index += 1
    extra = [{"role": "system", "content": note} for note in notes]
    return [*messages[:index], *extra, *messages[index:]]


def _effect_of(result: HookResult) -> str:
    if result.status is not Status.ok:
        return result.status.value
    if result.decision is not None:
        return result.decision.value
    for effect, present in (
        ("abort", result.abort is not None),
        ("stop", not result.continue_),
        ("respond", result.respond is not None),
        ("rewrite input", result.updated_input is not None or bool(result.payload_updates)),
        ("rewrite output", result.updated_output is not None),
        ("patch", bool(result.patches)),
        ("context", result.additional_context is not None),
        ("message", result.system_message is not None),
    ):
        if present:
            return effect
    return "note"


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
        except json.JSONDecodeError:
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
