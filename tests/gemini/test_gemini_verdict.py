"""A merged verdict printed as a Gemini CLI hook answer (`dialects.gemini.verdict`), read
back by the Gemini dialect's own answer reader (`dialects.gemini.output`): what hookwright
prints inside Gemini means what it meant in hookwright."""

from __future__ import annotations

import json

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Verdict
from hookwright.dialects.gemini.output import decode_answer
from hookwright.dialects.gemini.verdict import encode_output, encode_output_json


def verdict(event: Event, *results: HookResult) -> Verdict:
    merged = Verdict(event)
    for result in results:
        merged.absorb(result)
    return merged


def test_nothing_to_say_prints_nothing() -> None:
    assert encode_output_json(verdict(Event.PreToolUse), "BeforeTool") == b""


def test_a_block_reads_back_as_gemini_s_blocked_tool() -> None:
    denied = verdict(Event.PreToolUse, HookResult(decision=Decision.deny, reason="no"))
    answer = json.loads(encode_output_json(denied, "BeforeTool"))
    assert answer == {"decision": "deny", "reason": "no"}
    inp = HookInput(Event.PreToolUse, payload={"tool_name": "Bash", "tool_input": {}})
    result = decode_answer(answer, "BeforeTool", inp)
    assert result.effects.tool_message == '{"error": "Tool execution blocked: no"}'


def test_a_block_where_gemini_reads_no_decision_is_not_printed() -> None:
    blocked = verdict(Event.SessionEnd, HookResult(decision=Decision.block, reason="no"))
    assert encode_output(blocked, "SessionEnd") == {}


def test_a_stop_is_continue_false_with_its_reason() -> None:
    stopped = verdict(Event.PostToolUse, HookResult(continue_=False, stop_reason="enough"))
    assert encode_output(stopped, "AfterTool") == {"continue": False, "stopReason": "enough"}


def test_a_request_rewrite_is_gemini_s_llm_request() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": [{"type": "text", "text": "not text"}]},
    ]
    rewritten = verdict(
        Event.PreModelCall, HookResult(updated_input={"model": "m2", "messages": messages})
    )
    specific = encode_output(rewritten, "BeforeModel")["hookSpecificOutput"]
    assert specific["llm_request"] == {
        "model": "m2",
        "messages": [{"role": "user", "content": "hi"}, {"role": "model", "content": "hello"}],
    }


def test_context_only_where_gemini_gives_it_to_the_model() -> None:
    noted = HookResult(additional_context="ctx")
    assert "hookSpecificOutput" in encode_output(verdict(Event.PostToolUse, noted), "AfterTool")
    assert encode_output(verdict(Event.PreToolUse, noted), "BeforeTool") == {}
