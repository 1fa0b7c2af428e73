"""claude-agent-sdk: the conformance scenario through `ClaudeSDKClient` and the SDK's control
protocol, the CLI played by `FakeClaudeCLI` (tests/adapters/fake_claude_cli.py), the tools an
in-process SDK MCP server (so the CLI names them ``mcp__scenario__<tool>``)."""

from __future__ import annotations

import asyncio
import json
import logging
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

from hookwright.adapters.claude_agent_sdk import ClaudeCLITooOld, ClaudeSDKHooks
from hookwright.host import FrameworkSession, ToolAlias, ToolMap

from .fake_claude_cli import FakeClaudeCLI
from .native import native_project, options, runs
from .scenario import (
    VETOED,
    Call,
    ConformanceScenario,
    Reply,
    Seen,
    Tools,
    make_project,
    session_options,
)

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
    model_calls = False


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


class CLIWithoutOnFailure(FakeClaudeCLI):
    """A CLI older than 2.1.295: its initialize reply does not say it honours onFailure."""

    async def _answer_control(self, message: dict[str, Any]) -> None:
        request = message["request"]
        if request["subtype"] != "initialize":
            return await super()._answer_control(message)
        self._hooks = request.get("hooks") or {}
        reply = {"subtype": "success", "request_id": message["request_id"], "response": {}}
        await self._out.put({"type": "control_response", "response": reply})


def fake_cli_binary(folder: Path, version: str) -> Path:
    """An executable that answers ``--version`` as a Claude Code CLI of `version` does."""
    path = folder / "claude"
    path.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    path.chmod(0o755)
    return path


async def test_an_older_cli_is_told_and_connects_without_on_failure_and_guards_hold(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "deny('not here')"})
    tools = Tools(root)
    cli_path = fake_cli_binary(tmp_path, "2.1.240")
    given = sdk_options(root, tools, setting_sources=[], cli_path=cli_path)
    call = as_cli_call(Call("c1", "shell", {"cmd": "touch guarded"}))
    with caplog.at_level(logging.WARNING, logger="hookwright"):
        async with await ClaudeSDKHooks.open(root, given, **options(tmp_path)) as hooks:
            cli = CLIWithoutOnFailure(hooks.options)
            cli.replies = [Reply("", (call,)), Reply("done")]
            async with ClaudeSDKClient(hooks.options, transport=cli) as client:
                await ask(client, "go")
    assert all(
        "onFailure" not in matcher for matchers in cli._hooks.values() for matcher in matchers
    )
    assert tools.executed == []
    assert not (root / "guarded").exists()
    [result] = [m for m in seen(cli.calls[-1]) if m.role == "tool"]
    assert (result.text, result.is_error) == ("not here", True)
    told = [r.getMessage() for r in caplog.records if "2.1.295" in r.getMessage()]
    assert told and "Claude Code 2.1.240 is older than 2.1.295" in told[0]
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert any("2.1.295" in r["reason"] for r in audit if r["status"] == "unexpressed")


async def test_on_failure_require_refuses_an_older_cli_with_its_version(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreToolUse": "None"})
    given = sdk_options(root, Tools(root), setting_sources=[])
    with pytest.raises(ClaudeCLITooOld, match=r"Claude Code 2\.1\.240 is older than 2\.1\.295"):
        await ClaudeSDKHooks.open(
            root, given, on_failure="require", cli_version="2.1.240", **options(tmp_path)
        )


async def test_a_cli_that_honours_on_failure_gets_it_on_the_gate_callbacks(
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "None"})
    given = sdk_options(
        root, Tools(root), setting_sources=[], cli_path=fake_cli_binary(tmp_path, "2.1.332")
    )
    async with await ClaudeSDKHooks.open(root, given, **options(tmp_path)) as hooks:
        cli = FakeClaudeCLI(hooks.options)
        async with ClaudeSDKClient(hooks.options, transport=cli):
            pass
    failures = {event: [m.get("onFailure") for m in cli._hooks[event]] for event in cli._hooks}
    assert failures["PreToolUse"] == ["block"]
    assert failures["UserPromptSubmit"] == ["block"]
    assert failures["PostToolUse"] == [None]


async def test_allowed_tools_keep_approval_gates_and_say_which_hooks_they_skip(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = make_project(tmp_path)
    settings = project.root / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    config["hooks"]["PermissionRequest"] = config["hooks"]["Stop"]
    settings.write_text(json.dumps(config))
    tools = Tools(project.root)
    allowed = [f"mcp__{SERVER}__shell"]
    given = sdk_options(project.root, tools, setting_sources=[], allowed_tools=allowed)
    hook_options = {**session_options(project), "tool_map": TOOL_MAP}
    call = as_cli_call(Call("c8", "shell", {"cmd": "touch vetoed"}))
    with caplog.at_level(logging.WARNING, logger="hookwright"):
        async with await ClaudeSDKHooks.open(project.root, given, **hook_options) as hooks:
            cli = FakeClaudeCLI(hooks.options)
            cli.replies = [Reply("", (call,)), Reply("done")]
            async with ClaudeSDKClient(hooks.options, transport=cli) as client:
                await ask(client, "go")
    assert not (project.root / "vetoed").exists()
    [result] = [m for m in seen(cli.calls[-1]) if m.role == "tool"]
    assert (result.text, result.is_error) == (VETOED, True)
    warned = [r.getMessage() for r in caplog.records if "allowed_tools" in r.getMessage()]
    assert warned and f"allowed_tools ({allowed[0]})" in warned[0]
    assert ".claude/settings.json" in warned[0]


async def test_a_call_the_cli_prompts_about_asks_each_gate_once_and_audits_the_answer(
    tmp_path: Path,
) -> None:
    """The CLI prompts about a call the hooks let run: the approval gate (a Python
    PermissionRequest hook, which sees every call) was asked with PreToolUse and is not asked
    again at the prompt; the Claude Code PermissionRequest hook, which fires only on a prompt,
    runs there once; the person's answer through `can_use_tool` is audited as theirs."""
    root = native_project(tmp_path, {"PermissionRequest": "None"})
    prompted = tmp_path / "prompted.jsonl"
    hook = {"type": "command", "command": f"cat >> {prompted}; echo >> {prompted}"}
    settings = {"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [hook]}]}}
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    tools = Tools(root)
    answered: list[str] = []

    async def approve(name: str, tool_input: dict[str, Any], context: ToolPermissionContext) -> Any:
        answered.append(name)
        return PermissionResultAllow()

    given = sdk_options(root, tools, setting_sources=[], can_use_tool=approve)
    shell = f"mcp__{SERVER}__shell"
    call = as_cli_call(Call("c1", "shell", {"cmd": "echo asked"}))
    audit = tmp_path / "audit.jsonl"
    hook_options = {**options(tmp_path), "tool_map": TOOL_MAP}
    async with await ClaudeSDKHooks.open(root, given, **hook_options) as hooks:
        cli = FakeClaudeCLI(hooks.options)
        cli.prompted_tools = {shell}
        cli.replies = [Reply("", (call,)), Reply("done")]
        async with ClaudeSDKClient(hooks.options, transport=cli) as client:
            await ask(client, "go")
    assert answered == [shell]
    assert tools.executed == [("shell", {"cmd": "echo asked"})]
    assert runs(root) == [("PermissionRequest", "c1")]
    [cli_hook_input] = [json.loads(line) for line in prompted.read_text().splitlines() if line]
    assert (cli_hook_input["tool_name"], cli_hook_input["tool_input"]) == (
        "Bash",
        {"command": "echo asked"},
    )
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    [person] = [r for r in records if r["event"] == "Permission"]
    assert (person["decision"], person["tool_use_id"]) == ("allow", "c1")
    assert person["reason"] == "allowed by user (claude-agent-sdk callback)"
    assert person["permission"] == {
        "by": "person",
        "name": "user",
        "mode": "default",
        "file": None,
        "channel": "callback",
    }
