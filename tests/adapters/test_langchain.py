"""LangChain v1: the conformance scenario through `create_agent` with the middleware, on
LangChain's own `GenericFakeChatModel` (recording what it received), invoked sync and async."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .native import MODEL_CALL_NOTE, native_project, options, runs
from .scenario import Call, ConformanceScenario, DeferredDriver, Reply, Tools


@pytest.fixture(scope="module")
def kit() -> ModuleType:
    """The LangChain side (langchain_kit), imported when a test runs, not when it is collected."""
    pytest.importorskip("langchain.agents")
    from . import langchain_kit

    return langchain_kit


class TestLangChainSync(ConformanceScenario):
    driver = DeferredDriver(
        "langchain", True, "langchain.agents", ".langchain_kit", "LangChainSyncDriver"
    )


class TestLangChainAsync(ConformanceScenario):
    driver = DeferredDriver(
        "langchain",
        True,
        "langchain.agents",
        ".langchain_kit",
        "LangChainAsyncDriver",
    )


# Beyond the scenario --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "executed", "result"),
    [
        (True, [("shell", {"cmd": "echo approved"})], ("approved", False)),
        ({"approved": False, "message": "not now"}, [], ("not now", True)),
    ],
)
def test_ask_pauses_for_the_user_and_resumes_without_running_hooks_twice(
    kit: ModuleType, tmp_path: Path, answer: Any, executed: list[Any], result: tuple[str, bool]
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo approved"})
    model = kit.RecordingChatModel(messages=kit.scripted([Reply("", (call,)), Reply("done")]))
    with kit.HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = kit.case_agent(middleware, model, tools)
        paused = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, kit.THREAD)
        [pending] = paused["__interrupt__"]
        assert pending.value == {
            "hookwright": "ask",
            "tool": "shell",
            "input": {"cmd": "echo approved"},
            "reason": "sure?",
        }
        assert tools.executed == []
        agent.invoke(kit.Command(resume=answer), kit.THREAD)
    assert tools.executed == executed
    assert runs(root) == [("PreToolUse", "c1"), ("PermissionRequest", "c1")]
    [tool_result] = [m for m in kit.seen(model.received[-1]) if m.role == "tool"]
    assert (tool_result.text, tool_result.is_error) == result


@pytest.mark.parametrize(("answer", "verb"), [(True, "allowed"), (False, "denied")])
def test_the_persons_answer_to_the_interrupt_is_audited_as_a_callback(
    kit: ModuleType, tmp_path: Path, answer: bool, verb: str
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo approved"})
    model = kit.RecordingChatModel(messages=kit.scripted([Reply("", (call,)), Reply("done")]))
    with kit.HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = kit.case_agent(middleware, model, tools)
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, kit.THREAD)
        agent.invoke(kit.Command(resume=answer), kit.THREAD)
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


def test_a_blocked_prompt_never_reaches_the_model(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    model = kit.RecordingChatModel(messages=kit.scripted([]))
    with kit.HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = kit.case_agent(middleware, model, Tools(root))
        state = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, kit.THREAD)
    assert [m.text for m in state["messages"]] == [
        "UserPromptSubmit operation blocked by hook:\nnot today"
    ]
    assert model.received == []
    assert runs(root) == [("UserPromptSubmit", None)]


@pytest.mark.parametrize("aio", [False, True])
def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    kit: ModuleType, tmp_path: Path, aio: bool
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    model = kit.RecordingChatModel(messages=kit.scripted([Reply("", (call,)), Reply("done")]))
    with kit.HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = kit.case_agent(middleware, model, tools)
        state = {"messages": [{"role": "user", "content": "go"}]}
        if aio:
            asyncio.run(agent.ainvoke(state, kit.THREAD))
        else:
            agent.invoke(state, kit.THREAD)
    first, second = ([m.text for m in call] for call in model.received)
    assert first[-1] == "<system-reminder>\n1 messages, RecordingChatModel\n</system-reminder>"
    assert second[-1] == "<system-reminder>\n3 messages, RecordingChatModel\n</system-reminder>"
    assert not any("1 messages" in text for text in second)
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


def test_a_model_call_hook_blocking_ends_the_turn(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    model = kit.RecordingChatModel(messages=kit.scripted([]))
    with kit.HookwrightMiddleware(root, **options(tmp_path)) as middleware:
        agent = kit.case_agent(middleware, model, Tools(root))
        state = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, kit.THREAD)
    assert state["messages"][-1].text == "no model today"
    assert model.received == []
    assert runs(root) == [("PreModelCall", None)]
