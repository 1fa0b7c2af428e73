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
* The answer decodes as Go's `encoding/json` fills PicoClaw's result structs (`gojson`): keys
  match case-insensitively, unknown keys are ignored, a value of the wrong JSON type is a
  decode error, handled like a hook failure.
* An unknown action, or one not valid at this stage, is logged and the result discarded.
* ``abort_turn`` ends the turn as an error, ``hook requested turn abort`` (the hook's reason
  stays in the audit, not in the error, as in PicoClaw).
* approve_tool: anything but ``"approved": true`` denies.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hookwright.core.effects import Effects
from hookwright.core.results import Decision, HookResult
from hookwright.dialects.picoclaw.codec import (
    Protocol,
    go_messages,
    go_tools,
    llm_response_from_wire,
    tool_result_from_wire,
    typed_tool_result,
)
from hookwright.dialects.picoclaw.gojson import (
    LLM_RESPONSE,
    RESULTS,
    GoDecodeError,
    Struct,
    decode_struct,
    encode_struct,
    fold_name,
)

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
#: The error a turn ends with after `abort_turn` (PicoClaw leaves the hook's reason out).
TURN_ABORT_ERROR = "hook requested turn abort"


class DecodeError(ValueError):
    """The hook's result does not decode into PicoClaw's result type."""


def tool_message(prefix: str, reason: str | None) -> str:
    """The tool message PicoClaw shows the model for a denial."""
    return f"{prefix}: {reason}" if reason else prefix


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
    if (plain and method in STAGE_ACTIONS) or raw is None:
        return None
    result = _struct(raw, RESULTS[method])
    action = result["action"] or "continue"
    reason = result["reason"] or None
    if action not in STAGE_ACTIONS[method]:
        log.warning("hook %s: unsupported action %r for stage %s ignored", hook, action, method)
        return None
    if action == "abort_turn":
        return HookResult(
            abort="turn", reason=reason, effects=Effects(abort_error=TURN_ABORT_ERROR)
        )
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
        return _after_llm(result, raw, hook)
    if method == "before_tool":
        return _before_tool(result, sent)
    return _after_tool(result, raw, sent, hook)


def _struct(raw: Any, struct: Struct) -> dict[str, Any]:
    try:
        return decode_struct(raw, struct)
    except GoDecodeError as exc:
        raise DecodeError(str(exc)) from None


def _before_llm(
    result: Mapping[str, Any], sent: Mapping[str, Any], hook: str, protocol: Protocol
) -> HookResult | None:
    request = result["request"]
    if request is None:
        return None
    messages, tools = go_messages(request["messages"]), go_tools(request["tools"])
    updated = {
        "model": request["model"],
        "messages": messages,
        "tools": tools,
        "options": request["options"] or {},
    }
    if protocol == "current":
        original_messages = go_messages(sent.get("messages"))
        if _system_messages(messages) != _system_messages(original_messages):
            log.warning("hook %s: system messages changed; messages restored", hook)
            updated["messages"] = list(sent.get("messages") or [])
        if tools != go_tools(sent.get("tools")):
            log.warning("hook %s: tool definitions changed; tools restored", hook)
            updated["tools"] = list(sent.get("tools") or [])
    return HookResult(updated_input=updated)


def _system_messages(messages: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    return [
        (index, message) for index, message in enumerate(messages) if message["role"] == "system"
    ]


def _bare(raw: Any, key: str, inner: str, bare_keys: set[str]) -> bool:
    """Whether the hook answered the bare shape where PicoClaw expects a wrapper: `raw[key]`
    (matched as Go matches keys) has no `inner` object but keys of the bare value."""
    if not isinstance(raw, Mapping):
        return False
    folded = {fold_name(k): v for k, v in raw.items()}
    wrapper = folded.get(fold_name(key))
    if not isinstance(wrapper, Mapping):
        return False
    keys = {fold_name(k) for k in wrapper}
    return fold_name(inner) not in keys and bool(keys & {fold_name(k) for k in bare_keys})


def _after_llm(result: Mapping[str, Any], raw: Any, hook: str) -> HookResult | None:
    wrapper = result["response"]
    inner = wrapper["response"] if wrapper is not None else None
    if inner is None:
        if _bare(raw, "response", "response", {"content", "tool_calls", "role"}):
            log.warning(
                "hook %s: after_llm `response` is the bare LLM response, not the "
                "{meta, model, response} wrapper; ignored as PicoClaw does",
                hook,
            )
        return None
    return HookResult(updated_output=llm_response_from_wire(encode_struct(inner, LLM_RESPONSE)))


def _before_tool(result: Mapping[str, Any], sent: Mapping[str, Any]) -> HookResult | None:
    call = result["call"]
    if call is None:
        return None
    tool = call["tool"]
    # PicoClaw takes the returned name as it is: a call without `tool` names no tool.
    # The payload update is what the next hook of the chain sees; the effect, the host.
    renamed = tool if tool != sent.get("tool") else None
    return HookResult(
        updated_input=call["arguments"] or {},
        payload_updates={"tool_name": tool} if renamed is not None else None,
        effects=Effects(renamed_tool=renamed) if renamed is not None else None,
    )


def _respond(result: Mapping[str, Any], reason: str | None, hook: str) -> HookResult | None:
    call = result.get("call")
    value = result.get("result")
    if value is None and call is not None:
        value = call["hook_result"]
    if value is None:
        log.warning("hook %s: respond without a result; the tool runs normally", hook)
        return None
    return HookResult(
        respond=typed_tool_result(tool_result_from_wire(value)),
        reason=reason,
        effects=Effects(skip_approval=True),
    )


def _after_tool(
    result: Mapping[str, Any], raw: Any, sent: Mapping[str, Any], hook: str
) -> HookResult | None:
    wrapper = result["result"]
    if wrapper is None:
        return None
    tool = wrapper["tool"]
    updates = {"tool_name": tool} if tool and tool != sent.get("tool") else None
    inner = wrapper["result"]
    if inner is None:
        if _bare(raw, "result", "result", {"for_llm"}):
            log.warning(
                "hook %s: after_tool `result` is a bare ToolResult, not the "
                "{tool, arguments, result, duration} wrapper; ignored as PicoClaw does",
                hook,
            )
        return HookResult(payload_updates=updates) if updates else None
    wire = tool_result_from_wire(inner)
    return HookResult(
        updated_output=wire,
        payload_updates=updates,
        effects=Effects(tool_result=typed_tool_result(wire)),
    )


def decode_approval(raw: Any) -> HookResult:
    result = _struct(raw if raw is not None else {}, RESULTS["approve_tool"])
    reason = result["reason"] or None
    if result["approved"]:
        return HookResult(decision=Decision.allow, reason=reason)
    return approval_denied(reason)


def approval_denied(reason: str | None) -> HookResult:
    return HookResult(
        decision=Decision.deny,
        reason=reason,
        effects=Effects(tool_message=tool_message(DENIED_BY_APPROVER, reason)),
    )
