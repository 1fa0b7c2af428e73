"""Spec §6: every event's exit-2 behaviour and its output fields, one test per row, each hook a
real process."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Harness, cmd, group
from .expect import TOOL, check

STOP: dict[str, Any] = {"stop_hook_active": False, "last_assistant_message": "done"}
TASK: dict[str, Any] = {"task_id": "1", "task_subject": "write tests"}
PAYLOADS: dict[str, dict[str, Any]] = {
    "SessionStart": {"source": "startup"},
    "Setup": {"trigger": "init"},
    "InstructionsLoaded": {
        "file_path": "/p/CLAUDE.md",
        "memory_type": "Project",
        "load_reason": "session_start",
    },
    "UserPromptSubmit": {"prompt": "hi"},
    "UserPromptExpansion": {
        "expansion_type": "slash_command",
        "command_name": "review",
        "command_args": "",
        "command_source": "user",
        "prompt": "/review",
    },
    "MessageDisplay": {
        "turn_id": "t",
        "message_id": "m",
        "index": 0,
        "final": True,
        "delta": "hello",
    },
    "PreToolUse": TOOL,
    "PermissionRequest": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    "PermissionDenied": {**TOOL, "reason": "classifier"},
    "PostToolUse": {**TOOL, "tool_response": {"stdout": "", "stderr": ""}},
    "PostToolUseFailure": {**TOOL, "error": "Exit code 1"},
    "PostToolBatch": {"tool_calls": [{**TOOL, "tool_response": "ok"}]},
    "Notification": {"message": "m", "notification_type": "idle_prompt"},
    "SubagentStart": {"agent_id": "a1", "agent_type": "Explore"},
    "SubagentStop": {**STOP, "agent_id": "a1", "agent_type": "Explore"},
    "TaskCreated": TASK,
    "TaskCompleted": TASK,
    "Stop": STOP,
    "StopFailure": {"error": "rate_limit"},
    "TeammateIdle": {"teammate_name": "t", "team_name": "x"},
    "ConfigChange": {"source": "project_settings", "file_path": "/p/.claude/settings.json"},
    "CwdChanged": {"old_cwd": "/a", "new_cwd": "/b"},
    "DirectoryAdded": {"directory": "/d", "source": "slash_command"},
    "FileChanged": {"file_path": "/p/.envrc", "event": "change"},
    "WorktreeCreate": {"name": "wt"},
    "WorktreeRemove": {"worktree_path": "/wt"},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "PostCompact": {"trigger": "auto", "compact_summary": "s"},
    "Elicitation": {"mcp_server_name": "srv", "message": "name?"},
    "ElicitationResult": {"mcp_server_name": "srv", "action": "accept"},
    "SessionEnd": {"reason": "other"},
}

#: Exit 2 with stderr "stop here": what each event does with it (§6, "Exit 2" column).
EXIT2: dict[str, str | None] = {
    "SessionStart": None,
    "Setup": None,
    "InstructionsLoaded": None,
    "UserPromptSubmit": "block",
    "UserPromptExpansion": "block",
    "MessageDisplay": None,
    "PreToolUse": "deny",
    "PermissionRequest": None,
    "PermissionDenied": None,
    "PostToolUse": "block",
    "PostToolUseFailure": "block",
    "PostToolBatch": "block",
    "Notification": None,
    "SubagentStart": None,
    "SubagentStop": "block",
    "TaskCreated": "block",
    "TaskCompleted": "block",
    "Stop": "block",
    "StopFailure": None,
    "TeammateIdle": "block",
    "ConfigChange": "block",
    "CwdChanged": None,
    "DirectoryAdded": None,
    "FileChanged": None,
    "WorktreeCreate": "block",
    "WorktreeRemove": None,
    "PreCompact": "block",
    "PostCompact": None,
    "Elicitation": "block",
    "ElicitationResult": "block",
    "SessionEnd": None,
}


def test_the_tables_cover_all_31_events() -> None:
    assert len(EXIT2) == len(PAYLOADS) == 31


@pytest.mark.parametrize("event", list(EXIT2))
async def test_exit_2(h: Harness, event: str) -> None:
    h.hooks(group(event, cmd(h.emit("", "stop here\n", 2))))
    verdict = await h.fire(event, **PAYLOADS[event])
    expected = EXIT2[event]
    assert verdict.decision == expected
    if expected is not None and event != "WorktreeCreate":
        assert verdict.reason is not None and verdict.reason.endswith("]: stop here\n")  # verbatim
    if expected is None and event != "PermissionRequest":
        assert verdict.results[0].status.value == "error", "stderr is reported as a hook error"
    assert h.audit()[0]["exit_code"] == 2


async def test_exit_2_on_config_change_of_policy_settings_does_not_block(h: Harness) -> None:
    h.hooks(group("ConfigChange", cmd(h.emit("", "no", 2))))
    verdict = await h.fire("ConfigChange", source="policy_settings")
    assert verdict.decision is None


async def test_exit_2_on_permission_request_is_silent(h: Harness) -> None:
    h.hooks(group("PermissionRequest", cmd(h.emit("", "ignored", 2))))
    verdict = await h.fire("PermissionRequest", **PAYLOADS["PermissionRequest"])
    check(verdict, {"decision": None, "status": "ok"})


def hso(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


# (id, event, stdout (JSON object or text), expected)
OUTPUT_ROWS: list[tuple[str, str, Any, dict[str, Any]]] = [
    (
        "SessionStart-fields",
        "SessionStart",
        hso(
            "SessionStart",
            additionalContext="ctx",
            sessionTitle="T",
            watchPaths=["a"],
            initialUserMessage="go",
            reloadSkills=True,
        ),
        {
            "context": ["ctx"],
            "effects": {
                "session_title": "T",
                "watch_paths": ["a"],
                "initial_user_message": "go",
                "reload_skills": True,
            },
        },
    ),
    (
        "Setup-context",
        "Setup",
        hso("Setup", additionalContext="setup ctx"),
        {"context": ["setup ctx"]},
    ),
    ("Setup-plain-stdout-not-context", "Setup", "plain", {"context": []}),
    (
        "InstructionsLoaded-discarded",
        "InstructionsLoaded",
        {"systemMessage": "x", "continue": False},
        {"messages": [], "continue_": True},
    ),
    (
        "UserPromptSubmit-block",
        "UserPromptSubmit",
        {"decision": "block", "reason": "secret"},
        {"decision": "block", "reason": "secret"},
    ),
    (
        "UserPromptSubmit-fields",
        "UserPromptSubmit",
        hso(
            "UserPromptSubmit", additionalContext="c", sessionTitle="t", suppressOriginalPrompt=True
        ),
        {"context": ["c"], "effects": {"session_title": "t", "suppress_original_prompt": True}},
    ),
    (
        "UserPromptExpansion-block",
        "UserPromptExpansion",
        {"decision": "block", "reason": "r"},
        {"decision": "block", "reason": "r"},
    ),
    (
        "MessageDisplay-displayContent",
        "MessageDisplay",
        hso("MessageDisplay", displayContent="HELLO"),
        {"effects": {"display_content": "HELLO"}},
    ),
    (
        "PermissionDenied-retry",
        "PermissionDenied",
        hso("PermissionDenied", retry=True),
        {"effects": {"retry": True}, "decision": None},
    ),
    (
        "PostToolUse-block-feedback",
        "PostToolUse",
        {"decision": "block", "reason": "lint failed"},
        {"decision": "block", "reason": "lint failed"},
    ),
    (
        "PostToolUse-updatedToolOutput",
        "PostToolUse",
        hso(
            "PostToolUse",
            updatedToolOutput={"stdout": "redacted"},
            additionalContext="c",
            classifierContext="note",
        ),
        {
            "updated_output": {"stdout": "redacted"},
            "context": ["c"],
            "effects": {"classifier_context": "note"},
        },
    ),
    (
        "PostToolUse-updatedMCPToolOutput",
        "PostToolUse",
        hso("PostToolUse", updatedMCPToolOutput=[{"type": "text", "text": "x"}]),
        {"updated_output": [{"type": "text", "text": "x"}]},
    ),
    (
        "PostToolUseFailure-context",
        "PostToolUseFailure",
        hso("PostToolUseFailure", additionalContext="try again"),
        {"context": ["try again"]},
    ),
    (
        "PostToolBatch-block",
        "PostToolBatch",
        {"decision": "block", "reason": "stop loop"},
        {"decision": "block"},
    ),
    (
        "PostToolBatch-continue-false",
        "PostToolBatch",
        {"continue": False, "stopReason": "s"},
        {"continue_": False, "stop_reason": "s"},
    ),
    (
        "Notification-discarded",
        "Notification",
        {"systemMessage": "m", "continue": False},
        {"messages": [], "continue_": True},
    ),
    (
        "SubagentStart-context",
        "SubagentStart",
        hso("SubagentStart", additionalContext="sub"),
        {"context": ["sub"]},
    ),
    (
        "SubagentStop-block",
        "SubagentStop",
        {"decision": "block", "reason": "keep going"},
        {"decision": "block", "reason": "keep going"},
    ),
    (
        "TaskCreated-block",
        "TaskCreated",
        {"decision": "block", "reason": "no"},
        {"decision": "block"},
    ),
    (
        "TaskCreated-continue-ignored",
        "TaskCreated",
        {"continue": False, "systemMessage": "m"},
        {"continue_": True, "messages": ["m"]},
    ),
    (
        "TaskCompleted-continue-false",
        "TaskCompleted",
        {"continue": False, "stopReason": "halt"},
        {"continue_": False, "stop_reason": "halt"},
    ),
    (
        "Stop-block",
        "Stop",
        {"decision": "block", "reason": "run the tests"},
        {"decision": "block", "reason": "run the tests"},
    ),
    (
        "Stop-additionalContext",
        "Stop",
        hso("Stop", additionalContext="also lint"),
        {"context": ["also lint"], "decision": None},
    ),
    (
        "Stop-continue-false-beats-block",
        "Stop",
        {"continue": False, "stopReason": "bye", "decision": "block", "reason": "r"},
        {"continue_": False, "stop_reason": "bye"},
    ),
    (
        "StopFailure-terminalSequence-only",
        "StopFailure",
        {"terminalSequence": "\u0007", "systemMessage": "x"},
        {"messages": [], "effects": {"terminal_sequences": ["\u0007"]}},
    ),
    (
        "TeammateIdle-continue-false",
        "TeammateIdle",
        {"continue": False, "stopReason": "idle"},
        {"continue_": False, "stop_reason": "idle"},
    ),
    (
        "ConfigChange-block",
        "ConfigChange",
        {"decision": "block", "reason": "r"},
        {"decision": "block"},
    ),
    (
        "CwdChanged-watchPaths",
        "CwdChanged",
        {**hso("CwdChanged", watchPaths=["/b/.envrc"]), "systemMessage": "cd", "continue": False},
        {"effects": {"watch_paths": ["/b/.envrc"]}, "messages": ["cd"], "continue_": True},
    ),
    (
        "DirectoryAdded-systemMessage",
        "DirectoryAdded",
        {"systemMessage": "added"},
        {"messages": ["added"]},
    ),
    (
        "FileChanged-watchPaths",
        "FileChanged",
        hso("FileChanged", watchPaths=["x"]),
        {"effects": {"watch_paths": ["x"]}},
    ),
    (
        "WorktreeCreate-path-last-line",
        "WorktreeCreate",
        "creating...\n/tmp/wt-1\n\n",
        {"effects": {"worktree_path": "/tmp/wt-1"}, "decision": None},
    ),
    ("WorktreeCreate-no-path-fails", "WorktreeCreate", "", {"decision": "block"}),
    ("WorktreeRemove-discarded", "WorktreeRemove", {"systemMessage": "m"}, {"messages": []}),
    (
        "PreCompact-block",
        "PreCompact",
        {"decision": "block", "reason": "not now"},
        {"decision": "block"},
    ),
    (
        "PreCompact-instructions",
        "PreCompact",
        "keep the API notes\n",
        {"effects": {"compact_instructions": ["keep the API notes"]}},
    ),
    (
        "PostCompact-discarded",
        "PostCompact",
        {"systemMessage": "m", "continue": False},
        {"messages": [], "continue_": True},
    ),
    (
        "Elicitation-action",
        "Elicitation",
        hso("Elicitation", action="accept", content={"name": "x"}),
        {"effects": {"elicitation": {"action": "accept", "content": {"name": "x"}}}},
    ),
    (
        "ElicitationResult-action",
        "ElicitationResult",
        hso("ElicitationResult", action="decline"),
        {"effects": {"elicitation": {"action": "decline", "content": None}}},
    ),
    (
        "SessionEnd-discarded",
        "SessionEnd",
        {"systemMessage": "bye", "continue": False},
        {"messages": [], "continue_": True},
    ),
    (
        "wrong-hookEventName",
        "PostToolUse",
        hso("PreToolUse", additionalContext="c"),
        {"status": "error", "error_has": "incorrect event name", "context": []},
    ),
    (
        "unknown-hookEventName",
        "PostToolUse",
        hso("Bogus"),
        {"status": "error", "error_has": "unknown event 'Bogus'"},
    ),
    (
        "top-level-additionalContext-ignored",
        "UserPromptSubmit",
        {"additionalContext": "c"},
        {"context": [], "status": "ok"},
    ),
    (
        "unknown-keys-dropped",
        "Stop",
        {"decision": "block", "reason": "r", "extraKey": 1},
        {"decision": "block", "status": "ok"},
    ),
]


@pytest.mark.parametrize(
    ("event", "stdout", "expected"),
    [row[1:] for row in OUTPUT_ROWS],
    ids=[row[0] for row in OUTPUT_ROWS],
)
async def test_output_fields(h: Harness, event: str, stdout: Any, expected: dict[str, Any]) -> None:
    h.hooks(group(event, cmd(h.emit(stdout))))
    check(await h.fire(event, **PAYLOADS[event]), expected)


async def test_config_change_of_policy_settings_cannot_be_blocked_by_json(h: Harness) -> None:
    h.hooks(group("ConfigChange", cmd(h.emit({"decision": "block"}))))
    verdict = await h.fire("ConfigChange", source="policy_settings")
    assert verdict.decision is None
