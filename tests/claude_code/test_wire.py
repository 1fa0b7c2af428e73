"""Claude Code's wire both ways, without processes: the stdin bytes of an input (an allow-list per
event, Claude Code's order, `JSON.stringify`'s bytes) and a verdict encoded as the JSON a hook
would print, read back by the codec to the same effect (property-based)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookwright import Effects, Event, HookInput, Verdict
from hookwright.core.results import Decision, HookResult
from hookwright.dialects.claude_code import (
    EVENT_FIELDS,
    decode_command,
    encode_input,
    encode_output,
    encode_output_json,
    encode_stdin,
)
from hookwright.dialects.claude_code.stdin import js_json

FOREIGN = {
    "openharness_context": {"messages": []},
    "channel": "cli",
    "chat_id": "s1",
    "workspace_id": "/p",
    "run_id": "t1",
    "project_dir": "/p",
    "iteration": 0,
    "tool_result": {"content": "x", "is_error": False},
    "messages": [],
    "permission_prompt": True,
}


def tool_input(event: Event = Event.PreToolUse, **payload: Any) -> HookInput:
    return HookInput(
        event,
        session_id="s1",
        turn_id="t1",
        cwd="/p",
        transcript_path="/t.jsonl",
        permission_mode="default",
        payload={
            **FOREIGN,
            "tool_use_id": "toolu_1",
            "tool_input": {"command": "echo ünïcode ✓"},
            "tool_name": "Bash",
            **payload,
        },
    )


def test_pre_tool_use_bytes_are_claude_codes() -> None:
    expected = (
        '{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default",'
        '"hook_event_name":"PreToolUse","tool_name":"Bash",'
        '"tool_input":{"command":"echo ünïcode ✓"},"tool_use_id":"toolu_1"}\n'
    )
    assert encode_stdin(tool_input()) == expected.encode()


def test_optional_common_fields_keep_their_place_when_present() -> None:
    inp = tool_input(effort={"level": "high"}, prompt_id="p-1")
    inp.agent_id, inp.agent_type = "a1", "Explore"
    assert list(encode_input(inp)) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "agent_id",
        "agent_type",
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ]


def test_each_event_sends_its_own_fields_only() -> None:
    for event, fields in EVENT_FIELDS.items():
        payload = {name: f"v-{name}" for name in fields} | FOREIGN
        inp = HookInput(event, session_id="s", cwd="/p", permission_mode="plan", payload=payload)
        wire = encode_input(inp)
        own = [name for name in wire if name not in ("session_id", "cwd", "permission_mode")]
        assert own == ["hook_event_name", *fields], event


def test_permission_mode_only_on_turn_events() -> None:
    start = HookInput(
        Event.SessionStart,
        session_id="s",
        permission_mode="default",
        payload={"source": "startup", "model": "m", **FOREIGN},
    )
    assert encode_input(start) == {
        "session_id": "s",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": "m",
    }
    assert "tool_use_id" not in encode_input(tool_input(Event.PermissionRequest))


def test_numbers_and_strings_as_json_stringify_writes_them() -> None:
    inp = HookInput(
        Event.PostToolUse,
        payload={
            "tool_name": "T",
            "tool_input": {"a": 2.0, "b": 0.5, "c": float("nan"), "d": "\ud800", "e": "\u2028"},
            "duration_ms": 12.0,
        },
    )
    assert encode_stdin(inp) == (
        b'{"hook_event_name":"PostToolUse","tool_name":"T",'
        b'"tool_input":{"a":2,"b":0.5,"c":null,"d":"\\ud800","e":"\xe2\x80\xa8"},'
        b'"duration_ms":12}\n'
    )


#: Nested values with every kind of leaf `js_json` meets, floats of each kind and lone
#: surrogates included; tuples and lists mixed.
JS_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(exclude_categories=()), max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


def stringify_reference(value: Any) -> Any:
    """`JSON.stringify`'s numbers, spelled out: a non-finite float is null, a whole one (below
    1e21, where `JSON.stringify` turns to exponents) an integer."""
    if isinstance(value, float) and not isinstance(value, bool):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, dict):
        return {key: stringify_reference(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [stringify_reference(item) for item in value]
    return value


@settings(max_examples=300, deadline=None)
@given(JS_VALUES)
def test_js_json_is_json_dumps_of_stringify_numbers(value: Any) -> None:
    expected = json.dumps(stringify_reference(value), ensure_ascii=False, separators=(",", ":"))
    assert js_json(value) == expected.encode("utf-8", errors="backslashreplace")


# Encoder round trip ---------------------------------------------------------------------------

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
INPUTS = st.dictionaries(st.sampled_from(["command", "path", "n"]), TEXT, max_size=3)
ROUND_TRIP_EVENTS = [
    Event.PreToolUse,
    Event.PermissionRequest,
    Event.PostToolUse,
    Event.PostToolUseFailure,
    Event.UserPromptSubmit,
    Event.Stop,
    Event.SubagentStop,
    Event.SessionStart,
]


@st.composite
def verdicts(draw: st.DrawFn) -> Verdict:
    event = draw(st.sampled_from(ROUND_TRIP_EVENTS))
    verdict = Verdict(event)
    result = HookResult()
    if event is Event.PreToolUse:
        result.decision = draw(st.sampled_from([None, *Decision]))
    elif event is Event.PermissionRequest:
        result.decision = draw(st.sampled_from([None, Decision.allow, Decision.deny]))
    elif event is not Event.SessionStart:
        result.decision = draw(st.sampled_from([None, Decision.block]))
    if result.decision is not None:
        result.reason = draw(st.none() | TEXT)
    if event in (Event.PreToolUse, Event.PermissionRequest):
        result.updated_input = draw(st.none() | INPUTS)
    if event is Event.PostToolUse:
        result.updated_output = draw(st.none() | TEXT | INPUTS)
    if event is not Event.PermissionRequest:
        result.additional_context = draw(st.none() | TEXT)
        result.system_message = draw(st.none() | TEXT)
    if draw(st.booleans()):
        result.continue_, result.stop_reason = False, draw(st.none() | TEXT)
    verdict.absorb(result)
    return verdict


def expected(verdict: Verdict) -> dict[str, Any]:
    """What a Claude Code hook printing this verdict's answer does."""
    event, decision = verdict.event, verdict.decision
    if event is Event.PreToolUse and decision is Decision.block:
        decision = Decision.deny
    reason = verdict.reason if decision is not None else None
    if event is Event.PreToolUse and decision is Decision.deny:
        reason = reason or "Blocked by hook"
    rewrite = verdict.updated_input if not verdict.blocked else None
    if event is Event.PermissionRequest and decision is Decision.allow:
        reason = None  # an allow carries no message
    elif event is Event.PermissionRequest:
        rewrite = None
    return {
        "decision": decision,
        "reason": reason,
        "updated_input": rewrite,
        "updated_output": verdict.updated_output,
        "context": "\n".join(verdict.additional_context) or None,
        "message": "\n".join(verdict.system_messages) or None,
        "continue": verdict.continue_,
        "stop_reason": verdict.stop_reason,
    }


def observed(result: HookResult) -> dict[str, Any]:
    return {
        "decision": result.decision,
        "reason": result.reason,
        "updated_input": result.updated_input,
        "updated_output": result.updated_output,
        "context": result.additional_context,
        "message": result.system_message,
        "continue": result.continue_,
        "stop_reason": result.stop_reason,
    }


@settings(max_examples=300, deadline=None)
@given(verdicts())
def test_an_encoded_verdict_decodes_to_the_same_effect(verdict: Verdict) -> None:
    printed = encode_output_json(verdict).decode("utf-8")
    inp = HookInput(verdict.event, payload={"tool_name": "Bash", "tool_input": {}})
    decoded = decode_command(inp, exit_code=0, stdout=printed, stderr="", label="hook")
    assert decoded.error is None, (printed, decoded.error)
    assert observed(decoded) == expected(verdict), printed


def test_encoded_pre_tool_use_reads_as_claude_code_expects() -> None:
    verdict = Verdict(Event.PreToolUse)
    verdict.absorb(
        HookResult(
            decision=Decision.allow,
            reason="safe",
            updated_input={"command": "ls -la"},
            additional_context="checked",
        )
    )
    assert encode_output(verdict) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "safe",
            "updatedInput": {"command": "ls -la"},
            "additionalContext": "checked",
        }
    }
    assert encode_output_json(verdict).endswith(b"}\n") and b": " not in encode_output_json(verdict)


def test_permission_request_deny_with_interrupt_and_stop_block() -> None:
    denied = Verdict(Event.PermissionRequest)
    denied.absorb(HookResult(decision=Decision.deny, reason="no", abort="turn"))
    assert encode_output(denied) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "no", "interrupt": True},
        }
    }
    stop = Verdict(Event.Stop)
    stop.absorb(HookResult(decision=Decision.block, reason="run the tests"))
    assert encode_output(stop) == {"decision": "block", "reason": "run the tests"}
    allowed = Verdict(Event.PermissionRequest)
    allowed.absorb(
        HookResult(
            decision=Decision.allow,
            effects=Effects(permission_updates=({"type": "setMode", "mode": "acceptEdits"},)),
        )
    )
    assert json.loads(encode_output_json(allowed))["hookSpecificOutput"]["decision"] == {
        "behavior": "allow",
        "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}],
    }


def common_input(event: Event, **payload: Any) -> HookInput:
    return HookInput(
        event,
        session_id="s",
        cwd="/p",
        transcript_path="/t.jsonl",
        permission_mode="default",
        agent_id="a1",
        agent_type="Explore",
        payload={**FOREIGN, "prompt_id": "p-1", "effort": {"level": "high"}, **payload},
    )


def test_effort_only_on_tool_and_stop_events() -> None:
    """Measured in Claude Code 2.1.240 (`-p`): the prompt, session, subagent-start and
    compaction events carry no `effort`; in 2.1.332, PreSkillShellCommand (newer) does."""
    carrying = {event for event in EVENT_FIELDS if "effort" in encode_input(common_input(event))}
    assert carrying == {
        Event.PreSkillShellCommand,
        Event.PreToolUse,
        Event.PermissionRequest,
        Event.PermissionDenied,
        Event.PostToolUse,
        Event.PostToolUseFailure,
        Event.PostToolBatch,
        Event.Stop,
        Event.SubagentStop,
    }


def test_subagent_events_put_the_agent_before_the_event_name() -> None:
    start = encode_input(common_input(Event.SubagentStart))
    stop = encode_input(
        common_input(
            Event.SubagentStop,
            stop_hook_active=False,
            agent_transcript_path="/a.jsonl",
            last_assistant_message="hi",
            background_tasks=[],
            session_crons=[],
        )
    )

    assert list(start) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "agent_id",
        "agent_type",
        "hook_event_name",
    ]
    assert list(stop) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "agent_id",
        "agent_type",
        "effort",
        "hook_event_name",
        "stop_hook_active",
        "agent_transcript_path",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    ]


def test_pre_compact_without_instructions_sends_null() -> None:
    inp = HookInput(
        Event.PreCompact,
        session_id="s",
        cwd="/p",
        payload={"prompt_id": "p-1", "trigger": "manual", "custom_instructions": None},
    )

    assert encode_stdin(inp) == (
        b'{"session_id":"s","cwd":"/p","prompt_id":"p-1","hook_event_name":"PreCompact",'
        b'"trigger":"manual","custom_instructions":null}\n'
    )


def _context_only(event: Event, context: str) -> Verdict:
    verdict = Verdict(event)
    verdict.absorb(HookResult(additional_context=context))
    return verdict


def _encoded_afresh(verdict: Verdict) -> bytes:
    return js_json(encode_output(verdict)) + b"\n"


@settings(max_examples=300, deadline=None)
@given(verdicts())
def test_a_remembered_context_answer_goes_only_to_a_context_only_verdict(verdict: Verdict) -> None:
    """A context-only verdict's answer is encoded once per event and context: the answer
    remembered for this event and context is never given to a verdict that says more."""
    primed = _context_only(verdict.event, (verdict.additional_context or ["rules"])[0])
    assert encode_output_json(primed) == encode_output_json(primed) == _encoded_afresh(primed)
    assert encode_output_json(verdict) == _encoded_afresh(verdict)


def test_a_context_with_anything_else_is_encoded_whole() -> None:
    for event in (Event.UserPromptSubmit, Event.PreToolUse, Event.SessionStart):
        remembered = encode_output_json(_context_only(event, "rules"))
        assert json.loads(remembered)["hookSpecificOutput"]["additionalContext"] == "rules"
        more = [HookResult(system_message="hi"), HookResult(decision=Decision.allow)]
        more.append(HookResult(updated_input={"command": "ls"}))
        more.append(HookResult(continue_=False, stop_reason="stop"))
        titled = HookResult()
        titled.add_effects(session_title="named")
        more.append(titled)
        for extra in more:
            verdict = _context_only(event, "rules")
            verdict.absorb(extra)
            assert encode_output_json(verdict) == _encoded_afresh(verdict)
    other = encode_output_json(_context_only(Event.UserPromptSubmit, "other rules"))
    assert json.loads(other)["hookSpecificOutput"]["additionalContext"] == "other rules"
    stopped = _context_only(Event.UserPromptSubmit, "rules")
    stopped.absorb(HookResult(continue_=False, stop_reason="stop"))
    assert json.loads(encode_output_json(stopped))["continue"] is False
