"""The host's tools as Codex hooks see them (`hookwright.dialects.codex.tools`): the subagent
tool `Agent` reads as Codex's `spawn_agent` in a Codex hook's input, its matchers and its
deny, and a Codex hook's rewrite of it is read back as `Agent` takes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from hookwright.core.events import Event, HookInput
from hookwright.core.matching import Matcher
from hookwright.core.run_context import RunContext
from hookwright.dialects.codex.codec import CodexCodec
from hookwright.dialects.codex.stdin import encode_input
from hookwright.dialects.codex.tools import (
    CodexToolMatcher,
    codex_tool_input,
    codex_tool_name,
    host_tool_input,
)
from hookwright.transports.base import Envelope, Output

SPAWN = {"prompt": "print sub", "description": "subtask", "subagent_type": "explorer"}


@pytest.mark.parametrize(
    ("name", "arguments", "shown"),
    [
        ("Agent", SPAWN, ("spawn_agent", {"message": "print sub", "agent_type": "explorer"})),
        ("Task", {"prompt": "p"}, ("spawn_agent", {"message": "p"})),
        ("Bash", {"command": "ls", "timeout": 5}, ("Bash", {"command": "ls"})),
        ("Read", {"file_path": "a"}, ("Read", {"file_path": "a"})),
        ("spawn_agent", {"message": "m"}, ("spawn_agent", {"message": "m"})),
    ],
)
def test_a_call_reads_as_codex_shows_it(
    name: str, arguments: dict[str, Any], shown: tuple[str, dict[str, Any]]
) -> None:
    assert (codex_tool_name(name), codex_tool_input(name, arguments)) == shown


def test_a_rewrite_of_the_subagent_call_maps_back_to_the_host_tool() -> None:
    rewritten = host_tool_input("Agent", {"message": "print safe"}, SPAWN)
    assert rewritten == {"description": "subtask", "prompt": "print safe"}
    named = host_tool_input("Agent", {"message": "m", "agent_type": "worker"}, SPAWN)
    assert named == {"description": "subtask", "prompt": "m", "subagent_type": "worker"}
    assert host_tool_input("Bash", {"command": "ls"}, {"command": "rm"}) == {"command": "ls"}
    # Inside real Codex the call is Codex's own: taken as it is.
    assert host_tool_input("spawn_agent", {"message": "m"}, {"message": "x"}) == {"message": "m"}


@pytest.mark.parametrize(
    ("pattern", "agent", "bash"),
    [
        ("spawn_agent", True, False),
        ("^spawn_a.*t$", True, False),
        ("spawn_agent|Bash", True, True),
        ("*", True, True),
        ("", True, True),
        ("Agent", True, False),
        ("^Ag", True, False),
        ("Task", False, False),
        ("Task|Bash", False, True),
        ("Bash", False, True),
    ],
)
def test_codex_matchers_name_the_subagent_tool_spawn_agent(
    pattern: str, agent: bool, bash: bool
) -> None:
    """Measured on Codex CLI 0.171.0 (case `subagent_spawn_denied`): `spawn_agent`, a regex
    on it and `Agent` select the call starting a subagent; `Task` does not."""
    matcher = CodexToolMatcher(pattern, "claude")
    assert (matcher.matches("Agent"), matcher.matches("Task"), matcher.matches("Bash")) == (
        agent,
        agent,
        bash,
    )
    # Claude Code's matchers are unchanged: `Agent` and `Task` name the tool.
    assert Matcher("Agent", "claude").matches("Agent") and Matcher("Task", "claude").matches(
        "Agent"
    )


def test_the_stdin_of_the_subagent_call_before_and_after_it() -> None:
    """PostToolUse reads the same call and the subagent's answer as a string (what Codex's
    `spawn_agent` answers was not measured: its call returns the agent's id at once)."""
    call = {"tool_name": "Agent", "tool_input": SPAWN, "tool_use_id": "c"}
    shown = {"message": "print sub", "agent_type": "explorer"}
    wire = encode_input(HookInput(Event.PreToolUse, session_id="s", payload=call))
    assert list(wire)[-3:] == ["tool_name", "tool_input", "tool_use_id"]
    assert (wire["tool_name"], wire["tool_input"]) == ("spawn_agent", shown)
    done = {**call, "tool_response": {"content": "sub done"}}
    wire = encode_input(HookInput(Event.PostToolUse, session_id="s", payload=done))
    assert [wire[key] for key in ("tool_name", "tool_input", "tool_response")] == [
        "spawn_agent",
        shown,
        '{"content": "sub done"}',
    ]


def test_a_codex_hooks_rewrite_and_deny_of_the_subagent_call() -> None:
    codec = CodexCodec("hook", timeout=5, codex_home=Path("/h"), project=Path("/p"), run_id="r")
    inp = HookInput(
        Event.PreToolUse, session_id="s", payload={"tool_name": "Agent", "tool_input": SPAWN}
    )
    ctx = cast(RunContext, None)
    rewrite = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"message": "print safe", "agent_type": "explorer"},
        }
    }
    allowed = codec.decode(Output(json.dumps(rewrite), code=0), Envelope(), inp, ctx)
    assert allowed is not None
    assert allowed.updated_input == {**SPAWN, "prompt": "print safe"}
    denied = codec.decode(Output(stderr="R\n", code=2), Envelope(), inp, ctx)
    assert denied is not None and denied.effects is not None
    assert (
        denied.effects.tool_message == "Tool call blocked by PreToolUse hook: R. Tool: spawn_agent"
    )
