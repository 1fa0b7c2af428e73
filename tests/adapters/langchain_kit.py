"""LangChain's side of its adapter tests (imported only when they run): a recording fake chat
model, the scenario's driver, and an agent for the single cases."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command as Command
from pydantic import Field

from hookwright.adapters.langchain import HookwrightMiddleware
from hookwright.host import FrameworkSession

from .scenario import EXHAUSTED, Reply, Seen, Tools

THREAD = {"configurable": {"thread_id": "scenario"}}
ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


class RecordingChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, with tools bound as they are and every input recorded."""

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(replies: Sequence[Reply]) -> Iterator[AIMessage]:
    for reply in replies:
        calls = [{"name": c.name, "args": c.args, "id": c.id} for c in reply.calls]
        yield AIMessage(reply.text, tool_calls=calls)
    while True:
        yield AIMessage(EXHAUSTED)


def seen(messages: list[BaseMessage]) -> list[Seen]:
    out = []
    for message in messages:
        if isinstance(message, ToolMessage):
            out.append(Seen("tool", message.text, message.tool_call_id, message.status == "error"))
        else:
            out.append(Seen(ROLES[message.type], message.text))
    return out


class LangChainSession:
    def __init__(self, project: Path, tools: Tools, options: dict[str, Any], aio: bool) -> None:
        self.middleware = HookwrightMiddleware(project, **options)
        self.hooks: FrameworkSession = self.middleware.session("scenario")
        self.tools = [
            StructuredTool.from_function(tools.shell),
            StructuredTool.from_function(tools.lookup),
        ]
        self.checkpointer = InMemorySaver()
        self.loop = asyncio.new_event_loop() if aio else None

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]:
        model = RecordingChatModel(messages=scripted(replies))
        agent = create_agent(
            model,
            self.tools,
            system_prompt="Test hooks.",
            middleware=[self.middleware],
            checkpointer=self.checkpointer,
        )
        state = {"messages": [{"role": "user", "content": prompt}]}
        if self.loop is None:
            agent.invoke(state, THREAD)
        else:
            self.loop.run_until_complete(agent.ainvoke(state, THREAD))
        return [seen(call) for call in model.received]

    def close(self) -> None:
        self.middleware.close()
        if self.loop is not None:
            self.loop.close()


class LangChainSyncDriver:
    framework = "langchain"
    flags_errors = True
    aio = False

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> LangChainSession:
        return LangChainSession(project, tools, options, self.aio)


class LangChainAsyncDriver(LangChainSyncDriver):
    aio = True


def case_agent(middleware: HookwrightMiddleware, model: RecordingChatModel, tools: Tools) -> Any:
    shell = StructuredTool.from_function(tools.shell)
    return create_agent(model, [shell], middleware=[middleware], checkpointer=InMemorySaver())
