"""Params encoding and result decoding, without processes."""

from __future__ import annotations

from typing import Any

import pytest
from picoclaw_support import after_llm, after_tool, before_llm, before_tool

from hookwright.core.effects import Effects
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision
from hookwright.dialects.picoclaw.actions import DecodeError, decode, decode_approval
from hookwright.dialects.picoclaw.codec import encode_params, tool_result_to_wire


@pytest.mark.parametrize("protocol", ["seed", "current"])
def test_meta_is_what_picoclaw_code_sends_in_both_protocols(protocol: Any) -> None:
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
    assert (meta["TracePath"], meta["Source"]) == ("turn.tool.before", "runTurn")


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
    # the canonical 0-based model-call index is PicoClaw's 1-based iteration; the main agent
    # is "main"
    assert (meta["Iteration"], meta["ParentTurnID"], meta["AgentID"]) == (5, "p", "main")


def test_iteration_without_a_model_call_is_zero() -> None:
    meta = encode_params("approve_tool", HookInput(Event.PermissionRequest), "current")["meta"]
    assert meta["Iteration"] == 0


def test_arguments_are_omitted_when_empty() -> None:
    params = encode_params("before_tool", before_tool(), "seed")
    assert "arguments" not in params and params["tool"] == "echo_text"


def test_before_llm_omits_empty_fields_and_only_seed_has_the_chat_keys() -> None:
    inp = before_llm(messages=[], tools=[], options={})
    current = encode_params("before_llm", inp, "current")
    assert list(current) == ["meta", "context", "model"]
    seed = encode_params("before_llm", inp, "seed")
    assert list(seed) == ["meta", "model", "channel", "chat_id"]


def test_after_llm_uses_the_llm_response_shape_in_both_protocols() -> None:
    expected = {
        "content": "text",
        "finish_reason": "stop",
        "reasoning": "",
        "reasoning_details": None,
    }
    for protocol in ("seed", "current"):
        params = encode_params("after_llm", after_llm("text"), protocol)  # type: ignore[arg-type]
        assert params["response"] == expected


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


def test_an_after_llm_answer_without_tool_calls_has_none() -> None:
    params = encode_params("after_llm", after_llm(), "seed")
    answer = {"action": "modify", "response": {**params, "response": {"content": "hi"}}}
    answer["response"]["response"]["tool_calls"] = None
    result = decode("after_llm", answer, params, hook="h", protocol="seed")
    assert result is not None
    assert result.updated_output["content"] == "hi"
    assert result.updated_output["tool_calls"] == []


@pytest.mark.parametrize("calls", [5, "x", {"a": 1}])
def test_non_list_tool_calls_fail_the_decode_as_in_go(calls: Any) -> None:
    params = encode_params("after_llm", after_llm(), "seed")
    answer = {"action": "modify", "response": {**params, "response": {"content": "hi"}}}
    answer["response"]["response"]["tool_calls"] = calls
    with pytest.raises(DecodeError):
        decode("after_llm", answer, params, hook="h", protocol="seed")


def test_keys_match_case_insensitively_and_unknown_keys_are_ignored() -> None:
    sent = encode_params("before_tool", before_tool(text="x"), "current")
    answer = {
        "Action": "modify",
        "CALL": {"Tool": "echo_text", "ARGUMENTS": {"text": "y"}, "extra": 1},
        "unknown": True,
    }
    result = decode("before_tool", answer, sent, hook="h", protocol="current")
    assert result is not None and result.updated_input == {"text": "y"}
    # Go folds a long s to an s
    answer = {"action": "deny_tool", "rea\u017fon": "no"}
    result = decode("before_tool", answer, sent, hook="h", protocol="current")
    assert result is not None and result.reason == "Tool execution denied by hook: no"


def test_a_call_without_tool_names_no_tool() -> None:
    sent = encode_params("before_tool", before_tool(text="x"), "current")
    result = decode("before_tool", {"call": {"arguments": {}}}, sent, hook="h", protocol="current")
    assert result is not None and result.payload_updates == {"tool_name": ""}


def test_abort_turn_ends_the_turn_with_picoclaws_error() -> None:
    result = decode_tool({"action": "abort_turn", "reason": "stop"}, "before_llm")
    assert result.effects == Effects(abort_error="hook requested turn abort")
