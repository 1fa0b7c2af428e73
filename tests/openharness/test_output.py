"""The unified output: parsing, blocking, capability-gated patches and their merge rules (seed:
output table; spec §5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookwright import Decision, Event, HookInput, HookResult
from hookwright.core.effects import Effects, failure_fix
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.capabilities import normalize
from hookwright.dialects.openharness.envelope import build_envelope
from hookwright.dialects.openharness.events import OH_NAME
from hookwright.dialects.openharness.output import OutputError, parse_output, to_result

from .helpers import (
    MESSAGES,
    context_event,
    model_call,
    model_reply,
    run_end,
    tool_call,
    tool_result,
)


def decode(inp: HookInput, output: dict[str, Any], *caps: str) -> HookResult:
    binding = HookBinding(
        name="h",
        oh_event=OH_NAME[inp.event],
        event=inp.event,
        handler_type="command",
        capabilities=normalize(caps),
        workspace_root=Path("/ws"),
        file="/ws/.openharness/hooks/h.yaml",
    )
    envelope = build_envelope(inp, oh_event=binding.oh_event, workspace_root=Path("/ws"))
    return to_result(parse_output(json.dumps(output)), binding, inp, envelope)


def ignored(result: HookResult) -> list[tuple[str, str | None]]:
    entries = [n.detail for n in (result.effects or Effects()).notices]
    return [(e["scope"], e["capability"]) for e in entries]


# Parsing ------------------------------------------------------------------------------------


def test_prose_around_the_json_is_tolerated() -> None:
    out = parse_output('Sure! Here it is:\n{"systemMessage": "ok", "x": {"y": 1}}\nBye.')
    assert out.system_message == "ok"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("no json here", "no JSON object"),
        ("{not json}", "invalid JSON"),
        ('{"continue": "no"}', "`continue` must be a boolean"),
        ('{"reason": 5}', "`reason` must be a string"),
        ('{"hookSpecificOutput": []}', "`hookSpecificOutput` must be an object"),
        ('{"hookSpecificOutput": {"patch": 1}}', "`hookSpecificOutput.patch` must be an object"),
        ('{"suppressOutput": 1}', "`suppressOutput` must be a boolean"),
    ],
)
def test_bad_output_is_an_error(text: str, words: str) -> None:
    with pytest.raises(OutputError, match=words):
        parse_output(text)


def test_defaults_have_no_effect() -> None:
    result = decode(tool_call(command="ls"), {"continue": True})
    assert not result.has_effect


# Blocking (three ways) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        {"continue": False, "stopReason": "stop it"},
        {"decision": "block", "reason": "stop it"},
        {"continue": False, "decision": "block", "stopReason": "stop it", "reason": "other"},
    ],
)
def test_block_at_tool_dispatch_is_a_deny(output: dict[str, Any]) -> None:
    result = decode(tool_call(command="rm -rf /"), output)
    assert (result.decision, result.reason) == (Decision.deny, "stop it")
    assert result.continue_ and result.terminal


@pytest.mark.parametrize(
    "inp",
    [
        model_call(),
        model_reply(),
        context_event(Event.PreContextBuild),
        context_event(Event.PostContextBuild),
        context_event(Event.PreCompact),
        tool_result("out"),
    ],
)
def test_block_elsewhere_is_a_block(inp: HookInput) -> None:
    result = decode(inp, {"decision": "block", "reason": "no"})
    assert (result.decision, result.reason) == (Decision.block, "no")


def test_block_without_a_reason_names_the_hook() -> None:
    result = decode(tool_call(command="x"), {"continue": False})
    assert result.reason == "Hook h blocked execution."


def test_block_ignores_the_rest_of_the_answer() -> None:
    result = decode(
        tool_call(command="x"),
        {
            "decision": "block",
            "systemMessage": "m",
            "hookSpecificOutput": {"patch": {"tool_input": {"command": "y"}}},
        },
        "rewrite_tool_request",
    )
    assert result.updated_input is None and result.system_message is None


@pytest.mark.parametrize("event", [Event.Stop, Event.StopFailure])
def test_lifecycle_hooks_only_observe(event: Event) -> None:
    result = decode(
        run_end(event),
        {"decision": "block", "continue": False, "systemMessage": "x"},
        "rewrite_context",
    )
    # nothing of the answer applies; only the report that it was ignored is left
    assert result.decision is None and result.continue_ and result.system_message is None
    assert result.additional_context is None and not result.payload_updates
    assert result.effects is not None
    assert [n.kind for n in result.effects.notices] == ["ignored_decision"]
    assert result.effects == Effects(notices=result.effects.notices)


def test_other_decisions_are_ignored() -> None:
    result = decode(tool_call(command="x"), {"decision": "approve"})
    assert result.decision is None and not result.terminal


# Messages -----------------------------------------------------------------------------------


def test_system_message_and_additional_context() -> None:
    result = decode(
        model_call(),
        {
            "systemMessage": "Optional warning",
            "hookSpecificOutput": {
                "hookEventName": "something_else",
                "additionalContext": "Extra context",
            },
        },
    )
    assert result.system_message is None  # a note for the model, not for the user
    assert result.additional_context == "Optional warning\n\nExtra context"


# Capability gating: every scope, with and without its capability ----------------------------

SCOPES: list[tuple[str, HookInput, Any, str]] = [
    ("tool_input", tool_call(command="rm -rf /tmp/x"), {"command": "ls"}, "rewrite_tool_request"),
    ("tool_output", tool_result({"stdout": "a"}), "replaced", "rewrite_tool_response"),
    ("model_request", model_call(), {"temperature": 0.7}, "rewrite_model_request"),
    ("model_response", model_reply(), {"text": "hooked reply"}, "rewrite_model_response"),
    ("context", context_event(Event.PreContextBuild), {"note": 1}, "rewrite_context"),
]


@pytest.mark.parametrize(("scope", "inp", "patch", "capability"), SCOPES)
def test_patch_without_its_capability_is_ignored_and_recorded(
    scope: str, inp: HookInput, patch: Any, capability: str
) -> None:
    others = [c for _, _, _, c in SCOPES if c != capability]
    result = decode(inp, {"hookSpecificOutput": {"patch": {scope: patch}}}, *others)
    assert result.updated_input is None and result.updated_output is None
    assert not result.patches and not result.payload_updates
    assert ignored(result) == [(scope, capability)]
    # reported once, on the result: its error text and the fix (no warning logged beside it)
    assert result.error == f"{scope} ignored: needs capability {capability}"
    assert failure_fix(result.effects) == f"add {capability} to the hook's capabilities"


@pytest.mark.parametrize(("scope", "inp", "patch", "capability"), SCOPES)
def test_patch_with_its_capability_applies(
    scope: str, inp: HookInput, patch: Any, capability: str
) -> None:
    result = decode(inp, {"hookSpecificOutput": {"patch": {scope: patch}}}, capability)
    assert ignored(result) == []
    assert result.patches is not None and scope in result.patches
    assert (
        result.updated_input is not None
        or result.updated_output is not None
        or (result.payload_updates)
    )


def test_seed_alias_patch_tool_input_is_rewrite_tool_request() -> None:
    result = decode(
        tool_call(command="npm test", cwd="/x"),
        {"hookSpecificOutput": {"patch": {"tool_input": {"command": "npm run lint"}}}},
        "patch_tool_input",
    )
    assert result.updated_input == {"command": "npm run lint", "cwd": "/x"}
    assert result.patches == {"tool_input": {"command": "npm run lint"}}


def test_patch_for_another_event_is_ignored() -> None:
    result = decode(
        tool_result("out"),
        {"hookSpecificOutput": {"patch": {"tool_input": {"command": "x"}}}},
        "rewrite_tool_request",
    )
    assert result.updated_input is None
    assert ignored(result) == [("tool_input", "rewrite_tool_request")]


def test_unknown_patch_scope_is_ignored() -> None:
    result = decode(tool_call(command="x"), {"hookSpecificOutput": {"patch": {"env": {}}}})
    assert ignored(result) == [("env", None)]


# Patch rules --------------------------------------------------------------------------------


def test_tool_input_is_shallow_merged() -> None:
    inp = tool_call(command="ls", options={"a": 1, "b": 2})
    result = decode(
        inp,
        {"hookSpecificOutput": {"patch": {"tool_input": {"options": {"a": 9}}}}},
        "rewrite_tool_request",
    )
    assert result.updated_input == {"command": "ls", "options": {"a": 9}}


def test_tool_input_must_stay_an_object() -> None:
    result = decode(
        tool_call(command="ls"),
        {"hookSpecificOutput": {"patch": {"tool_input": "rm -rf /"}}},
        "rewrite_tool_request",
    )
    assert result.updated_input is None
    assert ignored(result) == [("tool_input", "rewrite_tool_request")]


@pytest.mark.parametrize(
    ("current", "patch", "expected"),
    [
        ({"stdout": "a", "code": 0}, {"stdout": "b"}, {"stdout": "b", "code": 0}),
        ({"stdout": "a"}, "tool output patched", "tool output patched"),
        ({"stdout": "a"}, ["x"], ["x"]),
    ],
)
def test_tool_output_merges_objects_and_replaces_the_rest(
    current: Any, patch: Any, expected: Any
) -> None:
    result = decode(
        tool_result(current),
        {"hookSpecificOutput": {"patch": {"tool_output": patch}}},
        "rewrite_tool_response",
    )
    assert result.updated_output == expected


def test_model_request_whitelist() -> None:
    new_messages = [{"role": "user", "content": "rewritten"}, "junk", {"content": "no role"}]
    result = decode(
        model_call(temperature=0.1, max_tokens=100),
        {
            "hookSpecificOutput": {
                "patch": {
                    "model_request": {
                        "temperature": 0.7,
                        "top_p": 0.6,
                        "maxTokens": 50,
                        "max_tokens": 1,
                        "model_ref": "platform/other",
                        "messages": new_messages,
                        "seed": 3,
                    }
                }
            }
        },
        "rewrite_model_request",
    )
    assert result.updated_input == {
        "model": "platform/other",
        "messages": [{"role": "user", "content": "rewritten"}],
        "options": {"temperature": 0.7, "top_p": 0.6, "max_tokens": 50},
    }
    assert result.payload_updates == {"model_ref": "platform/other"}
    assert ignored(result) == [("model_request.{max_tokens,seed}", "rewrite_model_request")]


def test_model_request_patch_keeps_the_fields_it_does_not_name() -> None:
    result = decode(
        model_call(temperature=0.1),
        {"hookSpecificOutput": {"patch": {"model_request": {"topP": 0.5}}}},
        "rewrite_model_request",
    )
    assert result.updated_input == {
        "model": "gpt-4o",
        "messages": MESSAGES,
        "options": {"temperature": 0.1, "top_p": 0.5},
    }


def test_model_response_takes_text_and_finish_reason() -> None:
    result = decode(
        model_reply("original"),
        {
            "hookSpecificOutput": {
                "patch": {"model_response": {"text": "hooked reply", "finishReason": "length"}}
            }
        },
        "rewrite_model_response",
    )
    assert result.updated_output == {
        "content": "hooked reply",
        "tool_calls": [],
        "finish_reason": "length",
        "usage": {},
    }


def test_context_messages_replace_and_objects_merge_deeply() -> None:
    inp = context_event(Event.PreContextBuild)
    inp = inp.with_chain_state(
        {"openharness": {"context": {"messages": MESSAGES, "meta": {"a": 1, "b": {"c": 1}}}}}
    )
    result = decode(
        inp,
        {
            "hookSpecificOutput": {
                "patch": {
                    "context": {
                        "messages": [{"role": "user", "content": "rewritten hello"}],
                        "meta": {"b": {"d": 2}},
                    }
                }
            }
        },
        "rewrite_context",
    )
    merged = {
        "messages": [{"role": "user", "content": "rewritten hello"}],
        "meta": {"a": 1, "b": {"c": 1, "d": 2}},
    }
    assert result.patches == {
        "context": {
            "messages": [{"role": "user", "content": "rewritten hello"}],
            "meta": {"b": {"d": 2}},
        }
    }
    assert result.payload_updates == {"messages": merged["messages"]}
    assert result.chain_state == {"openharness": {"context": merged}}


def test_after_compact_summary_text_patch() -> None:
    inp = HookInput(Event.PostCompact, payload={"trigger": "auto", "compact_summary": "old"})
    result = decode(
        inp,
        {"hookSpecificOutput": {"patch": {"context": {"summaryText": "HOOKED SUMMARY"}}}},
        "rewrite_context",
    )
    assert result.payload_updates is not None
    assert result.payload_updates["compact_summary"] == "HOOKED SUMMARY"


# suppressOutput ----------------------------------------------------------------------------


def test_suppress_output_with_capability() -> None:
    result = decode(tool_result({"stdout": "secret"}), {"suppressOutput": True}, "suppress_output")
    assert result.effects == Effects(suppress_output=True)
    assert result.updated_output == ""


def test_suppress_output_without_capability_is_ignored() -> None:
    result = decode(tool_result({"stdout": "x"}), {"suppressOutput": True})
    assert result.updated_output is None
    assert ignored(result) == [("suppressOutput", "suppress_output")]
    assert not (result.effects or Effects()).suppress_output


def test_suppress_output_elsewhere_only_flags() -> None:
    result = decode(model_reply(), {"suppressOutput": True}, "suppress_output")
    assert result.effects == Effects(suppress_output=True)
    assert result.updated_output is None
