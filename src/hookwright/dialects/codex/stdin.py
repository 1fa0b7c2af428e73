"""The input JSON a Codex hook reads, byte for byte as Codex CLI 0.171.0 writes it.

Compact JSON (serde_json: no spaces, non-ASCII as UTF-8), no trailing newline. Field order:
``session_id, [turn_id], transcript_path, cwd, hook_event_name, model, permission_mode``,
then the event's fields (:data:`EVENT_FIELDS`). SessionStart and SessionEnd carry no
``turn_id``; SessionEnd carries no ``model`` or ``permission_mode``. A field is written only
when the host has a value for it. Inside a subagent (measured on Codex CLI 0.171.0, a
`spawn_agent` call): ``agent_id, agent_type`` follow ``turn_id`` on every event but
SubagentStart and SubagentStop, which carry them among their own fields; ``transcript_path``
is the subagent's own transcript on every event inside it but SubagentStop, where it is the
session's and ``agent_transcript_path`` (the subagent's) follows it.

A call reads as Codex shows it (`tools`: the shell tool ``Bash`` with ``{"command": ...}``
alone, the subagent tool ``spawn_agent`` with ``{"message": ...}``), and the tool's result as a
string (the command's output).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from hookwright.core.events import Event, HookInput
from hookwright.dialects.codex.tools import codex_tool_input, codex_tool_name

E = Event

_TOOL: Final = ("tool_name", "tool_input")
EVENT_FIELDS: Final[dict[Event, tuple[str, ...]]] = {
    E.SessionStart: ("source",),
    E.UserPromptSubmit: ("prompt",),
    E.PreToolUse: (*_TOOL, "tool_use_id"),
    E.PermissionRequest: (*_TOOL, "tool_use_id"),
    E.PostToolUse: (*_TOOL, "tool_response", "tool_use_id"),
    E.PreCompact: ("trigger",),
    E.PostCompact: ("trigger",),
    E.Stop: ("stop_hook_active", "last_assistant_message"),
    E.StopFailure: ("error", "last_assistant_message"),
    E.SubagentStart: ("agent_id", "agent_type"),
    E.SubagentStop: ("stop_hook_active", "agent_id", "agent_type", "last_assistant_message"),
    E.SessionEnd: ("reason",),
}
_NO_TURN: Final = frozenset({E.SessionStart, E.SessionEnd})
#: Events naming their subagent among their own fields, not after ``turn_id``.
_OWN_AGENT: Final = frozenset({E.SubagentStart, E.SubagentStop})
_NO_MODEL: Final = frozenset({E.SessionEnd})


def tool_response(payload: Mapping[str, Any]) -> Any:
    """A tool's result as Codex hands it to hooks: a string, the output the command wrote."""
    response = payload.get("tool_response")
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping) and isinstance(response.get("stdout"), str):
        return str(response["stdout"]) + str(response.get("stderr") or "")
    result = payload.get("tool_result")
    if isinstance(result, Mapping) and isinstance(result.get("content"), str):
        return result["content"]
    return "" if response is None else json.dumps(response, ensure_ascii=False)


def _value(inp: HookInput, name: str) -> Any:
    payload = inp.payload
    if name == "tool_name":
        return codex_tool_name(payload.get("tool_name"))
    if name == "tool_input":
        return codex_tool_input(payload.get("tool_name"), payload.get("tool_input"))
    if name == "tool_response":
        return tool_response(payload)
    value = payload.get(name)
    if value is None and name in ("agent_id", "agent_type"):
        value = getattr(inp, name)
    return value


def encode_input(inp: HookInput) -> dict[str, Any]:
    """The JSON object Codex would send for `inp`, in Codex's field order."""
    event = inp.event
    wire: dict[str, Any] = {}

    def put(name: str, value: Any) -> None:
        if value is not None:
            wire[name] = value

    put("session_id", inp.session_id)
    if event not in _NO_TURN:
        put("turn_id", inp.turn_id)
    if event not in _OWN_AGENT and inp.agent_id:
        put("agent_id", inp.agent_id)
        put("agent_type", inp.agent_type)
    own_transcript = inp.payload.get("agent_transcript_path") if inp.agent_id else None
    if event is E.SubagentStop or own_transcript is None:
        put("transcript_path", inp.transcript_path)
    else:
        put("transcript_path", own_transcript)
    if event is E.SubagentStop:
        put("agent_transcript_path", own_transcript)
    put("cwd", inp.cwd)
    wire["hook_event_name"] = event.value
    if event not in _NO_MODEL:
        put("model", inp.payload.get("model"))
        put("permission_mode", inp.permission_mode)
    for name in EVENT_FIELDS.get(event, ()):
        put(name, _value(inp, name))
    return wire


def encode_stdin(inp: HookInput) -> bytes:
    """What a Codex command hook reads: compact JSON, no newline after it."""
    text = json.dumps(encode_input(inp), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", errors="backslashreplace")
