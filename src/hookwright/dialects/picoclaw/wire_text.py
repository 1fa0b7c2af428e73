"""The params of a tool call (`before_tool`, `approve_tool`) written as JSON text at once,
byte for byte what encoding `codec.tool_call_params` compactly gives, without building them
as dicts first.

A process hook's tool-call params are the JSON-RPC path's largest cost after the round trip:
built as three nested dicts and then encoded member by member, they took about as many
instructions as the rest of the dispatch. Written here, only the values are encoded (the
strings by the `json` module's own C string encoder, the tool's arguments and a given context
by the same C encoder `transports.rpc` uses); member names and punctuation are constants.

Only what `tool_call_params` can be sure of is written here; anything else (a value of
another type where a string is expected, arguments that do not encode) returns None, and the
caller builds the params as before, so a failure surfaces where it always did.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hookwright.core.events import HookInput
from hookwright.dialects.picoclaw.codec import (
    MAIN_AGENT_ID,
    MAIN_TURN_SOURCE,
    TRACE_PATHS,
    Protocol,
)
from hookwright.transports.rpc import json_text

#: The methods whose params `tool_call_text` writes.
TOOL_CALL_METHODS = frozenset({"before_tool", "approve_tool"})

_string = json.encoder.encode_basestring  # the C encoder's own, with ensure_ascii off
_EMPTY = '""'
_MAIN_SOURCE = _string(MAIN_TURN_SOURCE)
_MAIN_AGENT = _string(MAIN_AGENT_ID)
#: Each method's `TracePath`, as JSON text.
_STAGES = {method: _string(path) for method, path in TRACE_PATHS.items()}
#: The context `_context` writes for a payload with no context and none of the inbound
#: fields (the usual tool call): every member empty.
_EMPTY_INBOUND = '{"inbound":{"channel":"","chat_id":"","sender_id":""}}'


def _sub_turn_meta(stage: str, turn_source: str) -> str:
    """`codec.build_meta`'s object for a call of another turn source than the main turn's."""
    return (
        '{"AgentID":"","TurnID":"","ParentTurnID":"","SessionKey":"","Iteration":0,'
        f'"TracePath":{stage},"Source":{_string(turn_source)}}}'
    )


def _text(value: Any) -> str:
    """A string value as `codec._str` reads it, as JSON text."""
    return _string(value) if isinstance(value, str) and value else _EMPTY


def tool_call_text(inp: HookInput, method: str, protocol: Protocol) -> bytes | None:
    """`tool_call_params(inp, method, protocol)` as compact JSON (UTF-8), or None where the
    params must be built and encoded as before (see the module's note). The members, in
    PicoClaw's order: `meta`, (`context`,) `tool`, `arguments` where there are any, (the seed
    protocol's `channel` and `chat_id` where not empty)."""
    try:
        payload = inp.payload
        context = payload.get("context")
        inbound = None
        if context is not None and isinstance(context, Mapping):
            inbound = context.get("inbound")
            if inbound is not None and not isinstance(inbound, Mapping):
                inbound = None
        tool = payload.get("tool_name")
        members = f'"tool":{_string(tool) if isinstance(tool, str) and tool else _EMPTY}'
        arguments = payload.get("tool_input")
        if arguments and isinstance(arguments, dict):
            encoded = json_text(arguments if type(arguments) is dict else dict(arguments))
            members = f'{members},"arguments":{encoded}'
        if protocol == "current":
            if (
                context is None
                and "channel" not in payload
                and "chat_id" not in payload
                and "sender_id" not in payload
            ):
                # What `_context` writes for these, without its calls.
                members = f'"context":{_EMPTY_INBOUND},{members}'
            else:
                members = f'"context":{_context(payload, context, inbound)},{members}'
        elif inbound is not None or "channel" in payload or "chat_id" in payload:
            members += _seed_channel(payload, inbound)
        turn_source = payload.get("turn_source")
        if turn_source and isinstance(turn_source, str) and turn_source != MAIN_TURN_SOURCE:
            return f'{{"meta":{_sub_turn_meta(_STAGES[method], turn_source)},{members}}}'.encode()
        # `codec.build_meta`'s object, written out (`_text` and `pico_iteration` inline) in
        # the one string of the params.
        agent, turn, session = inp.agent_id, inp.turn_id, inp.session_id
        iteration, parent = payload.get("iteration"), payload.get("parent_turn_id")
        parent = _string(parent) if isinstance(parent, str) and parent else _EMPTY
        return (
            f'{{"meta":{{"AgentID":{_string(agent) if agent else _MAIN_AGENT},'
            f'"TurnID":{_string(turn) if turn else _EMPTY},"ParentTurnID":{parent},'
            f'"SessionKey":{_string(session) if session else _EMPTY},'
            f'"Iteration":{iteration + 1 if type(iteration) is int and iteration >= 0 else 0},'
            f'"TracePath":{_STAGES[method]},"Source":{_MAIN_SOURCE}}},{members}}}'
        ).encode()
    except Exception:
        return None


def _seed_channel(payload: Mapping[str, Any], inbound: Mapping[str, Any] | None) -> str:
    """The seed protocol's ``"channel"`` and ``"chat_id"`` members, each only when not empty."""
    channel, chat_id = _channel(payload, inbound)
    members = f',"channel":{channel}' if channel != _EMPTY else ""
    return members + (f',"chat_id":{chat_id}' if chat_id != _EMPTY else "")


def _channel(payload: Mapping[str, Any], inbound: Mapping[str, Any] | None) -> tuple[str, str]:
    """`codec._channel` as JSON text: the payload's own, else the context's `inbound` ones."""
    channel, chat_id = payload.get("channel"), payload.get("chat_id")
    if inbound is not None:
        if not (isinstance(channel, str) and channel):
            channel = inbound.get("channel")
        if not (isinstance(chat_id, str) and chat_id):
            chat_id = inbound.get("chat_id")
    return _text(channel), _text(chat_id)


def _context(payload: Mapping[str, Any], context: Any, inbound: Mapping[str, Any] | None) -> str:
    """`codec._context` as JSON text: a given context as it is, else the `inbound` part."""
    if context is not None and isinstance(context, Mapping):
        return json_text(dict(context))
    channel, chat_id = _channel(payload, inbound)
    sender = payload.get("sender_id")
    return f'{{"inbound":{{"channel":{channel},"chat_id":{chat_id},"sender_id":{_text(sender)}}}}}'
