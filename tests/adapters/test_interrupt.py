"""Codex's Interrupt event inside every framework: each framework's own test model calls a tool
that waits, the turn's task is cancelled mid-tool (or Ctrl-C lands in it), and the project's
Interrupt hooks (Codex command hooks, reviewed) run once, reading Codex's bytes, while the
cancellation reaches the caller unchanged. A second Interrupt hook sleeps without a timeout:
Codex's 1 s default stops it, so the cancellation is not held up."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import signal
import sys
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from tests.codex.project import write_project

from hookwright.config.trust import TrustPolicy
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV

#: Writes the bytes it read to `<name>.json` and its name to `order.txt`.
LOG = (
    f"{sys.executable} -c 'import sys,pathlib; name=sys.argv[1]; "
    'pathlib.Path(name + ".json").write_bytes(sys.stdin.buffer.read()); '
    'pathlib.Path("order.txt").open("a").write(name + "\\n")'
    "' "
)
#: How long the test waits for anything; far longer than it takes.
PATIENCE = 60.0
CALL = {"id": "call_wait", "name": "wait", "args": {"reason": "slow work"}}


def needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Any]]:
    """(project, adapter options): UserPromptSubmit and Interrupt hooks that log, and one
    Interrupt hook that sleeps, with no timeout of its own, longer than the test waits."""
    monkeypatch.setenv(MANAGED_DIR_ENV, str(tmp_path / "no-managed-codex"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    hooks = {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": LOG + "prompt"}]}],
        "Interrupt": [
            {"hooks": [{"type": "command", "command": LOG + "interrupt"}]},
            {"hooks": [{"type": "command", "command": "sleep 120"}]},
        ],
    }
    home, root = write_project(tmp_path, hooks)
    return root, {"home": home, "trust": TrustPolicy(everything=True)}


def assert_interrupted_once(root: Path) -> None:
    """The Interrupt hooks ran once, after the prompt, with Codex's Interrupt input."""
    assert (root / "order.txt").read_text().split() == ["prompt", "interrupt"]
    prompt = json.loads((root / "prompt.json").read_bytes())
    seen = json.loads((root / "interrupt.json").read_bytes())
    assert seen["hook_event_name"] == "Interrupt"
    assert seen["session_id"] == prompt["session_id"]
    assert seen["cwd"] == prompt["cwd"]
    assert set(seen) == set(prompt) - {"prompt"}, "the common fields and nothing else"


class Waiter:
    """A tool that says it started, then waits until cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def wait(self, reason: str) -> str:
        """Wait for slow work."""
        self.started.set()
        try:
            await asyncio.sleep(PATIENCE)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return "finished"


async def cancel_mid_tool(waiter: Waiter, turn: Awaitable[Any]) -> None:
    """Run `turn`, cancel it once the tool waits; the cancellation must reach this caller."""
    task = asyncio.ensure_future(turn)
    await asyncio.wait_for(waiter.started.wait(), PATIENCE)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, PATIENCE)
    assert task.cancelled()
    assert waiter.cancelled, "the tool itself was cancelled"


async def test_openai_agents_cancelled_mid_run(project: tuple[Path, dict[str, Any]]) -> None:
    needs("agents")
    from agents import Agent, function_tool
    from agents.testing import ModelStep, ScriptedModel, function_call

    from hookwright.adapters.openai_agents import OpenAIAgentsHooks

    from .openai_agents_kit import QUIET

    root, options = project
    waiter = Waiter()
    call = function_call(CALL["name"], json.dumps(CALL["args"]), call_id=CALL["id"])
    model = ScriptedModel([ModelStep(output=[call])])
    agent = Agent(name="slow", model=model, tools=[function_tool(waiter.wait)])
    async with await OpenAIAgentsHooks.open(root, **options) as hooks:
        await cancel_mid_tool(waiter, hooks.run(agent, "go", run_config=QUIET))
    assert_interrupted_once(root)


async def test_pydantic_ai_cancelled_mid_run(project: tuple[Path, dict[str, Any]]) -> None:
    needs("pydantic_ai")
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.function import FunctionModel

    from hookwright.adapters.pydantic_ai import PydanticAIHooks

    from .pydantic_ai_kit import ScriptedFunction
    from .scenario import Call, Reply

    root, options = project
    waiter = Waiter()
    script = ScriptedFunction([Reply("", (Call(CALL["id"], CALL["name"], CALL["args"]),))])
    async with PydanticAIHooks.open(root, **options) as capability:
        agent = Agent(FunctionModel(script), tools=[Tool(waiter.wait)], capabilities=[capability])
        await cancel_mid_tool(waiter, agent.run("go"))
    assert_interrupted_once(root)


async def test_each_cancelled_turn_runs_the_interrupt_hooks(
    project: tuple[Path, dict[str, Any]],
) -> None:
    """Once per turn, not once per session: the next turn's cancellation runs them again."""
    needs("pydantic_ai")
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.function import FunctionModel

    from hookwright.adapters.pydantic_ai import PydanticAIHooks

    from .pydantic_ai_kit import ScriptedFunction
    from .scenario import Call, Reply

    root, options = project
    call = Call(CALL["id"], CALL["name"], CALL["args"])
    async with PydanticAIHooks.open(root, **options) as capability:
        for _ in range(2):
            waiter = Waiter()
            model = FunctionModel(ScriptedFunction([Reply("", (call,))]))
            agent = Agent(model, tools=[Tool(waiter.wait)], capabilities=[capability])
            await cancel_mid_tool(waiter, agent.run("go"))
    assert (root / "order.txt").read_text().split() == ["prompt", "interrupt"] * 2


async def test_google_adk_cancelled_mid_run(project: tuple[Path, dict[str, Any]]) -> None:
    needs("google.adk")
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.runners import InMemoryRunner

    from hookwright.adapters.google_adk import HookwrightPlugin

    from .google_adk_kit import APP, USER, ScriptedLlm
    from .scenario import Call, Reply

    root, options = project
    waiter = Waiter()
    model = ScriptedLlm(replies=[Reply("", (Call(CALL["id"], CALL["name"], CALL["args"]),))])
    plugin = HookwrightPlugin(root, **options)
    agent = LlmAgent(name="slow", model=model, instruction="Wait.", tools=[waiter.wait])
    runner = InMemoryRunner(app=App(name=APP, root_agent=agent, plugins=[plugin]))
    try:
        session = await runner.session_service.create_session(app_name=APP, user_id=USER)
        turn = plugin.run(runner, user_id=USER, session_id=session.id, prompt="go")
        await cancel_mid_tool(waiter, turn)
    finally:
        await runner.close()
    assert_interrupted_once(root)


def langchain_agent(root: Path, options: dict[str, Any], tool: Any) -> tuple[Any, Any]:
    """(middleware, agent): LangChain's fake chat model calling `tool` once."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from hookwright.adapters.langchain import HookwrightMiddleware

    from .langchain_kit import RecordingChatModel

    middleware = HookwrightMiddleware(root, **options)
    calls = [{"name": CALL["name"], "args": CALL["args"], "id": CALL["id"]}]
    model = RecordingChatModel(messages=iter([AIMessage("", tool_calls=calls)]))
    agent = create_agent(model, [tool], middleware=[middleware], checkpointer=InMemorySaver())
    return middleware, agent


LANGCHAIN_INPUT = {"messages": [{"role": "user", "content": "go"}]}
THREAD = {"configurable": {"thread_id": "interrupted"}}


async def test_langchain_cancelled_mid_run(project: tuple[Path, dict[str, Any]]) -> None:
    needs("langchain")
    from langchain_core.tools import StructuredTool

    root, options = project
    waiter = Waiter()
    tool = StructuredTool.from_function(coroutine=waiter.wait, name="wait")
    middleware, agent = langchain_agent(root, options, tool)
    with middleware:
        await cancel_mid_tool(waiter, agent.ainvoke(LANGCHAIN_INPUT, THREAD))
    assert_interrupted_once(root)


async def test_langchain_stream_abandoned_mid_run(project: tuple[Path, dict[str, Any]]) -> None:
    """The caller stops reading `astream` and closes it while the tool runs."""
    needs("langchain")
    from langchain_core.tools import StructuredTool

    root, options = project
    waiter = Waiter()
    tool = StructuredTool.from_function(coroutine=waiter.wait, name="wait")
    middleware, agent = langchain_agent(root, options, tool)
    with middleware:
        stream = agent.astream(LANGCHAIN_INPUT, THREAD)
        reading = asyncio.ensure_future(_drain(stream))
        await asyncio.wait_for(waiter.started.wait(), PATIENCE)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(reading, PATIENCE)
        await asyncio.wait_for(stream.aclose(), PATIENCE)
    assert waiter.cancelled
    assert_interrupted_once(root)


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass


def test_langchain_ctrl_c_in_a_sync_model_call(project: tuple[Path, dict[str, Any]]) -> None:
    """A real SIGINT (Ctrl-C) to this process while the sync agent's model answers. (A sync
    tool runs in LangGraph's worker threads, where Ctrl-C never arrives: docs/adapters.md.)"""
    needs("langchain")
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT reaches the main thread only")
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from hookwright.adapters.langchain import HookwrightMiddleware

    from .langchain_kit import RecordingChatModel

    class CtrlCModel(RecordingChatModel):
        def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            self.received.append(list(messages))
            signal.raise_signal(signal.SIGINT)
            threading.Event().wait(PATIENCE)  # cut short by the signal's KeyboardInterrupt
            return super()._generate(messages, *args, **kwargs)

    root, options = project
    model = CtrlCModel(messages=iter([]))
    middleware = HookwrightMiddleware(root, **options)
    agent = create_agent(model, [], middleware=[middleware], checkpointer=InMemorySaver())
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with middleware, pytest.raises(KeyboardInterrupt):
            agent.invoke(LANGCHAIN_INPUT, THREAD)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(model.received) == 1
    assert_interrupted_once(root)


async def test_a_second_cancellation_in_the_same_turn_runs_the_hooks_once(
    project: tuple[Path, dict[str, Any]],
) -> None:
    """Parallel tool calls of one LangChain step all see the cancellation: one Interrupt."""
    needs("langchain")
    from langchain_core.tools import StructuredTool

    root, options = project
    waiters = [Waiter(), Waiter()]
    tools = [
        StructuredTool.from_function(coroutine=w.wait, name=f"wait{i}")
        for i, w in enumerate(waiters)
    ]
    middleware, agent = _parallel_agent(root, options, tools)
    with middleware:
        task = asyncio.ensure_future(agent.ainvoke(LANGCHAIN_INPUT, THREAD))
        for waiter in waiters:
            await asyncio.wait_for(waiter.started.wait(), PATIENCE)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, PATIENCE)
    assert all(w.cancelled for w in waiters)
    assert_interrupted_once(root)


def _parallel_agent(root: Path, options: dict[str, Any], tools: list[Any]) -> tuple[Any, Any]:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from hookwright.adapters.langchain import HookwrightMiddleware

    from .langchain_kit import RecordingChatModel

    middleware = HookwrightMiddleware(root, **options)
    calls = [
        {"name": tool.name, "args": CALL["args"], "id": f"call_{i}"} for i, tool in enumerate(tools)
    ]
    model = RecordingChatModel(messages=iter([AIMessage("", tool_calls=calls)]))
    agent = create_agent(model, tools, middleware=[middleware], checkpointer=InMemorySaver())
    return middleware, agent


async def test_claude_agent_sdk_interrupted_through_the_adapter(
    project: tuple[Path, dict[str, Any]],
) -> None:
    """claude-agent-sdk's own cancellation, `client.interrupt()`, through `hooks.interrupt`:
    the CLI (the SDK's control protocol, as its own tests drive it) stops the turn and the
    Interrupt hooks run once."""
    needs("claude_agent_sdk")
    from claude_agent_sdk import (
        ClaudeAgentOptions,
        ClaudeSDKClient,
        ResultMessage,
        SdkMcpTool,
        create_sdk_mcp_server,
    )

    from hookwright.adapters.claude_agent_sdk import ClaudeSDKHooks

    from .scenario import Call, Reply
    from .test_claude_agent_sdk import ask

    root, options = project
    waiter = Waiter()

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        text = await waiter.wait(args["reason"])
        return {"content": [{"type": "text", "text": text}]}

    tool = SdkMcpTool("wait", "Wait.", {"reason": str}, handler)
    server = create_sdk_mcp_server("slow", tools=[tool])
    given = ClaudeAgentOptions(cwd=root, mcp_servers={"slow": server}, setting_sources=[])
    hooks = await ClaudeSDKHooks.open(root, given, cli_version="2.1.332", **options)
    cli = _interruptible_cli()(hooks.options)
    cli.replies = [Reply("", (Call(CALL["id"], "mcp__slow__wait", CALL["args"]),))]
    async with hooks, ClaudeSDKClient(hooks.options, transport=cli) as client:
        turn = asyncio.ensure_future(ask(client, "go"))
        await asyncio.wait_for(waiter.started.wait(), PATIENCE)
        await hooks.interrupt(client)
        result = await asyncio.wait_for(turn, PATIENCE)
    assert isinstance(result, ResultMessage) and result.is_error
    assert cli.interrupts == 1 and waiter.cancelled
    assert_interrupted_once(root)


def _interruptible_cli() -> type[Any]:
    from .fake_claude_cli import FakeClaudeCLI

    class CLI(FakeClaudeCLI):
        """The CLI's side of ``interrupt``: the running turn stops; its result says so."""

        interrupts = 0

        async def _answer_control(self, message: dict[str, Any]) -> None:
            if message["request"]["subtype"] == "interrupt":
                self.interrupts += 1
                for task in list(self._tasks):
                    task.cancel()
                failed = {"subtype": "error_during_execution", "duration_ms": 0}
                await self._emit("result", **failed, duration_api_ms=0, is_error=True, num_turns=1)
            await super()._answer_control(message)

    return CLI


def test_an_interrupt_after_the_session_closed_is_said_not_dropped(
    project: tuple[Path, dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    from hookwright.host import Abilities, FrameworkSession

    root, options = project
    session = FrameworkSession.open(root, Abilities("test"), **options)
    session.close()
    with caplog.at_level("WARNING", logger="hookwright.host"):
        session.interrupted()
    assert "could not run the Interrupt hooks: session closed" in caplog.text
    assert not (root / "order.txt").exists()
