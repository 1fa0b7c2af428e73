"""Canonical `HookInput` -> PicoClaw JSON-RPC params, with PicoClaw's exact names and casing.

Top-level keys are snake_case, `meta` is Go PascalCase (`AgentID, TurnID, ParentTurnID,
SessionKey, Iteration, TracePath, Source`, always all present: `Source` ``runTurn``,
`TracePath` the stage, `AgentID` the agent's id, ``main`` for the main agent, `Iteration` the
1-based model round of the turn), ToolResult keys follow `pkg/tools/shared/result.go` with its
omitempty rules, `duration` is integer nanoseconds, and `arguments`, `messages`, `tools`,
`options` and `graceful_terminal` are left out when empty, as Go's `omitempty` does.

Two protocol versions, each exactly what PicoClaw's code of that era sends:

* ``seed`` (PicoClaw v0.2.4 to v0.2.6, the release the seed documents describe): no `context`
  object; the chat's `channel` and `chat_id` as top-level keys after the method's own fields
  (omitted when empty).
* ``current`` (PicoClaw v0.2.7 and later): the `context` object after `meta`, no `channel` or
  `chat_id`.

Payload fields read beyond docs/payloads.md: `channel`, `chat_id`, `sender_id`, `context` (a
PicoClaw context object used as is), `parent_turn_id`, `turn_source` (``runTurn``, or
``askSideQuestion`` for a side question, whose other meta fields are sent empty as PicoClaw
does) and `duration_ns` (preferred over `duration_ms`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeGuard

from hookwright.core.effect_parts import ToolResult
from hookwright.core.events import Event, HookInput
from hookwright.dialects.picoclaw.gojson import (
    LLM_RESPONSE,
    MESSAGE,
    TOOL_DEFINITION,
    encode_struct,
)

Protocol = Literal["seed", "current"]

#: Canonical event -> PicoClaw method (without the `hook.` prefix).
METHODS: dict[Event, str] = {
    Event.PreModelCall: "before_llm",
    Event.PostModelCall: "after_llm",
    Event.PreToolUse: "before_tool",
    Event.PostToolUse: "after_tool",
    Event.PermissionRequest: "approve_tool",
}
EVENTS: dict[str, Event] = {method: event for event, method in METHODS.items()}

TRACE_PATHS: dict[str, str] = {
    "before_llm": "turn.llm.request",
    "after_llm": "turn.llm.response",
    "before_tool": "turn.tool.before",
    "approve_tool": "turn.tool.approve",
    "after_tool": "turn.tool.after",
}

MAIN_TURN_SOURCE = "runTurn"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def meta_fields(
    *,
    agent_id: str = "",
    turn_id: str = "",
    parent_turn_id: str = "",
    session_key: str = "",
    iteration: int = 0,
    trace_path: str = "",
    source: str = "",
) -> dict[str, Any]:
    return {
        "AgentID": agent_id,
        "TurnID": turn_id,
        "ParentTurnID": parent_turn_id,
        "SessionKey": session_key,
        "Iteration": iteration,
        "TracePath": trace_path,
        "Source": source,
    }


#: PicoClaw's id of the main agent (`AgentID` of every main-turn meta).
MAIN_AGENT_ID = "main"


def pico_iteration(iteration: Any) -> int:
    """PicoClaw's `Iteration` (1-based) for the canonical 0-based model-call index; 0 when
    the input has none."""
    return iteration + 1 if type(iteration) is int and iteration >= 0 else 0


def build_meta(inp: HookInput, method: str) -> dict[str, Any]:
    # `_str` written out: this runs on every call of every PicoClaw hook, and each Python call
    # saved is a few percent of a JSON-RPC dispatch's own work.
    payload = inp.payload
    turn_source = payload.get("turn_source")
    if not turn_source or not isinstance(turn_source, str):
        turn_source = MAIN_TURN_SOURCE
    stage = TRACE_PATHS[method]
    if turn_source != MAIN_TURN_SOURCE:
        return meta_fields(trace_path=stage, source=turn_source)
    parent = payload.get("parent_turn_id")
    iteration = payload.get("iteration")
    return {
        "AgentID": inp.agent_id or MAIN_AGENT_ID,
        "TurnID": inp.turn_id or "",
        "ParentTurnID": parent if isinstance(parent, str) else "",
        "SessionKey": inp.session_id or "",
        "Iteration": 0 if iteration is None else pico_iteration(iteration),
        "TracePath": stage,
        "Source": turn_source,
    }


def _channel(payload: Mapping[str, Any], context: Any) -> tuple[str, str]:
    """`channel_of` given the payload's `context` value."""
    if context is not None and isinstance(context, Mapping):
        inbound = context.get("inbound")
        if inbound is not None and isinstance(inbound, Mapping):
            return (
                _str(payload.get("channel")) or _str(inbound.get("channel")),
                _str(payload.get("chat_id")) or _str(inbound.get("chat_id")),
            )
    channel, chat_id = payload.get("channel"), payload.get("chat_id")
    return (
        channel if isinstance(channel, str) else "",
        chat_id if isinstance(chat_id, str) else "",
    )


def channel_of(inp: HookInput) -> tuple[str, str]:
    """The payload's `channel`/`chat_id`, else those of the context's `inbound` part."""
    payload = inp.payload
    return _channel(payload, payload.get("context"))


def _context(payload: Mapping[str, Any], context: Any, channel: tuple[str, str]) -> dict[str, Any]:
    """`build_context` given the payload's `context` value and `channel_of` the input."""
    if context is not None and isinstance(context, Mapping):
        return dict(context)
    sender = payload.get("sender_id")
    return {
        "inbound": {
            "channel": channel[0],
            "chat_id": channel[1],
            "sender_id": sender if isinstance(sender, str) else "",
        }
    }


def build_context(inp: HookInput) -> dict[str, Any]:
    """The runtime's PicoClaw context object, or an `inbound` part built from the payload."""
    payload = inp.payload
    context = payload.get("context")
    return _context(payload, context, _channel(payload, context))


# ToolResult ----------------------------------------------------------------------------------


def is_tool_result(value: Any) -> TypeGuard[Mapping[str, Any]]:
    return isinstance(value, Mapping) and "for_llm" in value


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def tool_result_from_wire(value: Mapping[str, Any]) -> dict[str, Any]:
    """A decoded ToolResult with every field set, absent ones zero (Go decoding)."""
    return {
        "for_llm": _str(value.get("for_llm")),
        "for_user": _str(value.get("for_user")),
        "silent": value.get("silent") is True,
        "is_error": value.get("is_error") is True,
        "async": value.get("async") is True,
        "media": _strings(value.get("media")),
        "artifact_tags": _strings(value.get("artifact_tags")),
        "response_handled": value.get("response_handled") is True,
    }


#: What PicoClaw appends for the model to a result that already answered the user.
HANDLED_NOTE = (
    "The requested output has already been delivered to the user in the current chat. Do not "
    "call send_file or any other delivery tool again. If you reply, provide only a brief "
    "confirmation."
)
ARTIFACT_NOTE = (
    "Use `send_file` with one of these paths to send it to the user, or use file/exec tools to "
    "save it inside the workspace if requested."
)


def typed_tool_result(value: Mapping[str, Any], default_error: bool = False) -> ToolResult:
    """A PicoClaw ToolResult as the host shows it: the content PicoClaw gives the model,
    `is_error`, `response_handled`, `media`, and `for_user` unless the result is `silent`; the
    record stays as the structured result."""
    media = value.get("media")
    handled = value.get("response_handled") is True
    return ToolResult(
        content_for_llm(value),
        bool(value.get("is_error", default_error)),
        dict(value),
        response_handled=handled,
        media=tuple(str(m) for m in media) if isinstance(media, list) else (),
        for_user=None if value.get("silent") else (str(value.get("for_user") or "") or None),
        unhandled_content=content_for_llm({**value, "response_handled": False})
        if handled
        else None,
    )


def read_tool_result(value: Any, default_error: bool) -> ToolResult | None:
    """A hook-supplied value that is a PicoClaw ToolResult (it has `for_llm`), typed; None for
    anything else. Registered with the host for results no codec typed (a Python hook that
    answers in PicoClaw's shape)."""
    return typed_tool_result(value, default_error) if is_tool_result(value) else None


def content_for_llm(value: Mapping[str, Any]) -> str:
    """What the model sees of a ToolResult (`ToolResult.ContentForLLM`): `for_llm`, the note
    for a result that answered the user, and the artifact paths."""
    content = _str(value.get("for_llm"))
    if value.get("response_handled") is True:
        if not content:
            return HANDLED_NOTE
        if HANDLED_NOTE not in content:
            content += "\n" + HANDLED_NOTE
    tags = _strings(value.get("artifact_tags"))
    if tags:
        note = "Local artifact paths: " + " ".join(tags) + "\n" + ARTIFACT_NOTE
        if not content:
            content = note
        elif note not in content:
            content += "\n" + note
    return content


def tool_result_to_wire(value: Mapping[str, Any]) -> dict[str, Any]:
    """A ToolResult as PicoClaw serialises it: optional fields omitted when empty."""
    full = tool_result_from_wire(value)
    wire: dict[str, Any] = {"for_llm": full["for_llm"]}
    if full["for_user"]:
        wire["for_user"] = full["for_user"]
    wire["silent"] = full["silent"]
    wire["is_error"] = full["is_error"]
    wire["async"] = full["async"]
    if full["media"]:
        wire["media"] = full["media"]
    if full["artifact_tags"]:
        wire["artifact_tags"] = full["artifact_tags"]
    if full["response_handled"]:
        wire["response_handled"] = True
    return wire


def tool_result_of(inp: HookInput) -> dict[str, Any] | None:
    """The PostToolUse result as a ToolResult: a PicoClaw ToolResult in `tool_response` (set
    by the runtime or an earlier hook) or the model-facing `tool_result`."""
    payload = inp.payload
    response = payload.get("tool_response")
    if is_tool_result(response):
        return tool_result_from_wire(response)
    model_facing = payload.get("tool_result")
    if isinstance(model_facing, Mapping):
        return tool_result_from_wire(
            {
                "for_llm": _str(model_facing.get("content")),
                "is_error": model_facing.get("is_error") is True,
            }
        )
    if isinstance(response, str):
        return tool_result_from_wire({"for_llm": response})
    if response is not None:
        return tool_result_from_wire({"for_llm": json.dumps(response, ensure_ascii=False)})
    return None


# LLMResponse ---------------------------------------------------------------------------------


def go_messages(messages: Any) -> list[dict[str, Any]]:
    """Messages as PicoClaw's `[]Message` carries them (unknown keys dropped)."""
    return [encode_struct(m, MESSAGE) for m in _list(messages) if isinstance(m, Mapping)]


def go_tools(tools: Any) -> list[dict[str, Any]]:
    """Tool definitions as PicoClaw's `[]ToolDefinition` carries them."""
    return [encode_struct(t, TOOL_DEFINITION) for t in _list(tools) if isinstance(t, Mapping)]


def llm_response_to_wire(response: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical `response` as PicoClaw's `LLMResponse` (unknown keys dropped)."""
    return encode_struct(response, LLM_RESPONSE)


def llm_response_from_wire(value: Mapping[str, Any]) -> dict[str, Any]:
    """A hook's LLMResponse as the canonical `response` (replace semantics: absent fields
    become empty)."""
    calls = value.get("tool_calls")
    response: dict[str, Any] = {
        "content": _str(value.get("content")),
        "tool_calls": list(calls) if isinstance(calls, list) else [],
        "finish_reason": _str(value.get("finish_reason")),
        "usage": value.get("usage"),
    }
    for key in ("reasoning_content", "reasoning", "reasoning_details"):
        if value.get(key):
            response[key] = value[key]
    return response


# Params per method ---------------------------------------------------------------------------


def _head(
    inp: HookInput, method: str, protocol: Protocol
) -> tuple[dict[str, Any], tuple[str, str]]:
    """`{meta, context?}` and `channel_of(inp)` for `_tail` (worked out once)."""
    payload = inp.payload
    context = payload.get("context")
    channel = _channel(payload, context)
    params: dict[str, Any] = {"meta": build_meta(inp, method)}
    if protocol == "current":
        params["context"] = _context(payload, context, channel)
    return params, channel


def _tail(params: dict[str, Any], channel: tuple[str, str], protocol: Protocol) -> dict[str, Any]:
    """The seed era's top-level `channel` and `chat_id` (omitempty)."""
    if protocol == "seed":
        if channel[0]:
            params["channel"] = channel[0]
        if channel[1]:
            params["chat_id"] = channel[1]
    return params


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def before_llm_params(inp: HookInput, protocol: Protocol) -> dict[str, Any]:
    payload = inp.payload
    params, channel = _head(inp, "before_llm", protocol)
    params["model"] = _str(payload.get("model"))
    messages, tools = go_messages(payload.get("messages")), go_tools(payload.get("tools"))
    if messages:
        params["messages"] = messages
    if tools:
        params["tools"] = tools
    options = payload.get("options")
    if isinstance(options, Mapping) and options:
        params["options"] = dict(options)
    _tail(params, channel, protocol)
    if payload.get("graceful_terminal") is True:
        params["graceful_terminal"] = True
    return params


def after_llm_params(inp: HookInput, protocol: Protocol) -> dict[str, Any]:
    params, channel = _head(inp, "after_llm", protocol)
    params["model"] = _str(inp.payload.get("model"))
    response = inp.payload.get("response")
    if isinstance(response, Mapping):
        params["response"] = llm_response_to_wire(response)
    return _tail(params, channel, protocol)


def tool_call_params(inp: HookInput, method: str, protocol: Protocol) -> dict[str, Any]:
    """before_tool and approve_tool: `{meta, context?, tool, arguments?, channel?, chat_id?}`
    (`_head` and `_tail` written out: this runs on every tool call)."""
    payload = inp.payload
    context = payload.get("context")
    channel = _channel(payload, context)
    params: dict[str, Any] = {"meta": build_meta(inp, method)}
    if protocol == "current":
        params["context"] = _context(payload, context, channel)
    tool = payload.get("tool_name")
    params["tool"] = tool if type(tool) is str else _str(tool)
    arguments = payload.get("tool_input")
    if arguments and isinstance(arguments, dict):
        params["arguments"] = dict(arguments)
    if protocol == "seed":
        if channel[0]:
            params["channel"] = channel[0]
        if channel[1]:
            params["chat_id"] = channel[1]
    return params


def duration_ns(inp: HookInput) -> int:
    ns = inp.payload.get("duration_ns")
    if type(ns) is int:
        return ns
    ms = inp.payload.get("duration_ms")
    if isinstance(ms, int | float) and not isinstance(ms, bool):
        return round(ms * 1_000_000)
    return 0


def after_tool_params(inp: HookInput, protocol: Protocol) -> dict[str, Any]:
    params, channel = _head(inp, "after_tool", protocol)
    params["tool"] = inp.tool_name or ""
    arguments = inp.tool_input
    if arguments:
        params["arguments"] = dict(arguments)
    result = tool_result_of(inp)
    if result is not None:
        params["result"] = tool_result_to_wire(result)
    params["duration"] = duration_ns(inp)
    return _tail(params, channel, protocol)


#: The params of each method, as `builder(inp, method, protocol)`. A codec picks its method's
#: once: a tool call's builder is `tool_call_params` itself, with no dispatch by name per call.
ParamsBuilder = Callable[[HookInput, str, Protocol], dict[str, Any]]
PARAMS_BUILDERS: dict[str, ParamsBuilder] = {
    "before_tool": tool_call_params,
    "approve_tool": tool_call_params,
    "before_llm": lambda inp, _method, protocol: before_llm_params(inp, protocol),
    "after_llm": lambda inp, _method, protocol: after_llm_params(inp, protocol),
    "after_tool": lambda inp, _method, protocol: after_tool_params(inp, protocol),
}


def params_builder(method: str) -> ParamsBuilder:
    """The params builder of `hook.<method>`; ValueError for a method PicoClaw does not have."""
    builder = PARAMS_BUILDERS.get(method)
    if builder is None:
        raise ValueError(f"unknown PicoClaw method {method!r}")
    return builder


def encode_params(method: str, inp: HookInput, protocol: Protocol) -> dict[str, Any]:
    """The params of `hook.<method>` for `inp`."""
    return params_builder(method)(inp, method, protocol)
