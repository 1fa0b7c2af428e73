"""Spec §7: decisions and how several hooks' answers combine, each hook a real process."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Harness, cmd, group
from .expect import TOOL, check


def pre(**fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


def perm(**decision: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


NEW_INPUT = {"command": "rm -rf build --dry-run"}

# (id, stdout, exit code, expected)
PRE_TOOL_USE: list[tuple[str, Any, int, dict[str, Any]]] = [
    ("allow", pre(permissionDecision="allow"), 0, {"decision": "allow"}),
    (
        "deny-reason",
        pre(permissionDecision="deny", permissionDecisionReason="no"),
        0,
        {"decision": "deny", "reason": "no"},
    ),
    (
        "deny-default-reason",
        pre(permissionDecision="deny"),
        0,
        {"decision": "deny", "reason": "Blocked by hook"},
    ),
    (
        "ask",
        pre(permissionDecision="ask", permissionDecisionReason="sure?"),
        0,
        {"decision": "ask", "reason": "sure?"},
    ),
    ("defer", pre(permissionDecision="defer"), 0, {"decision": "defer"}),
    ("no-output-no-opinion", "", 0, {"decision": None, "status": "ok"}),
    ("exit-2-is-deny", "", 2, {"decision": "deny"}),
    ("legacy-approve-is-allow", {"decision": "approve"}, 0, {"decision": "allow"}),
    (
        "legacy-block-is-deny",
        {"decision": "block", "reason": "legacy"},
        0,
        {"decision": "deny", "reason": "legacy"},
    ),
    (
        "legacy-block-default-reason",
        {"decision": "block"},
        0,
        {"decision": "deny", "reason": "Blocked by hook"},
    ),
    (
        "hookSpecificOutput-wins-over-legacy",
        {"decision": "approve", **pre(permissionDecision="deny", permissionDecisionReason="hso")},
        0,
        {"decision": "deny", "reason": "hso"},
    ),
    (
        "updatedInput-with-allow",
        pre(permissionDecision="allow", updatedInput=NEW_INPUT),
        0,
        {"decision": "allow", "updated_input": NEW_INPUT},
    ),
    (
        "updatedInput-without-decision",
        pre(updatedInput=NEW_INPUT),
        0,
        {"decision": None, "updated_input": NEW_INPUT},
    ),
    (
        "updatedInput-with-ask",
        pre(permissionDecision="ask", updatedInput=NEW_INPUT),
        0,
        {"decision": "ask", "updated_input": NEW_INPUT},
    ),
    (
        "updatedInput-with-deny-not-applied",
        pre(permissionDecision="deny", updatedInput=NEW_INPUT),
        0,
        {"decision": "deny", "updated_input": None},
    ),
    (
        "bare-permissionDecision-is-ignored",
        {"permissionDecision": "allow"},
        0,
        {"decision": None, "status": "ok"},
    ),
    ("additionalContext", pre(additionalContext="ctx"), 0, {"context": ["ctx"]}),
    (
        "continue-false",
        {"continue": False, "stopReason": "halt"},
        0,
        {"continue_": False, "stop_reason": "halt"},
    ),
    ("systemMessage", {"systemMessage": "careful"}, 0, {"messages": ["careful"]}),
    (
        "bad-permissionDecision-is-error",
        pre(permissionDecision="maybe"),
        0,
        {"decision": None, "status": "error", "error_has": "permissionDecision"},
    ),
]


@pytest.mark.parametrize(
    ("stdout", "code", "expected"),
    [row[1:] for row in PRE_TOOL_USE],
    ids=[row[0] for row in PRE_TOOL_USE],
)
async def test_pre_tool_use(h: Harness, stdout: Any, code: int, expected: dict[str, Any]) -> None:
    h.hooks(group("PreToolUse", cmd(h.emit(stdout, "stderr reason", code)), matcher="Bash"))
    check(await h.fire("PreToolUse", **TOOL), expected)


# Several hooks on one event run in parallel and merge (§3, §7.1).
MERGES: list[tuple[str, list[Any], dict[str, Any]]] = [
    (
        "deny-beats-allow",
        [pre(permissionDecision="allow"), pre(permissionDecision="deny")],
        {"decision": "deny"},
    ),
    (
        "defer-beats-ask",
        [pre(permissionDecision="ask"), pre(permissionDecision="defer")],
        {"decision": "defer"},
    ),
    (
        "ask-beats-allow",
        [pre(permissionDecision="allow"), pre(permissionDecision="ask")],
        {"decision": "ask"},
    ),
    ("exit-2-beats-allow", [pre(permissionDecision="allow"), ("", 2)], {"decision": "deny"}),
    (
        "contexts-all-kept",
        [pre(additionalContext="one"), pre(additionalContext="two")],
        {"decision": None},
    ),
    (
        "any-continue-false-stops",
        [{"continue": False}, pre(permissionDecision="allow")],
        {"continue_": False},
    ),
]


@pytest.mark.parametrize(
    ("outputs", "expected"), [row[1:] for row in MERGES], ids=[row[0] for row in MERGES]
)
async def test_merge(h: Harness, outputs: list[Any], expected: dict[str, Any]) -> None:
    handlers = []
    for output in outputs:
        stdout, code = output if isinstance(output, tuple) else (output, 0)
        handlers.append(cmd(h.emit(stdout, "no", code)))
    h.hooks(group("PreToolUse", *handlers))
    verdict = await h.fire("PreToolUse", **TOOL)
    check(verdict, expected)
    assert len(verdict.runs) == len(outputs)


async def test_all_additional_contexts_are_kept(h: Harness) -> None:
    h.hooks(
        group(
            "PreToolUse",
            cmd(h.emit(pre(additionalContext="one"))),
            cmd(h.emit(pre(additionalContext="two"))),
        )
    )
    verdict = await h.fire("PreToolUse", **TOOL)
    assert sorted(verdict.additional_context) == ["one", "two"]


async def test_a_deny_does_not_cancel_siblings_side_effects(h: Harness) -> None:
    marker = h.project / "sibling-ran"
    h.hooks(
        group(
            "PreToolUse",
            cmd(h.emit("", "no", 2)),
            cmd(h.py(f"import time; time.sleep(0.2); open({str(marker)!r}, 'w').close()")),
        )
    )
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is not None and verdict.decision.value == "deny"
    assert marker.exists()


PERMISSION_PAYLOAD: dict[str, Any] = {
    "tool_name": "Bash",
    "tool_input": {"command": "npm test"},
    "permission_suggestions": [],
}
RULE = {
    "type": "addRules",
    "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
    "behavior": "allow",
    "destination": "session",
}

PERMISSION_ROWS: list[tuple[str, Any, dict[str, Any]]] = [
    ("allow", perm(behavior="allow"), {"decision": "allow", "abort": None}),
    (
        "allow-updatedInput-updatedPermissions",
        perm(
            behavior="allow",
            updatedInput={"command": "npm test -- --bail"},
            updatedPermissions=[RULE],
        ),
        {
            "decision": "allow",
            "updated_input": {"command": "npm test -- --bail"},
            "effects": {"permission_updates": [RULE]},
        },
    ),
    (
        "deny-message",
        perm(behavior="deny", message="not on main"),
        {"decision": "deny", "reason": "not on main", "abort": None},
    ),
    (
        "deny-interrupt",
        perm(behavior="deny", message="stop", interrupt=True),
        {"decision": "deny", "abort": "turn"},
    ),
    (
        "no-decision",
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest"}},
        {"decision": None},
    ),
    ("top-level-decision-ignored", {"decision": "block", "reason": "x"}, {"decision": None}),
    ("bad-behavior-is-error", perm(behavior="ask"), {"decision": None, "status": "error"}),
]


@pytest.mark.parametrize(
    ("stdout", "expected"),
    [row[1:] for row in PERMISSION_ROWS],
    ids=[row[0] for row in PERMISSION_ROWS],
)
async def test_permission_request(h: Harness, stdout: Any, expected: dict[str, Any]) -> None:
    h.hooks(group("PermissionRequest", cmd(h.emit(stdout)), matcher="Bash"))
    check(await h.fire("PermissionRequest", **PERMISSION_PAYLOAD), expected)


async def test_permission_request_deny_wins(h: Harness) -> None:
    h.hooks(
        group(
            "PermissionRequest",
            cmd(h.emit(perm(behavior="allow"))),
            cmd(h.emit(perm(behavior="deny", message="no"))),
        )
    )
    check(
        await h.fire("PermissionRequest", **PERMISSION_PAYLOAD),
        {"decision": "deny", "reason": "no"},
    )
