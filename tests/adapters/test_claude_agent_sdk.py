"""claude-agent-sdk: the conformance scenario through `ClaudeSDKClient` and the SDK's control
protocol, the CLI played by `FakeClaudeCLI` (tests/adapters/fake_claude_cli.py), the tools an
in-process SDK MCP server (so the CLI names them ``mcp__scenario__<tool>``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    SdkMcpTool,
    ToolPermissionContext,
    create_sdk_mcp_server,
)

from hookwright.adapters.claude_agent_sdk import ClaudeSDKHooks
from hookwright.host import FrameworkSession, ToolAlias, ToolMap

from .fake_claude_cli import FakeClaudeCLI
from .native import native_project, options, runs
from .scenario import Call, ConformanceScenario, Reply, Seen, Tools, make_project, session_options

T = TypeVar("T")
SERVER = "scenario"
TOOL_MAP = ToolMap(
    [
        ToolAlias(f"mcp__{SERVER}__shell", "Bash", {"cmd": "command"}),
        ToolAlias(f"mcp__{SERVER}__lookup", "lookup"),
    ]
)


def sdk_tool(function: Callable[[str], str], argument: str) -> SdkMcpTool[Any]:
    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        text = await asyncio.to_thread(function, args[argument])
        return {"content": [{"type": "text", "text": text}]}

    return SdkMcpTool(function.__name__, function.__doc__ or "", {argument: str}, handler)


def sdk_options(project: Path, tools: Tools, **extra: Any) -> ClaudeAgentOptions:
    server = create_sdk_mcp_server(
        SERVER, tools=[sdk_tool(tools.shell, "cmd"), sdk_tool(tools.lookup, "query")]
    )
    return ClaudeAgentOptions(
        cwd=project, system_prompt="Test hooks.", mcp_servers={SERVER: server}, **extra
    )


def as_cli_call(call: Call) -> Call:
    return Call(call.id, f"mcp__{SERVER}__{call.name}", call.args)


def seen(messages: list[dict[str, Any]]) -> list[Seen]:
    out = [Seen("system", "Test hooks.")]
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            out.append(Seen(message["role"], content))
            continue
        for block in content:
            if block["type"] == "tool_result":
                out.append(Seen("tool", block["content"], block["tool_use_id"], block["is_error"]))
            elif block["type"] == "text":
                out.append(Seen(message["role"], block["text"]))
    return out


class ClaudeSDKSession:
    def __init__(self, project: Path, tools: Tools, hook_options: dict[str, Any]) -> None:
        self.loop = asyncio.new_event_loop()
        given = sdk_options(project, tools, setting_sources=[])
        hook_options = {**hook_options, "tool_map": TOOL_MAP}
        self.adapter = self.run(ClaudeSDKHooks.open(project, given, **hook_options))
        self.hooks: FrameworkSession = self.adapter.session
        self.cli = FakeClaudeCLI(self.adapter.options)
        self.client = ClaudeSDKClient(self.adapter.options, transport=self.cli)
        self.run(self.client.connect())

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]:
        self.cli.replies = [Reply(r.text, tuple(map(as_cli_call, r.calls))) for r in replies]
        start = len(self.cli.calls)
        self.run(ask(self.client, prompt))
        return [seen(call) for call in self.cli.calls[start:]]

    def close(self) -> None:
        try:
            self.run(self.client.disconnect())
            self.run(self.adapter.aclose())
        finally:
            self.loop.close()


async def ask(client: ClaudeSDKClient, prompt: str) -> ResultMessage:
    await client.query(prompt)
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            return message
    raise AssertionError("no result")


class ClaudeSDKDriver:
    framework = "claude-agent-sdk"
    flags_errors = True

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> ClaudeSDKSession:
        return ClaudeSDKSession(project, tools, options)


class TestClaudeAgentSDK(ConformanceScenario):
    driver = ClaudeSDKDriver()


# Beyond the scenario --------------------------------------------------------------------------


async def test_with_the_cli_reading_settings_hookwright_runs_no_claude_code_hook(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path)
    tools = Tools(project.root)
    hook_options = {**session_options(project), "tool_map": TOOL_MAP}
    given = sdk_options(project.root, tools)  # setting_sources None: the CLI reads them all
    call = as_cli_call(Call("c1", "shell", {"cmd": "git push origin main"}))
    async with await ClaudeSDKHooks.open(project.root, given, **hook_options) as hooks:
        cli = FakeClaudeCLI(hooks.options)
        cli.replies = [Reply("", (call,)), Reply("done")]
        async with ClaudeSDKClient(hooks.options, transport=cli) as client:
            await ask(client, "Publish.")
    assert project.log("cc") == []
    assert [e["tool_input"] for e in project.log("oh")] == [{"command": "git push origin main"}]
    assert tools.executed == [("shell", {"cmd": "echo dry-run: git push origin main"})]


async def test_ask_goes_to_the_users_can_use_tool_after_the_permission_hooks(
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"})
    tools = Tools(root)
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def approve(name: str, tool_input: dict[str, Any], context: ToolPermissionContext) -> Any:
        asked.append((name, tool_input, context.decision_reason))
        return PermissionResultAllow(updated_input={"cmd": "echo approved"})

    given = sdk_options(root, tools, setting_sources=[], can_use_tool=approve)
    call = as_cli_call(Call("c1", "shell", {"cmd": "echo asked"}))
    async with await ClaudeSDKHooks.open(root, given, **options(tmp_path)) as hooks:
        cli = FakeClaudeCLI(hooks.options)
        cli.replies = [Reply("", (call,)), Reply("done")]
        async with ClaudeSDKClient(hooks.options, transport=cli) as client:
            await ask(client, "go")
    assert asked == [(f"mcp__{SERVER}__shell", {"cmd": "echo asked"}, "sure?")]
    assert tools.executed == [("shell", {"cmd": "echo approved"})]
    assert runs(root) == [("PreToolUse", "c1"), ("PermissionRequest", "c1")]
    [result] = [m for m in seen(cli.calls[-1]) if m.role == "tool"]
    assert (result.text, result.is_error) == ("approved", False)


async def test_a_blocked_prompt_never_reaches_the_model(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')"})
    given = sdk_options(root, Tools(root), setting_sources=[])
    async with await ClaudeSDKHooks.open(root, given, **options(tmp_path)) as hooks:
        cli = FakeClaudeCLI(hooks.options)
        async with ClaudeSDKClient(hooks.options, transport=cli) as client:
            result = await ask(client, "go")
    assert (
        result.result
        == "UserPromptSubmit operation blocked by hook:\nnot today\n\nOriginal prompt: go"
    )
    assert cli.calls == []
    assert runs(root) == [("UserPromptSubmit", None)]
