"""Claude Code `mcp_tool` hooks against an in-process MCP caller (`Services.mcp`): what the
server was asked (substituted input), how its text answer decides (like command stdout),
failures as non-blocking errors naming the hook, timeouts, the dedup key, and `if` rules on
MCP tool names as Claude Code 2.1.240 evaluates them. The same hooks against a real server run
in tests/runtime/test_mcp_hooks.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from hookwright import Decision, Event
from hookwright.core.results import Status
from hookwright.dialects.claude_code.mcp_tool import substitute
from hookwright.engine.hook_requests import McpToolReply

from .conftest import Harness, cmd, group


@dataclass
class FakeServers:
    """Answers calls from a table of (server, tool) -> reply text; records every call."""

    replies: dict[tuple[str, str], Any] = field(default_factory=dict)
    calls: list[tuple[str, str, dict[str, Any], float]] = field(default_factory=list)

    async def __call__(
        self, server: str, tool: str, arguments: Mapping[str, Any], timeout: float
    ) -> McpToolReply:
        self.calls.append((server, tool, dict(arguments), timeout))
        reply = self.replies.get((server, tool))
        if reply is None:
            raise LookupError(server)
        if reply == "hang":
            await asyncio.wait_for(asyncio.sleep(60), timeout)
        if isinstance(reply, McpToolReply):
            return reply
        return McpToolReply(reply if isinstance(reply, str) else json.dumps(reply))


@pytest.fixture
def servers(h: Harness) -> FakeServers:
    fake = FakeServers()
    h.engine.services = replace(h.engine.services, mcp=fake)
    return fake


def mcp_tool(server: str = "srv", tool: str = "check", **fields: Any) -> dict[str, Any]:
    return {"type": "mcp_tool", "server": server, "tool": tool, **fields}


def test_substitution_follows_claude_code() -> None:
    hook_input = {"tool_input": {"text": "hi", "n": 3, "tags": ["a"]}, "tool_name": "mcp__s__t"}
    template = {
        "text": "${tool_input.text}",
        "whole": "${tool_input}",
        "num": "${tool_input.n}",
        "missing": "${nope.x}",
        "mixed": "a-${tool_name}-b",
        "deep": {"list": ["${tool_input.tags.0}"]},
        "kept": 5,
    }
    assert substitute(template, hook_input) == {
        "text": "hi",
        "whole": '{"text":"hi","n":3,"tags":["a"]}',
        "num": "3",
        "missing": "",
        "mixed": "a-mcp__s__t-b",
        "deep": {"list": ["a"]},
        "kept": 5,
    }


async def test_the_tool_is_called_with_the_substituted_input_and_its_json_decides(
    h: Harness, servers: FakeServers
) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "blocked by the scanner",
        }
    }
    servers.replies[("srv", "check")] = deny
    hook = mcp_tool(input={"command": "${tool_input.command}", "session": "${session_id}"})
    h.hooks(group("PreToolUse", hook, matcher="Bash"))
    verdict = await h.fire_tool(command="rm -rf build")
    assert verdict.decision is Decision.deny
    assert verdict.reason == "blocked by the scanner"
    assert servers.calls == [("srv", "check", {"command": "rm -rf build", "session": "s1"}, 600.0)]


async def test_plain_text_answers_decide_nothing_but_context_events_read_them(
    h: Harness, servers: FakeServers
) -> None:
    servers.replies[("srv", "check")] = "remember the tests"
    h.hooks(
        {
            "PreToolUse": [{"hooks": [mcp_tool(timeout=5)]}],
            "UserPromptSubmit": [{"hooks": [mcp_tool()]}],
        }
    )
    verdict = await h.fire_tool(command="ls")
    assert verdict.decision is None and verdict.results[0].status is Status.ok
    assert servers.calls[0][3] == 5
    prompt = await h.fire("UserPromptSubmit", prompt="go")
    assert list(prompt.additional_context) == ["remember the tests"]
    assert servers.calls[1][3] == 30.0


@pytest.mark.parametrize(
    ("reply", "status", "error"),
    [
        (None, Status.error, "mcp_tool hook srv/check: MCP server 'srv' is not connected"),
        (
            McpToolReply("boom\nmore", is_error=True),
            Status.error,
            "mcp_tool hook srv/check: the tool returned an error: boom",
        ),
        ("hang", Status.timeout, "timed out after 0.2s"),
    ],
    ids=["not-connected", "error-result", "timeout"],
)
async def test_failures_are_non_blocking_and_name_the_hook(
    h: Harness, servers: FakeServers, reply: Any, status: Status, error: str
) -> None:
    if reply is not None:
        servers.replies[("srv", "check")] = reply
    h.hooks({"PreToolUse": [{"hooks": [mcp_tool(timeout=0.2)]}]})
    verdict = await h.fire_tool(command="ls")
    [result] = verdict.results
    assert verdict.decision is None
    assert (result.status, result.error) == (status, error)


async def test_no_mcp_service_at_all_is_a_non_blocking_error(h: Harness) -> None:
    h.hooks({"Stop": [{"hooks": [mcp_tool()]}]})
    verdict = await h.fire("Stop", stop_hook_active=False, last_assistant_message="x")
    assert verdict.decision is None
    assert verdict.results[0].error == "mcp_tool hook srv/check: MCP server 'srv' is not connected"


async def test_identical_mcp_tool_hooks_run_once_different_input_twice(
    h: Harness, servers: FakeServers
) -> None:
    servers.replies[("srv", "check")] = ""
    same = mcp_tool(input={"a": "${tool_input.command}"})
    h.settings({"PreToolUse": [{"hooks": [same]}]}, kind="user")
    h.settings({"PreToolUse": [{"hooks": [same, mcp_tool(input={"a": "other"})]}]})
    h.load()
    await h.fire_tool(command="ls")
    assert sorted(call[2]["a"] for call in servers.calls) == ["ls", "other"]


@pytest.mark.parametrize(
    ("rule", "runs"),
    [
        ("mcp__srv__echo", True),
        ("mcp__srv__echo(*)", True),
        ("mcp__srv__echo()", True),
        ("mcp__srv", False),
        ("mcp__srv__*", False),
        ("mcp__*", False),
        ("mcp__srv__ec*", False),
        ("mcp__srv__echo(hi)", False),
    ],
)
async def test_if_rules_on_mcp_tools_match_only_the_exact_name(
    h: Harness, rule: str, runs: bool
) -> None:
    h.hooks({"PreToolUse": [{"hooks": [cmd(h.emit(""), **{"if": rule})]}]})
    verdict = await h.fire_tool(Event.PreToolUse, "mcp__srv__echo", text="hi")
    assert bool(verdict.results) is runs
