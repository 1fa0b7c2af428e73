"""A merged `Verdict` back on Claude Code's wire: the JSON a hook answering Claude Code would
print for that event (spec §4.5, §6, §7), so hookwright can itself answer as a Claude Code hook.

Read back with the Claude Code codec, the answer gives the verdict's decision, reason, input and
output rewrites, context, system message and `continue` again. Per event:

* PreToolUse: ``hookSpecificOutput.permissionDecision`` (allow, deny, ask, defer; a block is a
  deny) with ``permissionDecisionReason``; ``updatedInput`` unless the call is denied;
* PreModelSwitch: ``permissionDecision`` allow, ask or deny (a block) with its reason;
  PreSkillShellCommand: only ``permissionDecision: "deny"``, for a deny, block, ask, defer or an
  input rewrite (Claude Code stops the command for each; allow adds nothing there);
* PermissionRequest: ``hookSpecificOutput.decision`` = ``{behavior: "allow", updatedInput?,
  updatedPermissions?}`` or ``{behavior: "deny", message?, interrupt?}`` (``interrupt`` when the
  verdict aborts); ask and defer leave the prompt to the user, so they print no decision;
* the events of top-level blocks (UserPromptSubmit, UserPromptExpansion, PostToolUse,
  PostToolUseFailure, PostToolBatch, Stop, SubagentStop, ConfigChange, PreCompact,
  TaskCreated): ``decision: "block"`` and ``reason``;
* ``hookSpecificOutput.additionalContext`` (every context, one per line) where Claude Code
  reads it; PostToolUse ``updatedToolOutput`` and ``classifierContext``; the typed extras of
  SessionStart, UserPromptSubmit, PermissionDenied, CwdChanged, FileChanged, MessageDisplay,
  Elicitation, ElicitationResult and WorktreeCreate under their Claude Code names;
* top level: ``continue: false`` with ``stopReason`` when the verdict stops (or aborts) on an
  event that honours it, ``systemMessage`` (every message, one per line) where it is kept,
  ``suppressOutput`` and ``terminalSequence`` when the verdict carries them.

Effects Claude Code has no field for are not printed: a synthetic tool result (`respond`),
OpenHarness patches, other payload rewrites, and blocks that only an exit code expresses
(TaskCompleted, TeammateIdle, WorktreeCreate).
"""

from __future__ import annotations

from collections.abc import Callable

from hookwright.core.effects import NO_EFFECTS
from hookwright.core.events import Event
from hookwright.core.results import REWRITE_DECISIONS, Decision, Verdict
from hookwright.dialects.claude_code.stdin import js_json
from hookwright.dialects.claude_code.tables import (
    ADDITIONAL_CONTEXT,
    CONTINUE_HONOURED,
    DEFAULT_DENY_REASON,
    SKILL_REWRITE_REFUSED,
    SYSTEM_MESSAGE_KEPT,
    TOP_LEVEL_BLOCK,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

E = Event

#: Typed effects a hook answers with, per event: (`Effects` field, hookSpecificOutput field).
EXTRA_FIELDS: Final[dict[Event, tuple[tuple[str, str], ...]]] = {
    E.SessionStart: (
        ("initial_user_message", "initialUserMessage"),
        ("session_title", "sessionTitle"),
        ("watch_paths", "watchPaths"),
        ("reload_skills", "reloadSkills"),
    ),
    E.UserPromptSubmit: (
        ("session_title", "sessionTitle"),
        ("suppress_original_prompt", "suppressOriginalPrompt"),
    ),
    E.PermissionDenied: (("retry", "retry"),),
    E.PostToolUse: (("classifier_context", "classifierContext"),),
    E.CwdChanged: (("watch_paths", "watchPaths"),),
    E.FileChanged: (("watch_paths", "watchPaths"),),
    E.MessageDisplay: (("display_content", "displayContent"),),
    E.WorktreeCreate: (("worktree_path", "worktreePath"),),
}

_ELICITATION_EVENTS: Final = frozenset({E.Elicitation, E.ElicitationResult})


def _pre_tool_use(verdict: Verdict, specific: dict[str, Any]) -> None:
    decision = verdict.decision
    if decision is not None:
        specific["permissionDecision"] = "deny" if verdict.blocked else decision.value
        if verdict.reason:
            specific["permissionDecisionReason"] = verdict.reason
    if verdict.updated_input is not None and decision in REWRITE_DECISIONS:
        specific["updatedInput"] = verdict.updated_input


def _pre_model_switch(verdict: Verdict, specific: dict[str, Any]) -> None:
    decision = verdict.decision
    if verdict.blocked or decision is Decision.allow or decision is Decision.ask:
        specific["permissionDecision"] = "deny" if verdict.blocked else str(decision)
        if verdict.reason:
            specific["permissionDecisionReason"] = verdict.reason


def _pre_skill_shell_command(verdict: Verdict, specific: dict[str, Any]) -> None:
    """Only a refusal is printed: allow adds nothing there, and ask, defer and a rewrite
    (never applied) all stop the command, so each is answered as the deny it amounts to."""
    refused = verdict.decision not in (None, Decision.allow)
    if refused:
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = verdict.reason or DEFAULT_DENY_REASON
    elif verdict.updated_input is not None:
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = SKILL_REWRITE_REFUSED


def _permission_request(verdict: Verdict, specific: dict[str, Any]) -> None:
    if verdict.decision is Decision.allow:
        answer: dict[str, Any] = {"behavior": "allow"}
        if verdict.updated_input is not None:
            answer["updatedInput"] = verdict.updated_input
        permissions = verdict.effects.permission_updates
        if permissions:
            answer["updatedPermissions"] = [dict(p) for p in permissions]
        specific["decision"] = answer
    elif verdict.blocked:
        answer = {"behavior": "deny"}
        if verdict.reason:
            answer["message"] = verdict.reason
        if verdict.abort is not None:
            answer["interrupt"] = True
        specific["decision"] = answer


#: The events whose decision has a field of its own, and what writes it. A daemon encodes
#: every answer: members named here once, not looked up on `Event` per answer (each lookup
#: goes through the enum type's attribute hook).
_DECIDED: Final[dict[Event, Callable[[Verdict, dict[str, Any]], None]]] = {
    E.PreToolUse: _pre_tool_use,
    E.PermissionRequest: _permission_request,
    E.PreModelSwitch: _pre_model_switch,
    E.PreSkillShellCommand: _pre_skill_shell_command,
}
_POST_TOOL_USE: Final = E.PostToolUse
_PERMISSION_REQUEST: Final = E.PermissionRequest


def _specific(verdict: Verdict) -> dict[str, Any]:
    event = verdict.event
    specific: dict[str, Any] = {}
    decided = _DECIDED.get(event)
    if decided is not None:
        decided(verdict, specific)
    elif event is _POST_TOOL_USE and verdict.updated_output is not None:
        specific["updatedToolOutput"] = verdict.updated_output
    if event in ADDITIONAL_CONTEXT and verdict.additional_context:
        specific["additionalContext"] = "\n".join(verdict.additional_context)
    for effect, name in EXTRA_FIELDS.get(event, ()):
        value = getattr(verdict.effects, effect)
        if value is not None and value is not False and value != ():
            specific[name] = list(value) if isinstance(value, tuple) else value
    elicitation = verdict.effects.elicitation
    if event in _ELICITATION_EVENTS and elicitation is not None:
        if elicitation.action is not None:
            specific["action"] = elicitation.action
        if elicitation.content is not None:
            specific["content"] = dict(elicitation.content)
    return specific


def _stops(verdict: Verdict) -> bool:
    if verdict.event is _PERMISSION_REQUEST:
        return not verdict.continue_
    return not verdict.continue_ or verdict.abort is not None


def encode_output(verdict: Verdict) -> dict[str, Any]:
    """The JSON object a Claude Code hook would print to have `verdict`'s effect."""
    event = verdict.event
    out: dict[str, Any] = {}
    if _stops(verdict) and event in CONTINUE_HONOURED:
        out["continue"] = False
        reason = verdict.stop_reason or (verdict.reason if verdict.continue_ else None)
        if reason:
            out["stopReason"] = reason
    if verdict.effects.suppress_output:
        out["suppressOutput"] = True
    if verdict.blocked and event in TOP_LEVEL_BLOCK:
        out["decision"] = "block"
        if verdict.reason:
            out["reason"] = verdict.reason
    if verdict.system_messages and event in SYSTEM_MESSAGE_KEPT:
        out["systemMessage"] = "\n".join(verdict.system_messages)
    sequences = verdict.effects.terminal_sequences
    if sequences:
        out["terminalSequence"] = "".join(sequences)
    specific = _specific(verdict)
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event.value, **specific}
    return out


def encode_output_json(verdict: Verdict) -> bytes:
    """`encode_output` as the bytes a hook prints: compact JSON and a newline. A verdict that
    says nothing but one short context (a context hook's usual answer, which a daemon gives
    on every prompt) is encoded once per event and context, then looked up: nothing else of
    it is read by `encode_output` then."""
    context = verdict.additional_context
    if (
        len(context) == 1
        and verdict.decision is None
        and verdict.continue_
        and verdict.abort is None
        and verdict.effects is NO_EFFECTS
        and not verdict.system_messages
        and verdict.updated_input is None
        and verdict.updated_output is None
        and len(context[0]) <= _CONTEXT_KEPT
    ):
        key = (verdict.event, context[0])
        answer = _CONTEXT_ANSWERS.get(key)
        if answer is None:
            if len(_CONTEXT_ANSWERS) >= _CONTEXT_ANSWERS_KEPT:
                _CONTEXT_ANSWERS.clear()
            answer = _CONTEXT_ANSWERS[key] = js_json(encode_output(verdict)) + b"\n"
        return answer
    return js_json(encode_output(verdict)) + b"\n"


#: The answers of context-only verdicts by event and context (`encode_output_json`): at most
#: this many, of contexts of at most this many characters.
_CONTEXT_ANSWERS: dict[tuple[Event, str], bytes] = {}
_CONTEXT_ANSWERS_KEPT = 64
_CONTEXT_KEPT = 4096
