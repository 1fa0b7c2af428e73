"""What a Codex hook's exit code, stdout and stderr mean: the codec read on its own (the
transport's replies built by hand), one row per rule of Codex CLI 0.171.0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.codex.codec import CodexCodec
from hookwright.transports.base import Envelope, Failure, Output

#: The codec reads nothing of the run's context when decoding.
CTX = cast(RunContext, None)
TOOL = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build", "description": "x"}}


def decode(event: Event, stdout: str = "", stderr: str = "", code: int = 0) -> HookResult:
    codec = CodexCodec(
        "hook", timeout=5, codex_home=Path("/h"), project=Path("/p"), run_id="stop:3:/p/h.json"
    )
    payload = TOOL if "Tool" in event.value else {}
    inp = HookInput(event, session_id="s", payload=dict(payload))
    result = codec.decode(Output(stdout, code=code, stderr=stderr), Envelope(), inp, CTX)
    assert result is not None
    return result


def specific(**fields: Any) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}})


@pytest.mark.parametrize(
    ("stdout", "error"),
    [
        (specific(permissionDecision="allow"), "unsupported permissionDecision:allow"),
        (specific(permissionDecision="ask"), "unsupported permissionDecision:ask"),
        (specific(permissionDecision="deny"), "without a non-empty permissionDecisionReason"),
        (json.dumps({"decision": "approve"}), "unsupported decision:approve"),
        (json.dumps({"continue": False}), "unsupported continue:false"),
        (json.dumps({"stopReason": "x"}), "unsupported stopReason"),
        ('{"decision": "block", "reason": ', "invalid JSON"),
        ("[1, 2]", "not an object"),
    ],
)
def test_pre_tool_use_answers_codex_does_not_support_fail_open(stdout: str, error: str) -> None:
    result = decode(Event.PreToolUse, stdout)
    assert result.status is Status.error
    assert error in (result.error or "")
    assert result.decision is None


def test_a_deny_reaches_the_model_as_codex_words_it() -> None:
    result = decode(
        Event.PreToolUse, specific(permissionDecision="deny", permissionDecisionReason=" no ")
    )
    assert result.decision is Decision.deny
    assert result.reason == "no"
    assert result.effects is not None
    assert (
        result.effects.tool_message
        == "Command blocked by PreToolUse hook: no. Command: rm -rf build"
    )


def test_a_deny_of_another_tool_names_the_tool() -> None:
    """Codex words a denied call of a tool other than its shell by the tool's name as Codex
    shows it (measured: a denied `spawn_agent`, conformance case `subagent_spawn_denied`)."""
    codec = CodexCodec("hook", timeout=5, codex_home=Path("/h"), project=Path("/p"), run_id="r")
    agent = {"tool_name": "Agent", "tool_input": {"prompt": "print sub"}}
    inp = HookInput(Event.PreToolUse, session_id="s", payload=agent)
    result = codec.decode(Output(stderr="no agents\n", code=2), Envelope(), inp, CTX)
    assert result is not None and result.effects is not None
    assert (
        result.effects.tool_message
        == "Tool call blocked by PreToolUse hook: no agents. Tool: spawn_agent"
    )


def test_exit_2_blocks_with_stderr_and_without_it_fails() -> None:
    assert decode(Event.PreToolUse, stderr="nope\n", code=2).decision is Decision.deny
    failed = decode(Event.PreToolUse, code=2)
    assert failed.status is Status.error
    assert failed.decision is None


def test_plain_stdout_is_context_only_on_user_prompt_submit() -> None:
    assert decode(Event.UserPromptSubmit, "remember this\n").additional_context == "remember this"
    ignored = decode(Event.PreToolUse, "remember this\n")
    assert ignored.additional_context is None
    assert ignored.status is Status.ok


def test_post_tool_use_continue_false_replaces_the_result_and_the_turn_goes_on() -> None:
    result = decode(Event.PostToolUse, json.dumps({"continue": False, "stopReason": "halt"}))
    assert result.decision is Decision.block
    assert result.continue_ is True
    assert result.effects is not None
    assert result.effects.tool_message == "halt"


def test_other_exit_codes_and_timeouts_fail_open() -> None:
    assert decode(Event.PreToolUse, stderr="boom", code=1).status is Status.error
    codec = CodexCodec("hook", timeout=5, codex_home=Path("/h"), project=Path("/p"), run_id="r")
    inp = HookInput(Event.PreToolUse, payload=dict(TOOL))
    sent = Envelope(timeout=1.0)
    timed_out = codec.decode(Failure("timeout", "timed out"), sent, inp, CTX)
    assert timed_out is not None
    assert timed_out.status is Status.timeout
    assert timed_out.decision is None


@pytest.mark.parametrize(
    ("stdout", "code", "error"),
    [
        ("", 3, "hook exited with code 3"),
        ("", 2, "hook exited with code 2"),
        ("aloha", 0, "Interrupt hook returned non-JSON stdout"),
        ('{"systemMessage": "x"', 0, "hook returned invalid interrupt hook JSON output"),
        ('{"continue": true}', 0, "hook returned invalid interrupt hook JSON output"),
        ('{"decision": "block"}', 0, "hook returned invalid interrupt hook JSON output"),
        ('{"stopReason": null}', 0, "hook returned invalid interrupt hook JSON output"),
        ('{"systemMessage": 1}', 0, "hook returned invalid interrupt hook JSON output"),
        ("[1]", 0, "hook returned invalid interrupt hook JSON output"),
    ],
)
def test_an_interrupt_hook_that_says_more_than_a_message_has_failed(
    stdout: str, code: int, error: str
) -> None:
    """Codex's `parse_interrupt`: the turn is over; exit 2 is no block, and any field but
    `systemMessage` (or text that is not JSON) is a failed hook."""
    result = decode(Event.Interrupt, stdout, stderr="MARK", code=code)
    assert result.status is Status.error
    assert result.error == error
    assert result.decision is None and result.system_message is None


def test_an_interrupt_hook_s_system_message_is_for_the_user() -> None:
    result = decode(Event.Interrupt, '{"systemMessage": "watch the tide"}')
    assert result.status is Status.ok
    assert result.system_message == "watch the tide"
    assert decode(Event.Interrupt, "  \n").status is Status.ok
