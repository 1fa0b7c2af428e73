"""A merged `Verdict` back on Codex's wire: the JSON a Codex command hook would print for
that event, so hookwright can answer as a Codex hook (`hookwright hook codex`).

Only what Codex accepts is printed (`answer` reads the same rules back): a PreToolUse block is
``permissionDecision: "deny"`` with its reason, a rewrite ``permissionDecision: "allow"`` with
``updatedInput``, and nothing else (a plain allow or ask would be a failed hook in Codex);
UserPromptSubmit, PostToolUse and Stop blocks are ``decision: "block"`` with the reason;
PermissionRequest answers ``decision.behavior``; ``additionalContext`` goes where Codex reads
it and ``systemMessage`` everywhere. A verdict that changes nothing prints nothing.
"""

from __future__ import annotations

import json
from typing import Any, Final

from hookwright.core.events import Event
from hookwright.core.results import REWRITE_DECISIONS, Decision, Verdict

E = Event
_CONTEXT: Final = frozenset({E.SessionStart, E.UserPromptSubmit, E.PreToolUse, E.PostToolUse})
_TOP_LEVEL_BLOCK: Final = frozenset({E.UserPromptSubmit, E.PostToolUse, E.Stop, E.SubagentStop})
BLOCKED: Final = "Blocked by hook"


def _specific(verdict: Verdict) -> dict[str, Any]:
    event = verdict.event
    specific: dict[str, Any] = {}
    if event is E.PreToolUse:
        if verdict.blocked:
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = verdict.reason or BLOCKED
        elif verdict.updated_input is not None and verdict.decision in REWRITE_DECISIONS:
            specific["permissionDecision"] = "allow"
            specific["updatedInput"] = verdict.updated_input
    elif event is E.PermissionRequest:
        if verdict.blocked:
            specific["decision"] = {"behavior": "deny", "message": verdict.reason or BLOCKED}
        elif verdict.decision is Decision.allow:
            specific["decision"] = {"behavior": "allow"}
    if event in _CONTEXT and verdict.additional_context:
        specific["additionalContext"] = "\n".join(verdict.additional_context)
    return specific


def encode_output(verdict: Verdict) -> dict[str, Any]:
    """The JSON object a Codex hook would print to have `verdict`'s effect."""
    out: dict[str, Any] = {}
    if verdict.blocked and verdict.event in _TOP_LEVEL_BLOCK:
        out["decision"] = "block"
        out["reason"] = verdict.reason or BLOCKED
    if verdict.system_messages:
        out["systemMessage"] = "\n".join(verdict.system_messages)
    specific = _specific(verdict)
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": verdict.event.value, **specific}
    return out


def encode_output_json(verdict: Verdict) -> bytes:
    """`encode_output` as the bytes a hook prints (nothing when the verdict changes nothing)."""
    out = encode_output(verdict)
    if not out:
        return b""
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
