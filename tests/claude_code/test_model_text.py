"""The words around a hook's answer (`claude_code.notes`) and the paragraphs a host shows
(`host.notes.model_notes`): real command hooks, one dispatch each."""

from __future__ import annotations

from typing import Any

from hookwright import HookResult, ModelNote
from hookwright.core.effects import Effects
from hookwright.core.results import Decision
from hookwright.host.notes import model_notes

from .conftest import Harness, cmd, group
from .expect import TOOL


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


async def test_context_and_plain_output_are_worded_per_event(h: Harness) -> None:
    h.hooks(
        {
            **group("SessionStart", cmd(h.emit(specific("SessionStart", additionalContext="c")))),
            **group("UserPromptSubmit", cmd(h.emit("  plain  \n"))),
            **group("PostToolBatch", cmd(h.emit(specific("PostToolBatch", additionalContext="b")))),
        }
    )
    start = await h.fire("SessionStart", source="resume")
    prompt = await h.fire("UserPromptSubmit", prompt="go")
    batch = await h.fire("PostToolBatch", tool_calls=[])
    assert model_notes(start.results) == ("SessionStart hook additional context: c",)
    assert model_notes(prompt.results) == ("UserPromptSubmit hook success: plain",)
    assert model_notes(batch.results) == ("PostToolBatch hook additional context: b",)


async def test_session_start_success_names_its_source(h: Harness) -> None:
    h.hooks(group("SessionStart", cmd(h.emit("plain"))))
    verdict = await h.fire("SessionStart", source="compact")
    assert model_notes(verdict.results) == ("SessionStart:compact hook success: plain",)


async def test_post_tool_use_block_and_context_name_the_tool_and_the_command(h: Harness) -> None:
    answer = {"decision": "block", "reason": "r", **specific("PostToolUse", additionalContext="c")}
    command = h.emit(answer)
    h.hooks(group("PostToolUse", cmd(command)))
    verdict = await h.fire("PostToolUse", **TOOL, tool_response={})
    assert model_notes(verdict.results) == (
        f'PostToolUse:Bash hook blocking error from command: "{command}": r',
        "PostToolUse:Bash hook additional context: c",
    )


async def test_a_pre_tool_use_exit_2_is_a_hook_error_with_the_stderr_verbatim(
    h: Harness,
) -> None:
    exit_two = h.emit("", "no\n", 2)
    h.hooks(group("PreToolUse", cmd(exit_two)))
    blocked = await h.fire("PreToolUse", **TOOL)
    assert blocked.effects.tool_message == f"PreToolUse:Bash hook error: [{exit_two}]: no\n"


async def test_a_pre_tool_use_json_deny_is_its_reason(h: Harness) -> None:
    deny = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="why")
    h.hooks(group("PreToolUse", cmd(h.emit(deny))))
    denied = await h.fire("PreToolUse", **TOOL)
    assert denied.effects.tool_message == "why"


async def test_permission_request_deny_message_defaults_to_claude_codes(h: Harness) -> None:
    bare = specific("PermissionRequest", decision={"behavior": "deny"})
    h.hooks(group("PermissionRequest", cmd(h.emit(bare))))
    verdict = await h.fire("PermissionRequest", tool_name="Bash", tool_input={})
    assert verdict.effects.tool_message == "Permission denied by hook"


async def test_updated_tool_output_is_a_response_for_the_tool_to_show(h: Harness) -> None:
    output = {"stdout": "new", "stderr": "", "interrupted": False}
    h.hooks(group("PostToolUse", cmd(h.emit(specific("PostToolUse", updatedToolOutput=output)))))
    verdict = await h.fire("PostToolUse", **TOOL, tool_response={})
    assert verdict.effects.tool_response == output
    assert verdict.updated_output == output


def result(*notes: ModelNote, context: str | None = None, **fields: Any) -> HookResult:
    effects = Effects(model_notes=notes) if notes else None
    return HookResult(additional_context=context, effects=effects, **fields)


def test_paragraphs_follow_the_results_and_gathered_notes_come_last() -> None:
    label = "SessionStart hook additional context: "
    results = [
        result(ModelNote("one", label, gather=True)),
        result(ModelNote("plain", "SessionStart:startup hook success: ")),
        result(context="from another dialect"),
        result(ModelNote("two", label, gather=True)),
    ]
    assert model_notes(results) == (
        "SessionStart:startup hook success: plain",
        "from another dialect",
        f"{label}one\ntwo",
    )


def test_an_unworded_block_is_feedback_only_where_the_host_says_so() -> None:
    blocked = [result(decision=Decision.block, reason="lint failed", context="ctx")]
    assert model_notes(blocked) == ("ctx",)
    assert model_notes(blocked, feedback_label="PostToolUse hook feedback:\n") == (
        "PostToolUse hook feedback:\nlint failed",
        "ctx",
    )


def test_the_same_context_twice_is_two_paragraphs() -> None:
    note = ModelNote("same", "UserPromptSubmit hook additional context: ")
    assert (
        model_notes([result(note), result(note)])
        == ("UserPromptSubmit hook additional context: same",) * 2
    )
