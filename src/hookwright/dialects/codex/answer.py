"""What a Codex command hook's exit code, stdout and stderr mean (Codex CLI 0.171.0).

* Exit 0: empty stdout says nothing; stdout that starts with ``{`` or ``[`` is JSON, read per
  event, and a hook whose JSON is invalid or not an object has failed; other text is ignored,
  except on UserPromptSubmit, where it is context for the model.
* Exit 2 blocks with stderr (trimmed) as the reason; exit 2 with empty stderr has failed.
* Any other exit, a timeout or a spawn error: the hook failed. A failed hook never blocks.
* PreToolUse takes only a deny (``permissionDecision: "deny"`` with a reason, or the legacy
  ``decision: "block"`` with one, whose word the result keeps, `HookResult.own_word`) and
  ``permissionDecision: "allow"`` with ``updatedInput`` (the command is rewritten; a
  ``spawn_agent`` input is read back as the host's subagent tool takes it, `tools`).
  ``allow`` alone, ``ask``, ``approve``, ``continue: false``, ``stopReason`` and
  ``suppressOutput`` are errors: the hook failed, the call runs.
* PostToolUse ``decision: "block"`` (or exit 2) replaces the tool's result with the reason;
  ``continue: false`` replaces it with ``stopReason`` and the turn goes on.
* UserPromptSubmit, Stop and SubagentStop ``decision: "block"`` need a non-empty reason: the
  prompt is dropped / the (sub)agent continues with the reason.
* ``hookSpecificOutput.additionalContext`` is context for the model on SessionStart,
  SubagentStart, UserPromptSubmit, PreToolUse and PostToolUse; ``systemMessage`` is a warning
  for the user. Codex sends each as a developer message of its own, in the hooks' configured
  order: SessionStart's ahead of the user's prompt and SubagentStart's ahead of the
  subagent's (a `ModelNote` with `before_prompt`), a tool
  hook's between the call and its output (`beside_call`), UserPromptSubmit's after the
  prompt.
* Interrupt (:func:`decode_interrupt`) can change nothing: exit 0 with empty stdout, or a JSON
  object holding at most ``systemMessage`` (a warning for the user); any other field, text
  that is not JSON, and every other exit (2 included) are failures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final
from xml.sax.saxutils import escape

from hookwright.core.effect_parts import ModelNote
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status
from hookwright.dialects.codex.tools import (
    SHELL_TOOL,
    codex_tool_input,
    codex_tool_name,
    host_tool_input,
)

E = Event
_CONTEXT_EVENTS: Final = frozenset(
    {E.SessionStart, E.SubagentStart, E.UserPromptSubmit, E.PreToolUse, E.PostToolUse}
)
#: Events whose context Codex sends ahead of the (sub)agent's prompt.
_BEFORE_PROMPT: Final = frozenset({E.SessionStart, E.SubagentStart})
_BLOCK_EVENTS: Final = frozenset({E.UserPromptSubmit, E.Stop, E.SubagentStop, E.PostToolUse})


class Unsupported(Exception):
    """The hook answered something Codex treats as a failed hook."""


def blocked_text(inp: HookInput, reason: str) -> str:
    """The function output the model reads for a blocked call: a shell call's names its
    command, any other call's the tool by Codex's name (measured: a denied `spawn_agent`)."""
    name = inp.payload.get("tool_name")
    if name != SHELL_TOOL:
        return f"Tool call blocked by PreToolUse hook: {reason}. Tool: {codex_tool_name(name)}"
    arguments = codex_tool_input(name, inp.payload.get("tool_input"))
    command = arguments.get("command") if isinstance(arguments, Mapping) else None
    if not isinstance(command, str):
        command = json.dumps(arguments, ensure_ascii=False)
    return f"Command blocked by PreToolUse hook: {reason}. Command: {command}"


def failed(message: str, **fields: Any) -> HookResult:
    return HookResult(status=Status.error, error=message, **fields)


def _text(value: Any) -> str | None:
    """A non-empty trimmed string, else None."""
    return value.strip() or None if isinstance(value, str) else None


def continuation(run_id: str, reason: str) -> str:
    """The user message a Stop block continues the agent with (the reason XML-escaped)."""
    return f'<hook_prompt hook_run_id="{escape(run_id)}">{escape(reason)}</hook_prompt>'


def block(inp: HookInput, reason: str, result: HookResult, run_id: str = "") -> HookResult:
    """`reason` blocks `inp` the way Codex words it for its event."""
    event = inp.event
    if event is E.PreToolUse:
        result.decision, result.reason = Decision.deny, reason
        result.add_effects(tool_message=blocked_text(inp, reason))
    elif event is E.PermissionRequest:
        result.decision, result.reason = Decision.deny, reason
    elif event in _BLOCK_EVENTS:
        result.decision, result.reason = Decision.block, reason
        if event is E.PostToolUse:
            result.add_effects(tool_message=reason)
        elif event in (E.Stop, E.SubagentStop):
            result.add_effects(continuation=continuation(run_id, reason))
    return result


def _add_context(event: Event, text: str, result: HookResult) -> None:
    """`text` for the model, placed and ordered as Codex sends it: a developer message of its
    own, SessionStart's ahead of the prompt (SubagentStart's ahead of the subagent's), a tool
    hook's between the call and its output,
    several hooks' in their configured order."""
    result.additional_context = text
    note = ModelNote(
        text,
        before_prompt=event in _BEFORE_PROMPT,
        beside_call=event in (E.PreToolUse, E.PostToolUse),
        ordered=True,
    )
    result.add_effects(model_notes=(note,))


def decode_plain(inp: HookInput, stdout: str, result: HookResult) -> HookResult:
    text = stdout.strip()
    if text and inp.event is E.UserPromptSubmit:
        _add_context(inp.event, text, result)
    return result


def decode_json(inp: HookInput, stdout: str, result: HookResult, run_id: str = "") -> HookResult:
    """Exit 0 with JSON on stdout."""
    try:
        data = json.loads(stdout)
    except ValueError as exc:
        return failed(f"hook returned invalid JSON: {exc}", exit_code=0)
    if not isinstance(data, dict):
        return failed("hook returned JSON that is not an object", exit_code=0)
    try:
        return _apply(inp, data, result, run_id)
    except Unsupported as exc:
        return failed(str(exc), exit_code=0)


def decode_interrupt(code: int, stdout: str, stderr: str) -> HookResult:
    """An Interrupt hook's answer, read as Codex's `parse_interrupt` reads it: the turn is
    over, so only a ``systemMessage`` for the user counts, and nothing is ever blocked."""
    if code != 0:
        return failed(f"hook exited with code {code}", exit_code=code, stderr=stderr or None)
    result = HookResult(exit_code=0, stderr=stderr or None)
    text = stdout.strip()
    if not text:
        return result
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        if text.startswith(("{", "[")):
            return failed("hook returned invalid interrupt hook JSON output", exit_code=0)
        return failed("Interrupt hook returned non-JSON stdout", exit_code=0)
    message = data.get("systemMessage")
    if set(data) - {"systemMessage"} or not isinstance(message, str | None):
        return failed("hook returned invalid interrupt hook JSON output", exit_code=0)
    if message:
        result.system_message = message
    return result


def _specific(data: Mapping[str, Any]) -> Mapping[str, Any]:
    specific = data.get("hookSpecificOutput")
    if specific is None:
        return {}
    if not isinstance(specific, Mapping):
        raise Unsupported("hookSpecificOutput must be an object")
    return specific


def _apply(inp: HookInput, data: Mapping[str, Any], result: HookResult, run_id: str) -> HookResult:
    event = inp.event
    specific = _specific(data)
    message = data.get("systemMessage")
    if isinstance(message, str) and message:
        result.system_message = message
    context = specific.get("additionalContext")
    if isinstance(context, str) and context and event in _CONTEXT_EVENTS:
        _add_context(event, context, result)
    if event is E.PreToolUse:
        return _pre_tool_use(inp, data, specific, result)
    if event is E.PermissionRequest:
        return _permission_request(inp, data, specific, result)
    if event is E.PostToolUse:
        return _post_tool_use(inp, data, result)
    if event in (E.UserPromptSubmit, E.Stop, E.SubagentStop) and data.get("decision") == "block":
        reason = _text(data.get("reason"))
        if reason is None:
            raise Unsupported(f"{event} hook returned decision:block without a non-empty reason")
        return block(inp, reason, result, run_id)
    return result


def _unsupported_universal(event: Event, data: Mapping[str, Any], fields: tuple[str, ...]) -> None:
    if "continue" in fields and data.get("continue") is False:
        raise Unsupported(f"{event} hook returned unsupported continue:false")
    if "stopReason" in fields and data.get("stopReason") is not None:
        raise Unsupported(f"{event} hook returned unsupported stopReason")
    if data.get("suppressOutput") is True:
        raise Unsupported(f"{event} hook returned unsupported suppressOutput")


def _pre_tool_use(
    inp: HookInput, data: Mapping[str, Any], specific: Mapping[str, Any], result: HookResult
) -> HookResult:
    _unsupported_universal(E.PreToolUse, data, ("continue", "stopReason"))
    decision = specific.get("permissionDecision")
    reason = specific.get("permissionDecisionReason")
    updated = specific.get("updatedInput")
    if decision is not None or reason is not None or updated is not None:
        if updated is not None and decision != "allow":
            raise Unsupported(
                "PreToolUse hook returned updatedInput without permissionDecision:allow"
            )
        if decision == "allow":
            if not isinstance(updated, dict):
                raise Unsupported("PreToolUse hook returned unsupported permissionDecision:allow")
            result.updated_input = host_tool_input(inp.tool_name, updated, inp.tool_input)
            return result
        if decision == "deny":
            text = _text(reason)
            if text is None:
                raise Unsupported(
                    "PreToolUse hook returned permissionDecision:deny without a non-empty "
                    "permissionDecisionReason"
                )
            return block(inp, text, result)
        if decision is None:
            raise Unsupported(
                "PreToolUse hook returned permissionDecisionReason without permissionDecision"
            )
        raise Unsupported(f"PreToolUse hook returned unsupported permissionDecision:{decision}")
    legacy = data.get("decision")
    if legacy == "block":
        text = _text(data.get("reason"))
        if text is None:
            raise Unsupported("PreToolUse hook returned decision:block without a non-empty reason")
        result.own_word = "block"  # the views say the legacy word it answered: block (deny)
        return block(inp, text, result)
    if legacy is not None:
        raise Unsupported(f"PreToolUse hook returned unsupported decision:{legacy}")
    if data.get("reason") is not None:
        raise Unsupported("PreToolUse hook returned reason without decision")
    return result


def _permission_request(
    inp: HookInput, data: Mapping[str, Any], specific: Mapping[str, Any], result: HookResult
) -> HookResult:
    _unsupported_universal(E.PermissionRequest, data, ("continue", "stopReason"))
    decision = specific.get("decision")
    if decision is None:
        return result
    if not isinstance(decision, Mapping):
        raise Unsupported("PermissionRequest hook returned a decision that is not an object")
    for field in ("updatedInput", "updatedPermissions"):
        if decision.get(field) is not None:
            raise Unsupported(f"PermissionRequest hook returned unsupported {field}")
    if decision.get("interrupt") is True:
        raise Unsupported("PermissionRequest hook returned unsupported interrupt:true")
    behavior = decision.get("behavior")
    if behavior == "allow":
        result.decision = Decision.allow
        return result
    if behavior == "deny":
        message = _text(decision.get("message")) or "PermissionRequest hook denied approval"
        return block(inp, message, result)
    raise Unsupported(f"PermissionRequest hook returned unknown behavior {behavior!r}")


def _post_tool_use(inp: HookInput, data: Mapping[str, Any], result: HookResult) -> HookResult:
    _unsupported_universal(E.PostToolUse, data, ())
    if data.get("decision") == "block":
        reason = _text(data.get("reason"))
        if reason is None:
            raise Unsupported("PostToolUse hook returned decision:block without a non-empty reason")
        return block(inp, data["reason"], result)
    if data.get("continue") is False:
        stop = data.get("stopReason")
        return block(inp, stop if isinstance(stop, str) and stop else "stopped by hook", result)
    if data.get("reason") is not None:
        raise Unsupported("PostToolUse hook returned reason without decision")
    return result
