"""Params encoding and result decoding, without processes."""

from __future__ import annotations

from typing import Any

import pytest
from picoclaw_support import after_llm, after_tool, before_llm, before_tool

from hookwright.dialects.picoclaw.actions import DecodeError, decode, decode_approval
from hookwright.dialects.picoclaw.codec import encode_params, tool_result_to_wire
from hookwright.effects import Effects
from hookwright.events import Event, HookInput
from hookwright.results import Decision


@pytest.mark.parametrize(
    ("protocol", "trace_path", "source"),
    [("seed", "runTurn", "turn.tool.before"), ("current", "turn.tool.before", "runTurn")],
)
def test_meta_source_and_trace_path_per_protocol(
    protocol: Any, trace_path: str, source: str
) -> None:
    meta = encode_params("before_tool", before_tool(text="x"), protocol)["meta"]
    assert list(meta) == [
        "AgentID",
        "TurnID",
        "ParentTurnID",
        "SessionKey",
        "Iteration",
        "TracePath",
        "Source",
    ]
    assert (meta["TracePath"], meta["Source"]) == (trace_path, source)


@pytest.mark.parametrize(
    ("method", "stage"),
    [
        ("before_llm", "turn.llm.request"),
        ("after_llm", "turn.llm.response"),
        ("before_tool", "turn.tool.before"),
        ("approve_tool", "turn.tool.approve"),
        ("after_tool", "turn.tool.after"),
    ],
)
def test_trace_path_per_method(method: str, stage: str) -> None:
    inp = HookInput(Event.PreToolUse, payload={"iteration": 4, "parent_turn_id": "p"})
    meta = encode_params(method, inp, "current")["meta"]
    assert meta["TracePath"] == stage
    assert (meta["Iteration"], meta["ParentTurnID"], meta["AgentID"]) == (4, "p", "")


def test_arguments_are_omitted_when_empty() -> None:
    params = encode_params("before_tool", before_tool(), "seed")
    assert "arguments" not in params and params["tool"] == "echo_text"


def test_current_before_llm_omits_empty_fields_and_seed_keeps_them() -> None:
    inp = before_llm(messages=[], tools=[], options={})
    current = encode_params("before_llm", inp, "current")
    assert set(current) == {"meta", "context", "model", "channel", "chat_id"}
    seed = encode_params("before_llm", inp, "seed")
    assert seed["messages"] == [] and seed["tools"] == []
    assert seed["graceful_terminal"] is False and "options" not in seed


def test_current_after_llm_uses_the_llm_response_shape() -> None:
    params = encode_params("after_llm", after_llm("text"), "current")
    assert params["response"] == {
        "content": "text",
        "finish_reason": "stop",
        "reasoning": "",
        "reasoning_details": None,
    }
    seed = encode_params("after_llm", after_llm("text"), "seed")
    assert seed["response"] == {"role": "assistant", "content": "text", "finish_reason": "stop"}


def test_tool_result_omitempty_and_duration_in_nanoseconds() -> None:
    params = encode_params("after_tool", after_tool(duration_ms=1.5), "current")
    assert params["duration"] == 1_500_000
    assert params["result"] == {
        "for_llm": "echoed",
        "silent": False,
        "is_error": False,
        "async": False,
    }
    full = {
        "for_llm": "x",
        "for_user": "u",
        "silent": True,
        "is_error": True,
        "async": True,
        "media": ["media://1"],
        "artifact_tags": ["[file:/a]"],
        "response_handled": True,
    }
    assert tool_result_to_wire(full) == full


def test_a_picoclaw_tool_result_in_tool_response_is_sent_as_is() -> None:
    result = {"for_llm": "rewritten", "for_user": "shown", "media": ["media://m"]}
    inp = after_tool().with_payload(tool_response=result, duration_ns=7)
    params = encode_params("after_tool", inp, "seed")
    assert params["result"]["for_llm"] == "rewritten"
    assert params["result"]["media"] == ["media://m"]
    assert params["duration"] == 7


def decode_tool(raw: Any, method: str = "before_tool") -> Any:
    sent = {"tool": "echo_text", "arguments": {"text": "x"}, "messages": [], "tools": []}
    return decode(method, raw, sent, hook="h", protocol="seed")


@pytest.mark.parametrize(
    "raw",
    [
        "continue",
        {"action": 3},
        {"action": "modify", "call": "not an object"},
        {"action": "modify", "call": {"tool": 5}},
        {"action": "modify", "call": {"arguments": [1]}},
        {"action": "respond", "result": {"for_llm": 1}},
    ],
)
def test_wrong_json_types_are_decode_errors(raw: Any) -> None:
    with pytest.raises(DecodeError):
        decode_tool(raw)


def test_before_llm_request_replaces_with_zero_values() -> None:
    result = decode_tool({"action": "modify", "request": {"messages": []}}, "before_llm")
    assert result.updated_input == {"model": "", "messages": [], "tools": [], "options": {}}


def test_abort_actions() -> None:
    turn = decode_tool({"action": "abort_turn", "reason": "stop"}, "after_llm")
    assert (turn.abort, turn.reason) == ("turn", "stop")
    hard = decode_tool({"action": "hard_abort"}, "after_tool")
    assert hard.abort == "hard" and hard.terminal


def test_null_result_is_continue_without_changes() -> None:
    assert decode_tool(None) is None


def test_deny_tool_without_reason() -> None:
    result = decode_tool({"action": "deny_tool"})
    assert result.decision is Decision.deny
    assert result.reason == "Tool execution denied by hook"


@pytest.mark.parametrize(
    ("raw", "approved"),
    [
        ({"approved": True}, True),
        ({"approved": False}, False),
        ({}, False),
        (None, False),
        ({"action": "continue"}, False),
    ],
)
def test_approval_needs_an_explicit_true(raw: Any, approved: bool) -> None:
    result = decode_approval(raw)
    assert (result.decision is Decision.allow) is approved
    if not approved:
        assert result.reason is None
        assert result.effects == Effects(tool_message="Tool execution denied by approval hook")


def test_approval_with_a_non_bool_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        decode_approval({"approved": 1})


@pytest.mark.parametrize("calls", [5, "x", {"a": 1}, None])
def test_an_after_llm_answer_with_non_list_tool_calls_has_none(calls: Any) -> None:
    params = encode_params("after_llm", after_llm(), "seed")
    answer = {"action": "modify", "response": {**params, "response": {"content": "hi"}}}
    answer["response"]["response"]["tool_calls"] = calls
    result = decode("after_llm", answer, params, hook="h", protocol="seed")
    assert result is not None
    assert result.updated_output["content"] == "hi"
    assert result.updated_output["tool_calls"] == []
