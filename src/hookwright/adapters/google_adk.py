"""A project's hooks governing a Google ADK agent (``pip install 'hookwright[google-adk]'``).

    hooks = HookwrightPlugin(project, tool_map=...)
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[hooks]))
    events = await hooks.run(runner, user_id="u", session_id=session.id, prompt="Tidy up.")
    await runner.close()  # SessionEnd of every ADK session's hooks

A plugin, one hook session per ADK session. `on_user_message_callback` fires SessionStart
(first message) and UserPromptSubmit, `before_run_callback` ends a blocked prompt's run;
`before_model_callback` puts hook context into every model request where it arose (or answers
for the model once a hook ended the turn); `before_tool_callback` runs PreToolUse and
PermissionRequest and rewrites the arguments in place (ADK validates them with its
FUNCTION_TOOL_ARG_VALIDATION feature) or answers the call; `after_tool_callback` fires
PostToolUse only for calls that ran (ADK calls it for answered ones too),
`on_tool_error_callback` PostToolUseFailure; `after_run_callback` fires Stop, and `run`
drives a turn so that a block runs the agent again with the feedback.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hookwright.adapters._extras import needs_extra
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event
from hookwright.core.home import user_home
from hookwright.host import (
    Abilities,
    FrameworkSession,
    SessionIdentity,
    ToolResult,
    ToolStep,
    elapsed_ms,
    ended_text,
)
from hookwright.host import ModelRequest as ModelCall

with needs_extra(__name__, "google-adk", "google"):
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.events.event import Event as ADKEvent
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.runners import Runner
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types

    from hookwright.adapters._google_adk_content import (
        answer_of,
        model_call_of,
        model_text,
        note,
        response_of,
        result_of,
        text_of,
    )


ABILITIES = Abilities("google-adk", ask_user=False, end_turn=True)


@dataclass
class Conversation:
    """The hooks of one ADK session and what the plugin keeps for it."""

    session: FrameworkSession
    #: Hook context given to the model, by its position in the request, kept for later calls.
    notes: list[tuple[int, types.Content]] = field(default_factory=list)
    started: dict[str, float] = field(default_factory=dict)
    #: `run` is driving the turn: a Stop block's feedback, for it to continue with.
    driven: bool = False
    #: The model request in flight, as model-call hooks read it.
    call: ModelCall | None = None
    feedback: str | None = None
    continuing: bool = False


class HookwrightPlugin(BasePlugin):
    """Options are `skills` (the project's skills whose prompt hooks load) and
    `HookSession.open`'s (tool_map, trust, audit_path, ...); the trust store is read here, so a
    bad one fails at construction, not inside the runner."""

    def __init__(self, project_dir: Path, *, name: str = "hookwright", **options: Any) -> None:
        super().__init__(name)
        self.project_dir = project_dir
        options.setdefault("trust", TrustPolicy.load(options.get("home") or user_home()))
        self.options = options
        self._conversations: dict[str, Conversation] = {}
        self._lock = threading.Lock()

    def conversation(self, session_id: str) -> Conversation:
        """The hooks of ADK session `session_id`, opened on first use (blocking)."""
        with self._lock:
            found = self._conversations.get(session_id)
            if found is None:
                identity = replace(
                    self.options.get("identity") or SessionIdentity(), session_id=session_id
                )
                options = {**self.options, "identity": identity}
                found = Conversation(FrameworkSession.open(self.project_dir, ABILITIES, **options))
                self._conversations[session_id] = found
        return found

    async def _of(self, session_id: str) -> Conversation:
        return await asyncio.to_thread(self.conversation, session_id)

    async def close(self) -> None:
        """SessionEnd for every ADK session's hooks; their hook processes stop."""
        with self._lock:
            conversations, self._conversations = list(self._conversations.values()), {}
        for conversation in conversations:
            await conversation.session.aclose()

    async def run(
        self, runner: Runner, *, user_id: str, session_id: str, prompt: str
    ) -> list[ADKEvent]:
        """One user turn through `runner` (which has this plugin): while a Stop hook blocks,
        the agent runs again with the feedback as the next user message. Cancelling the
        turn's task (or Ctrl-C inside it) runs the Interrupt hooks, then goes on."""
        conversation = await self._of(session_id)
        conversation.driven = True
        turn = _turn(runner, conversation, user_id, session_id, prompt)
        try:
            return await conversation.session.ainterruptible(turn)
        finally:
            conversation.driven = conversation.continuing = False

    # The turn ---------------------------------------------------------------------------------

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        conversation = await self._of(invocation_context.session.id)
        text = text_of(user_message)
        if not conversation.continuing and text is not None:
            await conversation.session.aprompt(text)
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        ending = (await self._of(invocation_context.session.id)).session.ending
        return None if ending is None else model_text(ended_text(ending))

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        conversation = await self._of(callback_context.session.id)
        conversation.call = model_call_of(llm_request)
        notes = await conversation.session.amodel_call(conversation.call)
        ending = conversation.session.ending
        if ending is not None:
            return LlmResponse(content=model_text(ended_text(ending)))
        contents = llm_request.contents
        texts = conversation.session.take_context()
        if texts:
            conversation.notes.append((len(contents), note(texts)))
        for offset, (position, kept) in enumerate(conversation.notes):
            contents.insert(position + offset, kept)
        if notes:  # model-call context: this request only
            contents.append(note(notes))
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        conversation = await self._of(callback_context.session.id)
        if conversation.call is not None and not llm_response.partial:
            await conversation.session.amodel_answered(conversation.call, answer_of(llm_response))
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        conversation = await self._of(invocation_context.session.id)
        invocation = invocation_context.invocation_id
        texts = [
            text
            for event in invocation_context.session.events
            if event.invocation_id == invocation and event.author != "user"
            if (text := text_of(event.content)) is not None
        ]
        feedback = await conversation.session.astop(texts[-1] if texts else "")
        if feedback is None:
            return
        if conversation.driven:
            conversation.feedback = feedback
            return
        what = "continuing after a Stop block (drive the turn with HookwrightPlugin.run)"
        conversation.session.unexpressed(Event.Stop, what)

    # Tools ------------------------------------------------------------------------------------

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        conversation, step = await self._step(tool, tool_args, tool_context)
        if step.run is None:
            return response_of(step.answer or ToolResult("Tool call not run.", is_error=True))
        conversation.started[step.call_id] = time.monotonic()
        if dict(step.run.tool_input) != tool_args:
            tool_args.clear()
            tool_args.update(step.run.tool_input)
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        conversation, step = await self._step(tool, tool_args, tool_context)
        if step.run is None:
            return None  # answered by the hooks: it did not run
        ran = result_of(result)
        shown = await conversation.session.aafter_tool(step, ran, _elapsed(conversation, step))
        return None if shown == ran else response_of(shown)

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        conversation, step = await self._step(tool, tool_args, tool_context)
        if step.run is not None and not isinstance(error, asyncio.CancelledError):
            failed = ToolResult(str(error), is_error=True)
            await conversation.session.aafter_tool(step, failed, _elapsed(conversation, step))
        return None

    async def _step(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> tuple[Conversation, ToolStep]:
        """The call's step: PreToolUse (and PermissionRequest) the first time, then the same."""
        conversation = await self._of(tool_context.session.id)
        call_id = tool_context.function_call_id or ""
        return conversation, await conversation.session.abefore_tool(tool.name, tool_args, call_id)


async def _turn(
    runner: Runner, conversation: Conversation, user_id: str, session_id: str, prompt: str
) -> list[ADKEvent]:
    """The agent's runs of one turn: the prompt, then each Stop block's feedback."""
    events: list[ADKEvent] = []
    message: str | None = prompt
    while message is not None:
        content = types.Content(role="user", parts=[types.Part.from_text(text=message)])
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=content
        ):
            events.append(event)
        message, conversation.feedback = conversation.feedback, None
        conversation.continuing = message is not None
    return events


def _elapsed(conversation: Conversation, step: ToolStep) -> float:
    return elapsed_ms(conversation.started.pop(step.call_id, time.monotonic()))
