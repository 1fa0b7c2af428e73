"""A PicoClaw hook's result -> `HookResult`, with PicoClaw's decoding rules (spec §3, §5, §6).

* A missing or empty `action` is `continue`; `continue` and `modify` both apply a returned
  object. The object *replaces* the current value: fields it leaves out become empty or zero
  (a `request` without `options` clears the options, one without `model` sets the model to
  ""). An absent object means "unchanged".
* Wrapper shapes: an after_llm `response` is the whole `{meta, model, response: {...}}` and an
  after_tool `result` the whole `{tool, arguments, result: {for_llm, ...}, duration}`. A bare
  shape (`{"result": {"for_llm": "x"}}`) is the silent no-op PicoClaw has; we log a warning
  naming the hook.
* before_llm in ``current`` protocol: changed system messages restore every message, changed
  tool definitions restore the tools (PicoClaw since caaad601a). ``seed`` protocol lets a hook
  inject tools, as the seed's plugin-tool pattern needs.
* An unknown action, or one not valid at this stage, is logged and the result discarded.
* A result of the wrong JSON type is a decode error, handled like a hook failure.
* approve_tool: anything but ``"approved": true`` denies.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hookwright.dialects.picoclaw.codec import (
    Protocol,
    llm_response_from_wire,
    tool_result_from_wire,
)
from hookwright.effects import Effects
from hookwright.results import Decision, HookResult

log = logging.getLogger("hookwright.picoclaw")

STAGE_ACTIONS: dict[str, frozenset[str]] = {
    "before_llm": frozenset({"continue", "modify", "abort_turn", "hard_abort"}),
    "after_llm": frozenset({"continue", "modify", "abort_turn", "hard_abort"}),
    "before_tool": frozenset(
        {"continue", "modify", "respond", "deny_tool", "abort_turn", "hard_abort"}
    ),
    "after_tool": frozenset({"continue", "modify", "abort_turn", "hard_abort"}),
}

DENIED_BY_HOOK = "Tool execution denied by hook"
DENIED_BY_APPROVER = "Tool execution denied by approval hook"


class DecodeError(ValueError):
    """The hook's result does not decode into PicoClaw's result type."""


def tool_message(prefix: str, reason: str | None) -> str:
    """The tool message PicoClaw shows the model for a denial."""
    return f"{prefix}: {reason}" if reason else prefix


def _expect(value: Any, kind: type, where: str) -> Any:
    """`value` when it is None or of JSON type `kind` (bools are not numbers)."""
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise DecodeError(f"{where}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _object(value: Any, where: str) -> dict[str, Any] | None:
    return _expect(value, dict, where)  # type: ignore[no-any-return]


def decode(
    method: str,
    raw: Any,
    sent: Mapping[str, Any],
    *,
    hook: str,
    protocol: Protocol,
) -> HookResult | None:
    """Decode an interceptor's result for `hook.<method>` whose params were `sent`."""
    if method == "approve_tool":
        return decode_approval(raw)
    # The usual answer, `{"action": "continue"}` with no object: nothing changes.
    plain = type(raw) is dict and len(raw) == 1 and raw.get("action") == "continue"
    if plain and method in STAGE_ACTIONS:
        return None
    result = _object(raw, "result")
    if result is None:
        return None
    action = _expect(result.get("action"), str, "action") or "continue"
    reason = _expect(result.get("reason"), str, "reason") or None
    if action not in STAGE_ACTIONS[method]:
        log.warning("hook %s: unsupported action %r for stage %s ignored", hook, action, method)
        return None
    if action == "abort_turn":
        return HookResult(abort="turn", reason=reason)
    if action == "hard_abort":
        return HookResult(abort="hard", reason=reason)
    if action == "deny_tool":
        message = tool_message(DENIED_BY_HOOK, reason)
        return HookResult(
            decision=Decision.deny, reason=message, effects=Effects(tool_message=message)
        )
    if action == "respond":
        return _respond(result, reason, hook)
    if method == "before_llm":
        return _before_llm(result, sent, hook, protocol)
    if method == "after_llm":
        return _after_llm(result, hook)
    if method == "before_tool":
        return _before_tool(result, sent)
    return _after_tool(result, sent, hook)


def _before_llm(
    result: Mapping[str, Any], sent: Mapping[str, Any], hook: str, protocol: Protocol
) -> HookResult | None:
    request = _object(result.get("request"), "request")
    if request is None:
        return None
    messages = _expect(request.get("messages"), list, "request.messages") or []
    tools = _expect(request.get("tools"), list, "request.tools") or []
    updated = {
        "model": _expect(request.get("model"), str, "request.model") or "",
        "messages": messages,
        "tools": tools,
        "options": _expect(request.get("options"), dict, "request.options") or {},
    }
    if protocol == "current":
        original_messages = _list_or_empty(sent.get("messages"))
        if _system_messages(messages) != _system_messages(original_messages):
            log.warning("hook %s: system messages changed; messages restored", hook)
            updated["messages"] = original_messages
        original_tools = _list_or_empty(sent.get("tools"))
        if tools != original_tools:
            log.warning("hook %s: tool definitions changed; tools restored", hook)
            updated["tools"] = original_tools
    return HookResult(updated_input=updated)


def _list_or_empty(value: Any) -> list[Any]:
    """What the host sent, as a list (a payload from elsewhere may hold anything)."""
    return list(value) if isinstance(value, list) else []


def _system_messages(messages: list[Any]) -> list[tuple[int, Any]]:
    return [
        (index, message.get("content"))
        for index, message in enumerate(messages)
        if isinstance(message, Mapping) and message.get("role") == "system"
    ]


def _after_llm(result: Mapping[str, Any], hook: str) -> HookResult | None:
    wrapper = _object(result.get("response"), "response")
    if wrapper is None:
        return None
    inner = _object(wrapper.get("response"), "response.response")
    if inner is None:
        if {"content", "tool_calls", "role"} & wrapper.keys():
            log.warning(
                "hook %s: after_llm `response` is the bare LLM response, not the "
                "{meta, model, response} wrapper; ignored as PicoClaw does",
                hook,
            )
        return None
    return HookResult(updated_output=llm_response_from_wire(inner))


def _before_tool(result: Mapping[str, Any], sent: Mapping[str, Any]) -> HookResult | None:
    call = _object(result.get("call"), "call")
    if call is None:
        return None
    tool = _expect(call.get("tool"), str, "call.tool") or ""
    arguments = _object(call.get("arguments"), "call.arguments") or {}
    updates = {"tool_name": tool} if tool and tool != sent.get("tool") else None
    return HookResult(updated_input=arguments, payload_updates=updates)


def _respond(result: Mapping[str, Any], reason: str | None, hook: str) -> HookResult | None:
    call = _object(result.get("call"), "call")
    value = _object(result.get("result"), "result")
    if value is None and call is not None:
        value = _object(call.get("hook_result"), "call.hook_result")
    if value is None:
        log.warning("hook %s: respond without a result; the tool runs normally", hook)
        return None
    _expect(value.get("for_llm"), str, "result.for_llm")
    _expect(value.get("media"), list, "result.media")
    return HookResult(
        respond=tool_result_from_wire(value),
        reason=reason,
        effects=Effects(skip_approval=True),
    )


def _after_tool(result: Mapping[str, Any], sent: Mapping[str, Any], hook: str) -> HookResult | None:
    wrapper = _object(result.get("result"), "result")
    if wrapper is None:
        return None
    tool = _expect(wrapper.get("tool"), str, "result.tool") or ""
    updates = {"tool_name": tool} if tool and tool != sent.get("tool") else None
    inner = _object(wrapper.get("result"), "result.result")
    if inner is None:
        if "for_llm" in wrapper:
            log.warning(
                "hook %s: after_tool `result` is a bare ToolResult, not the "
                "{tool, arguments, result, duration} wrapper; ignored as PicoClaw does",
                hook,
            )
        return HookResult(payload_updates=updates) if updates else None
    _expect(inner.get("for_llm"), str, "result.result.for_llm")
    return HookResult(updated_output=tool_result_from_wire(inner), payload_updates=updates)


def decode_approval(raw: Any) -> HookResult:
    result = _object(raw, "result") or {}
    approved = _expect(result.get("approved"), bool, "approved")
    reason = _expect(result.get("reason"), str, "reason") or None
    if approved is True:
        return HookResult(decision=Decision.allow, reason=reason)
    return approval_denied(reason)


def approval_denied(reason: str | None) -> HookResult:
    return HookResult(
        decision=Decision.deny,
        reason=reason,
        effects=Effects(tool_message=tool_message(DENIED_BY_APPROVER, reason)),
    )
