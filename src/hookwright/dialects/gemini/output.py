"""What a Gemini hook's answer means (Gemini CLI 0.61.0 `hookRunner` + `hookAggregator` +
the per-event hook outputs), as a `HookResult`.

The answer is stdout, or stderr when stdout is blank. JSON (an object, or a string holding
one) is read field by field; any other text is plain: exit 0 allows and shows it to the user,
exit 1 allows with ``Warning: <text>``, any other exit denies with the text as reason
(``decision: "deny"``, as Gemini CLI reads it). A block keeps the word it was answered in
(`HookResult.own_word`: ``deny`` or ``block``, which Gemini treats alike).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hookwright.core.effect_parts import ModelNote, ToolSelection
from hookwright.core.events import HookInput
from hookwright.core.results import Decision, HookResult
from hookwright.dialects.gemini.events import gemini_tool_name, host_arguments, host_tool_names
from hookwright.dialects.gemini.stdin import tool_response


def answer_of(stdout: str, stderr: str, code: int) -> dict[str, Any] | None:
    """The hook's answer object as Gemini reads it, or None when it said nothing."""
    text = stdout.strip() or stderr.strip()
    if not text:
        return None
    try:
        parsed = json.loads(text)
        if isinstance(parsed, str):
            parsed = json.loads(parsed)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    if isinstance(parsed, list):
        return {}
    if code == 0:
        return {"decision": "allow", "systemMessage": text}
    if code == 1:
        return {"decision": "allow", "systemMessage": f"Warning: {text}"}
    return {"decision": "deny", "reason": text}


def hook_context(text: str) -> str:
    """Context as Gemini hands it to the model: escaped, in a `<hook_context>` element."""
    escaped = text.replace("<", "&lt;").replace(">", "&gt;")
    return f"<hook_context>{escaped}</hook_context>"


def decode_answer(answer: Mapping[str, Any], event_name: str, inp: HookInput) -> HookResult:
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, Mapping) else {}
    result = HookResult(system_message=_text(answer.get("systemMessage")))
    if answer.get("continue") is False:
        result.continue_ = False
        result.stop_reason = _text(answer.get("stopReason")) or _text(answer.get("reason"))
    blocking = answer.get("decision") in ("block", "deny")
    reason = _text(answer.get("stopReason")) or _text(answer.get("reason")) or "No reason provided"
    if answer.get("decision") == "ask":
        result.decision = Decision.ask
    _EVENT_DECODERS[event_name](result, specific, inp, reason if blocking else None)
    if blocking and result.decision in (Decision.deny, Decision.block):
        # `deny` and `block` do the same on every event; the views say the one it answered
        result.own_word = str(answer["decision"])
    return result


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _context(specific: Mapping[str, Any]) -> str | None:
    value = specific.get("additionalContext")
    return hook_context(value) if isinstance(value, str) and value else None


def _before_tool(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """A block answers the model `{"error": "Tool execution blocked: R"}`; `tool_input` is
    merged into the call's arguments; additionalContext reaches nobody."""
    if reason is not None:
        result.decision, result.reason = Decision.deny, reason
        message = json.dumps({"error": f"Tool execution blocked: {reason}"})
        result.add_effects(tool_message=message)
        return
    rewrite = specific.get("tool_input")
    if isinstance(rewrite, Mapping) and rewrite:
        tool = gemini_tool_name(str(inp.payload.get("tool_name", "")))
        current = dict(inp.payload.get("tool_input") or {})
        result.updated_input = {**current, **host_arguments(tool, rewrite)}


def _after_tool(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """A block replaces the result with `{"error": R}`; context is appended to the result
    the model reads, `\\n\\n<hook_context>...</hook_context>`."""
    if reason is not None:
        result.decision, result.reason = Decision.block, reason
        result.add_effects(tool_message=json.dumps({"error": reason}))
        return
    context = _context(specific)
    if context is not None:
        # The output the hook read as `llmContent`, whatever shape the host's result has.
        result.updated_output = f"{tool_response(inp.payload)['llmContent']}\n\n{context}"


def _prompt_event(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """BeforeAgent, SessionStart, AfterAgent: a block stops the prompt (BeforeAgent) or sends
    the reason back as the next prompt (AfterAgent); context goes with the prompt."""
    if reason is not None:
        result.decision, result.reason = Decision.block, reason
    context = _context(specific)
    if context is not None:
        result.additional_context = context
        result.add_effects(model_notes=(ModelNote(context),))


def _session_start(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """SessionStart ignores `decision` and `continue`."""
    result.continue_, result.stop_reason = True, None
    _prompt_event(result, specific, inp, None)


def _before_model(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """A block ends the turn; `llm_request` replaces the request's text messages in order
    (and the model); a synthetic `llm_response` is not applied (measured: the real call
    still happens)."""
    if reason is not None:
        result.decision, result.reason = Decision.block, reason
        return
    request = specific.get("llm_request")
    if not isinstance(request, Mapping):
        return
    updates: dict[str, Any] = {}
    if isinstance(request.get("model"), str):
        updates["model"] = request["model"]
    messages = request.get("messages")
    if isinstance(messages, list):
        updates["messages"] = merged_messages(inp.payload.get("messages") or [], messages)
    result.updated_input = updates or None


def merged_messages(base: list[Any], replacement: list[Any]) -> list[Any]:
    """Gemini's `fromHookLLMRequest`: each text message of the request, in order, takes the
    next hook message's text and role; the rest are appended; non-text content stays."""
    given = [m for m in replacement if isinstance(m, Mapping)]
    merged: list[Any] = []
    index = 0
    for message in base:
        has_text = isinstance(message, Mapping) and message.get("role") != "system"
        if has_text and isinstance(message.get("content"), str) and index < len(given):
            merged.append({**message, **_chat(given[index])})
            index += 1
        else:
            merged.append(message)
    merged += [_chat(m) for m in given[index:]]
    return merged


def _chat(message: Mapping[str, Any]) -> dict[str, Any]:
    role = "assistant" if message.get("role") == "model" else str(message.get("role", "user"))
    return {"role": role, "content": str(message.get("content", ""))}


def _tool_selection(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """`toolConfig`: `mode` NONE offers no tool; `allowedFunctionNames` (Gemini's names)
    keeps only those. The answer is a `ToolSelection` effect, which unites with the other
    hooks' as Gemini CLI's `mergeToolSelectionOutputs` does; `updated_input` carries this
    hook's own narrowing of the tools it saw."""
    config = specific.get("toolConfig")
    if not isinstance(config, Mapping):
        return
    mode = config.get("mode")
    names = config.get("allowedFunctionNames")
    allowed = [str(name) for name in names] if isinstance(names, list) else []
    selection = ToolSelection(
        mode if mode in ("NONE", "ANY") else "AUTO", frozenset(host_tool_names(allowed))
    )
    result.add_effects(tool_selection=selection)
    tools = list(inp.payload.get("tools") or [])
    if selection.mode == "NONE" or selection.allowed:
        result.updated_input = {"tools": selection.narrow(tools)}


def _after_model(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    if reason is not None:
        result.decision, result.reason = Decision.block, reason


def _advisory(
    result: HookResult, specific: Mapping[str, Any], inp: HookInput, reason: str | None
) -> None:
    """Notification, PreCompress, SessionEnd: the answer changes nothing but the messages."""
    result.continue_, result.stop_reason = True, None


_EVENT_DECODERS = {
    "BeforeTool": _before_tool,
    "AfterTool": _after_tool,
    "BeforeAgent": _prompt_event,
    "AfterAgent": _prompt_event,
    "SessionStart": _session_start,
    "BeforeModel": _before_model,
    "BeforeToolSelection": _tool_selection,
    "AfterModel": _after_model,
    "Notification": _advisory,
    "PreCompress": _advisory,
    "SessionEnd": _advisory,
}
