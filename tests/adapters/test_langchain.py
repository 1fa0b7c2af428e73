"""LangChain v1: the conformance scenario through `create_agent` with the middleware, on
LangChain's own `GenericFakeChatModel` (recording what it received), invoked sync and async."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import Field

from hookwright.adapters.langchain import HookwrightMiddleware
from hookwright.host import FrameworkSession

from .native import MODEL_CALL_NOTE, native_project, options, runs
from .scenario import EXHAUSTED, Call, ConformanceScenario, Reply, Seen, Tools

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


class LangChainDriver:
    framework = "langchain"
    flags_errors = True

    def __init__(self, aio: bool) -> None:
        self.aio = aio

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> LangChainSession:
        return LangChainSession(project, tools, options, self.aio)


class TestLangChainSync(ConformanceScenario):
    driver = LangChainDriver(aio=False)


class TestLangChainAsync(ConformanceScenario):
    driver = LangChainDriver(aio=True)


# Beyond the scenario --------------------------------------------------------------------------


def case_agent(middleware: HookwrightMiddleware, model: RecordingChatModel, tools: Tools) -> Any:
    shell = StructuredTool.from_function(tools.shell)
    return create_agent(model, [shell], middleware=[middleware], checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    ("answer", "executed", "result"),
    [
        (True, [("shell", {"cmd": "echo approved"})], ("approved", False)),
        ({"approved": False, "message": "not now"}, [], ("not now", True)),
    ],
)
def test_ask_pauses_for_the_user_and_resumes_without_running_hooks_twice(
    tmp_path: Path, answer: Any, executed: list[Any], result: tuple[str, bool]
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo approved"})
    model = RecordingChatModel(messages=scripted([Reply("", (call,)), Reply("done")]))
    with HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = case_agent(middleware, model, tools)
        paused = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, THREAD)
        [pending] = paused["__interrupt__"]
        assert pending.value == {
            "hookwright": "ask",
            "tool": "shell",
            "input": {"cmd": "echo approved"},
            "reason": "sure?",
        }
        assert tools.executed == []
        agent.invoke(Command(resume=answer), THREAD)
    assert tools.executed == executed
    assert runs(root) == [("PreToolUse", "c1"), ("PermissionRequest", "c1")]
    [tool_result] = [m for m in seen(model.received[-1]) if m.role == "tool"]
    assert (tool_result.text, tool_result.is_error) == result


@pytest.mark.parametrize(("answer", "verb"), [(True, "allowed"), (False, "denied")])
def test_the_persons_answer_to_the_interrupt_is_audited_as_a_callback(
    tmp_path: Path, answer: bool, verb: str
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo approved"})
    model = RecordingChatModel(messages=scripted([Reply("", (call,)), Reply("done")]))
    with HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = case_agent(middleware, model, tools)
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, THREAD)
        agent.invoke(Command(resume=answer), THREAD)
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    [record] = [r for r in map(json.loads, lines) if r["event"] == "Permission"]
    assert (record["tool_name"], record["tool_use_id"]) == ("shell", "c1")
    assert record["decision"] == ("allow" if answer else "deny")
    assert record["reason"] == f"{verb} by user (langchain callback)"
    assert record["permission"] == {
        "by": "person",
        "name": "user",
        "mode": "default",
        "file": None,
        "channel": "callback",
    }


def test_a_blocked_prompt_never_reaches_the_model(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    model = RecordingChatModel(messages=scripted([]))
    with HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = case_agent(middleware, model, Tools(root))
        state = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, THREAD)
    assert [m.text for m in state["messages"]] == [
        "UserPromptSubmit operation blocked by hook:\nnot today"
    ]
    assert model.received == []
    assert runs(root) == [("UserPromptSubmit", None)]


@pytest.mark.parametrize("aio", [False, True])
def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    tmp_path: Path, aio: bool
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    model = RecordingChatModel(messages=scripted([Reply("", (call,)), Reply("done")]))
    with HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = case_agent(middleware, model, tools)
        state = {"messages": [{"role": "user", "content": "go"}]}
        if aio:
            asyncio.run(agent.ainvoke(state, THREAD))
        else:
            agent.invoke(state, THREAD)
    first, second = ([m.text for m in call] for call in model.received)
    assert first[-1] == "<system-reminder>\n1 messages, RecordingChatModel\n</system-reminder>"
    assert second[-1] == "<system-reminder>\n3 messages, RecordingChatModel\n</system-reminder>"
    assert not any("1 messages" in text for text in second)
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


def test_a_model_call_hook_blocking_ends_the_turn(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    model = RecordingChatModel(messages=scripted([]))
    with HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = case_agent(middleware, model, Tools(root))
        state = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, THREAD)
    assert state["messages"][-1].text == "no model today"
    assert model.received == []
    assert runs(root) == [("PreModelCall", None)]
