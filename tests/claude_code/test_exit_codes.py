"""Spec §4.1/§4.2: stdout classification and the exit-code rules, one test per row, each hook a
real process."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Harness, cmd, group
from .expect import TOOL, check

DENY_JSON = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "json says no",
    }
}
ALLOW_JSON = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
BAD_SCHEMA = {"continue": "yes"}
UPS: dict[str, Any] = {"prompt": "hello"}
SESSION: dict[str, Any] = {"source": "startup", "model": "m"}

# (id, event, payload, stdout, stderr, exit code, rules, expected)
ROWS: list[tuple[str, str, dict[str, Any], Any, str, int, str, dict[str, Any]]] = [
    (
        "0-json-applied",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "",
        0,
        "current",
        {"decision": "deny", "reason": "json says no", "status": "ok"},
    ),
    (
        "0-plain-context-UserPromptSubmit",
        "UserPromptSubmit",
        UPS,
        "remember X\n",
        "",
        0,
        "current",
        {"context": ["remember X"], "decision": None},
    ),
    (
        "0-plain-context-UserPromptExpansion",
        "UserPromptExpansion",
        {"command_name": "review", "prompt": "/review"},
        "expanded ctx",
        "",
        0,
        "current",
        {"context": ["expanded ctx"]},
    ),
    (
        "0-plain-context-SessionStart",
        "SessionStart",
        SESSION,
        "project notes",
        "",
        0,
        "current",
        {"context": ["project notes"]},
    ),
    (
        "0-plain-elsewhere-debug-only",
        "PostToolUse",
        {**TOOL, "tool_response": {}},
        "noise",
        "",
        0,
        "current",
        {"context": [], "decision": None, "status": "ok"},
    ),
    (
        "0-stderr-ignored",
        "PreToolUse",
        TOOL,
        "",
        "just a log line",
        0,
        "current",
        {"decision": None, "status": "ok"},
    ),
    (
        "0-schema-invalid-json",
        "PreToolUse",
        TOOL,
        BAD_SCHEMA,
        "",
        0,
        "current",
        {"decision": None, "status": "error", "error_has": "continue"},
    ),
    (
        "0-json-array-is-text",
        "UserPromptSubmit",
        UPS,
        '["a"]',
        "",
        0,
        "current",
        {"context": ['["a"]']},
    ),
    (
        "0-broken-json-is-text",
        "UserPromptSubmit",
        UPS,
        "{not json",
        "",
        0,
        "current",
        {"context": ["{not json"], "status": "ok"},
    ),
    (
        "0-profile-echo-breaks-json",
        "PreToolUse",
        TOOL,
        "welcome\n" + '{"decision": "block"}',
        "",
        0,
        "current",
        {"decision": None, "status": "ok"},
    ),
    (
        "2-blocks-with-stderr",
        "PreToolUse",
        TOOL,
        "",
        "rm is forbidden\n",
        2,
        "current",
        {"decision": "deny", "reason_has": "]: rm is forbidden", "status": "ok"},
    ),
    (
        "2-blocks-even-if-json-allows",
        "PreToolUse",
        TOOL,
        ALLOW_JSON,
        "nope",
        2,
        "current",
        {"decision": "deny", "reason_has": "]: nope"},
    ),
    (
        "2-json-reason-wins",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "stderr text",
        2,
        "current",
        {"decision": "deny", "reason": "json says no"},
    ),
    (
        "2-schema-invalid-json-still-blocks",
        "PreToolUse",
        TOOL,
        BAD_SCHEMA,
        "blocked",
        2,
        "current",
        {"decision": "deny", "reason_has": "]: blocked"},
    ),
    (
        "2-no-stderr",
        "PreToolUse",
        TOOL,
        "",
        "",
        2,
        "current",
        {"decision": "deny", "reason_has": "]: No stderr output"},
    ),
    (
        "2-cannot-block-json-still-read",
        "SessionStart",
        SESSION,
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "c"}},
        "warning",
        2,
        "current",
        {"context": ["c"], "decision": None, "status": "error", "error_has": "code 2: warning"},
    ),
    (
        "2-ignored-on-permission-request-json-decides",
        "PermissionRequest",
        {"tool_name": "Bash", "tool_input": {}},
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"},
            }
        },
        "dropped",
        2,
        "current",
        {"decision": "allow", "status": "ok"},
    ),
    (
        "1-valid-json-decides",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "warn",
        1,
        "current",
        {"decision": "deny", "reason": "json says no", "status": "ok"},
    ),
    (
        "3-schema-fail-is-error",
        "PreToolUse",
        TOOL,
        BAD_SCHEMA,
        "",
        3,
        "current",
        {"decision": None, "status": "error", "error_has": "invalid hook output"},
    ),
    (
        "1-plain-is-non-blocking-error",
        "PreToolUse",
        TOOL,
        "out",
        "first\nsecond",
        1,
        "current",
        {
            "decision": None,
            "status": "error",
            "error_has": "Failed with non-blocking status code 1: first",
        },
    ),
    (
        "1-never-blocks-stop",
        "Stop",
        {"stop_hook_active": False},
        "",
        "boom",
        1,
        "current",
        {"decision": None, "status": "error"},
    ),
    (
        "worktree-nonzero-fails",
        "WorktreeCreate",
        {"name": "wt"},
        "/tmp/wt\n",
        "no space",
        1,
        "current",
        {"decision": "block", "reason": "no space", "status": "error"},
    ),
    (
        "discarding-event-ignores-exit-2",
        "Notification",
        {"message": "m", "notification_type": "idle_prompt"},
        DENY_JSON,
        "x",
        2,
        "current",
        {"decision": None, "continue_": True},
    ),
    (
        "classic-1-json-ignored",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "oops",
        1,
        "classic",
        {"decision": None, "status": "error", "error_has": "status code 1: oops"},
    ),
    (
        "classic-2-stdout-ignored",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "from stderr",
        2,
        "classic",
        {"decision": "deny", "reason_has": "]: from stderr"},
    ),
    (
        "classic-0-json-applied",
        "PreToolUse",
        TOOL,
        DENY_JSON,
        "",
        0,
        "classic",
        {"decision": "deny", "reason": "json says no"},
    ),
]


@pytest.mark.parametrize(
    ("event", "payload", "stdout", "stderr", "code", "rules", "expected"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
async def test_exit_code_rule(
    h: Harness,
    event: str,
    payload: dict[str, Any],
    stdout: Any,
    stderr: str,
    code: int,
    rules: str,
    expected: dict[str, Any],
) -> None:
    h.hooks(group(event, cmd(h.emit(stdout, stderr, code))), exit_code_rules=rules)
    verdict = await h.fire(event, **payload)
    check(verdict, expected)


async def test_classic_rules_from_the_environment(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_EXIT_RULES", "classic")
    h.hooks(group("PreToolUse", cmd(h.emit(DENY_JSON, "oops", 1))))
    check(await h.fire("PreToolUse", **TOOL), {"decision": None, "status": "error"})


async def test_unknown_exit_rules_in_the_environment_warn(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_EXIT_RULES", "strict")
    h.hooks(group("PreToolUse", cmd(h.emit(DENY_JSON, "oops", 1))))
    assert any("unknown exit-code rules 'strict'" in d for d in h.diagnostics)
    check(await h.fire("PreToolUse", **TOOL), {"decision": "deny"})
