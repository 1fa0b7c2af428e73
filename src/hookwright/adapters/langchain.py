"""A project's hooks governing a LangChain v1 agent (``pip install 'hookwright[langchain]'``).

    hooks = HookwrightMiddleware(project, tool_map=...)
    agent = create_agent(model, tools, middleware=[hooks], checkpointer=InMemorySaver())
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})
    hooks.close()  # SessionEnd of every thread's session

One hook session per thread id (SessionStart on its first run). `before_agent` fires
UserPromptSubmit, `before_model` puts hook context into the state's messages (or ends the turn
a hook ended), `wrap_tool_call` runs PreToolUse/PermissionRequest before the tool (a rewritten
input goes through the tool's own validation) and PostToolUse after it, an `ask` becomes
`interrupt()` (the resumed step reuses the first decision: no hook runs twice), and
`after_agent` fires Stop, jumping back to the model with the feedback on a block. Sync and
async agents both work.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
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
    ask_payload,
    elapsed_ms,
    ended_text,
    reminder,
)

with needs_extra(__name__, "langchain", "langchain", "langchain_core", "langgraph"):
    from langchain.agents.middleware.types import (
        AgentMiddleware,
        AgentState,
        ModelRequest,
        hook_config,
    )
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
    from langgraph.config import get_config
    from langgraph.errors import GraphBubbleUp
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.runtime import Runtime
    from langgraph.types import Command, interrupt

    from hookwright.adapters._langchain_model import (
        AsyncHandler,
        Handler,
        ModelCallResult,
        acall_model,
        call_model,
    )


ABILITIES = Abilities("langchain", ask_user=True, end_turn=True)
Update = dict[str, Any] | None
ToolAnswer = ToolMessage | Command[Any]


class HookwrightMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """Options are `skills` (the project's skills whose prompt hooks load) and
    `HookSession.open`'s (tool_map, trust, audit_path, ...); the trust store is read here, so a
    bad one fails at construction, not inside the agent."""

    def __init__(self, project_dir: Path, **options: Any) -> None:
        super().__init__()
        self.project_dir = project_dir
        home = options.get("home") or user_home()
        options.setdefault("trust", TrustPolicy.load(home))
        self.options = options
        self._sessions: dict[str, FrameworkSession] = {}
        self._lock = threading.Lock()

    def session(self, thread_id: str | None = None) -> FrameworkSession:
        """The hook session of `thread_id` (default: the running graph's), opened on first
        use."""
        key = thread_id or _thread_id(None)
        with self._lock:
            found = self._sessions.get(key)
            if found is None:
                identity = self.options.get("identity") or SessionIdentity()
                session_id = key if key != "default" else str(uuid.uuid4())
                options = {**self.options, "identity": replace(identity, session_id=session_id)}
                found = FrameworkSession.open(self.project_dir, ABILITIES, **options)
                self._sessions[key] = found
        return found

    def close(self) -> None:
        """SessionEnd for every thread's session; their hook processes stop."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.close()

    def __enter__(self) -> HookwrightMiddleware:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # The turn ---------------------------------------------------------------------------------

    @hook_config(can_jump_to=["end"])
    def before_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        messages = state["messages"]
        prompt = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        end = self.session().prompt(prompt.text if prompt is not None else "")
        if end is None:
            return None
        removed = [RemoveMessage(id=prompt.id)] if prompt is not None and prompt.id else []
        return {"messages": [*removed, AIMessage(ended_text(end))], "jump_to": "end"}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        session = self.session()
        if session.ending is not None:
            return {"jump_to": "end"}
        texts = session.take_context()
        return {"messages": [HumanMessage(reminder(texts))]} if texts else None

    def wrap_model_call(self, request: ModelRequest[Any], handler: Handler) -> ModelCallResult:
        session = self.session()
        return session.interruptible(lambda: call_model(session, request, handler))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: AsyncHandler
    ) -> ModelCallResult:
        session = await asyncio.to_thread(self.session)
        return await session.ainterruptible(acall_model(session, request, handler))

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        last = next((m for m in reversed(state["messages"]) if isinstance(m, AIMessage)), None)
        feedback = self.session().stop(last.text if last is not None else "")
        if feedback is None:
            return None
        return {"messages": [HumanMessage(feedback)], "jump_to": "model"}

    @hook_config(can_jump_to=["end"])
    async def abefore_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        return await asyncio.to_thread(self.before_agent, state, runtime)

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        return await asyncio.to_thread(self.before_model, state, runtime)

    @hook_config(can_jump_to=["model"])
    async def aafter_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> Update:
        return await asyncio.to_thread(self.after_agent, state, runtime)

    # Tools ------------------------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolAnswer]
    ) -> ToolAnswer:
        session = self.session(_thread_id(request.runtime.config))
        return session.interruptible(lambda: self._tool_call(session, request, handler))

    def _tool_call(
        self,
        session: FrameworkSession,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolAnswer],
    ) -> ToolAnswer:
        call = request.tool_call
        step = _asked(session, session.before_tool(call["name"], call["args"], call["id"] or ""))
        if step.run is None:
            return _answer(request, step)
        started = time.monotonic()
        try:
            answer = handler(_with_input(request, step))
        except GraphBubbleUp:
            raise
        except Exception as exc:
            session.after_tool(step, ToolResult(str(exc), is_error=True), elapsed_ms(started))
            raise
        ran = _result_of(answer)
        return _shown(session, answer, ran, session.after_tool(step, ran, elapsed_ms(started)))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolAnswer]],
    ) -> ToolAnswer:
        session = await asyncio.to_thread(self.session, _thread_id(request.runtime.config))
        return await session.ainterruptible(self._atool_call(session, request, handler))

    async def _atool_call(
        self,
        session: FrameworkSession,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolAnswer]],
    ) -> ToolAnswer:
        call = request.tool_call
        first = await session.abefore_tool(call["name"], call["args"], call["id"] or "")
        step = _asked(session, first)
        if step.run is None:
            return _answer(request, step)
        started = time.monotonic()
        try:
            answer = await handler(_with_input(request, step))
        except GraphBubbleUp:
            raise
        except Exception as exc:
            failed = ToolResult(str(exc), is_error=True)
            await session.aafter_tool(step, failed, elapsed_ms(started))
            raise
        ran = _result_of(answer)
        shown = await session.aafter_tool(step, ran, elapsed_ms(started))
        return _shown(session, answer, ran, shown)


def _thread_id(config: Mapping[str, Any] | None) -> str:
    if config is None:
        try:
            config = get_config()
        except RuntimeError:
            config = {}
    value = (config.get("configurable") or {}).get("thread_id")
    return str(value) if value is not None else "default"


def _asked(session: FrameworkSession, step: ToolStep) -> ToolStep:
    """A step that asks pauses the graph (`interrupt`); resumed with ``True``/``False`` or
    ``{"approved": bool, "message": str}``, it runs or answers with the refusal."""
    if step.ask is None:
        return step
    answer = interrupt(ask_payload(step.ask))
    if isinstance(answer, Mapping):
        message = answer.get("message")
        return session.resolve(step, bool(answer.get("approved")), message and str(message))
    return session.resolve(step, bool(answer))


def _with_input(request: ToolCallRequest, step: ToolStep) -> ToolCallRequest:
    assert step.run is not None
    return request.override(tool_call={**request.tool_call, "args": dict(step.run.tool_input)})


def _answer(request: ToolCallRequest, step: ToolStep) -> ToolMessage:
    given = step.answer or ToolResult("Tool call not run.", is_error=True)
    call = request.tool_call
    status = "error" if given.is_error else "success"
    return ToolMessage(given.content, tool_call_id=call["id"], name=call["name"], status=status)


def _result_of(answer: ToolAnswer) -> ToolResult:
    if isinstance(answer, ToolMessage):
        return ToolResult(answer.text, answer.status == "error")
    return ToolResult(str(answer.update))


def _shown(
    session: FrameworkSession, answer: ToolAnswer, ran: ToolResult, shown: ToolResult
) -> ToolAnswer:
    if shown == ran:
        return answer
    if isinstance(answer, ToolMessage):
        status = "error" if shown.is_error else "success"
        return answer.model_copy(update={"content": shown.content, "status": status})
    session.unexpressed(Event.PostToolUse, "a replaced result of a tool that returned a Command")
    return answer
