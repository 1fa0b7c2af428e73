"""The input JSON a Claude Code hook reads, byte for byte as Claude Code 2.1.240 writes it.

An allow-list, per event, of the fields Claude Code sends (spec §5, §6); nothing else in the
canonical payload (other dialects' context, hookwright's own bookkeeping) reaches the hook.
Field order is Claude Code's: ``session_id, transcript_path, cwd, [prompt_id],
[permission_mode], [agent_id], [agent_type], [effort], hook_event_name``, then the event's
fields in the order of :data:`EVENT_FIELDS`. A field appears only when the host has a value
for it (a ``None`` is "not known", as ``undefined`` is to ``JSON.stringify``), except the
fields of :data:`NULL_FIELDS`, which Claude Code writes as ``null``.

The bytes are ``JSON.stringify``'s: no spaces after ``,`` and ``:``, non-ASCII as UTF-8, an
integral float as an integer, NaN and infinities as ``null``, a lone surrogate as a ``\\u``
escape (non-integral numbers below 1e-4 keep Python's exponent form, ``1e-05`` where
JavaScript writes ``0.00001``). Command hooks read them plus one newline; HTTP hooks get them
as the request body.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from hookwright.core.events import Event, HookInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

E = Event

_TOOL: Final = ("tool_name", "tool_input")
_STOP: Final = ("stop_hook_active", "last_assistant_message", "background_tasks", "session_crons")
_TASK: Final = ("task_id", "task_subject", "task_description", "teammate_name", "team_name")
#: An MCP tool's server, ``{name, source}`` (Claude Code 2.1.271+; a host sets it only when the
#: version it imitates sends it).
_MCP: Final = "mcp_server"
#: SessionStart on a resume or fork (a version that sends them; see `claude_profiles`).
_RESUME_COST: Final = (
    "seconds_since_last_response",
    "context_tokens",
    "prompt_cache_likely_expired",
    "estimated_cache_write_usd",
)
_MODEL_SWITCH: Final = (
    "from_model",
    "to_model",
    "requested_model",
    "source",
    "context_tokens",
    "prompt_cache_warm",
    "cache_ttl",
    "estimated_cache_write_usd",
    "pricing",
)

#: The event-specific fields Claude Code sends, in its order (spec §6).
EVENT_FIELDS: Final[dict[Event, tuple[str, ...]]] = {
    E.SessionStart: ("source", "model", "agent_type", "session_title", *_RESUME_COST),
    E.Setup: ("trigger",),
    E.InstructionsLoaded: (
        "file_path",
        "memory_type",
        "load_reason",
        "globs",
        "trigger_file_path",
        "parent_file_path",
    ),
    E.UserPromptSubmit: ("prompt", "session_title", "source"),
    E.UserPromptExpansion: (
        "expansion_type",
        "command_name",
        "command_args",
        "command_source",
        "prompt",
    ),
    E.MessageDisplay: ("turn_id", "message_id", "index", "final", "delta"),
    E.PreToolUse: (*_TOOL, "tool_use_id", _MCP),
    E.PermissionRequest: (*_TOOL, "permission_suggestions", _MCP),
    E.PermissionDenied: (*_TOOL, "tool_use_id", "reason", _MCP),
    E.PostToolUse: (*_TOOL, "tool_response", "tool_use_id", "duration_ms", _MCP),
    E.PostToolUseFailure: (*_TOOL, "tool_use_id", "error", "is_interrupt", "duration_ms", _MCP),
    E.PostToolBatch: ("tool_calls",),
    E.Notification: ("message", "title", "notification_type"),
    E.SubagentStart: (),
    E.SubagentStop: (
        "stop_hook_active",
        "agent_transcript_path",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    ),
    E.TaskCreated: _TASK,
    E.TaskCompleted: _TASK,
    E.Stop: _STOP,
    E.StopFailure: ("error", "error_details", "last_assistant_message"),
    E.TeammateIdle: ("teammate_name", "team_name"),
    E.ConfigChange: ("source", "file_path"),
    E.CwdChanged: ("old_cwd", "new_cwd"),
    E.DirectoryAdded: ("directory", "source"),
    E.FileChanged: ("file_path", "event"),
    E.WorktreeCreate: ("name",),
    E.WorktreeRemove: ("worktree_path",),
    E.PreCompact: ("trigger", "custom_instructions"),
    E.PostCompact: ("trigger", "compact_summary"),
    E.Elicitation: (
        "mcp_server_name",
        "message",
        "mode",
        "url",
        "elicitation_id",
        "requested_schema",
    ),
    E.ElicitationResult: ("mcp_server_name", "mode", "elicitation_id", "action", "content"),
    E.SessionEnd: ("reason",),
    E.PreModelSwitch: _MODEL_SWITCH,
    E.PostModelSwitch: _MODEL_SWITCH,
    E.PreSkillShellCommand: (
        *_TOOL,
        "tool_use_id",
        "command_name",
        "command_source",
        "invoked_by",
    ),
}

#: Events that carry `permission_mode`: those fired inside a turn (prompt, tool, stop and
#: teammate events). Session, notification, subagent-start, configuration, file, worktree and
#: compaction events do not (spec §5), nor, measured in Claude Code 2.1.240, Elicitation and
#: ElicitationResult; measured in 2.1.332, PreSkillShellCommand does, the model switches do not,
#: nor TaskCreated and TaskCompleted as the TaskCreate and TaskUpdate tools fire them (only a
#: teammate's stop, which no hookwright host has, fires TaskCompleted with it).
PERMISSION_MODE_EVENTS: Final[frozenset[Event]] = frozenset(
    {
        E.PreSkillShellCommand,
        E.UserPromptSubmit,
        E.UserPromptExpansion,
        E.PreToolUse,
        E.PermissionRequest,
        E.PermissionDenied,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PostToolBatch,
        E.SubagentStop,
        E.Stop,
        E.TeammateIdle,
    }
)

#: Events that carry `effort` (the model's reasoning effort, ``{"level": "high"}``): the tool
#: events and the stop events, not the prompt, session, subagent-start or compaction events;
#: measured in 2.1.332, PreSkillShellCommand too, not the model switches.
EFFORT_EVENTS: Final[frozenset[Event]] = frozenset(
    {
        E.PreSkillShellCommand,
        E.PreToolUse,
        E.PermissionRequest,
        E.PermissionDenied,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PostToolBatch,
        E.Stop,
        E.SubagentStop,
    }
)

#: Event fields Claude Code writes as `null` when it has no value (PreCompact without
#: instructions), rather than leaving them out.
NULL_FIELDS: Final[frozenset[tuple[Event, str]]] = frozenset(
    {
        (E.PreCompact, "custom_instructions"),
        # ``/model default`` names no model (measured with 2.1.332).
        (E.PreModelSwitch, "requested_model"),
        (E.PostModelSwitch, "requested_model"),
    }
)

#: `JSON.stringify` writes an integral number below this without a fraction or exponent.
_PLAIN_INTEGER_LIMIT: Final = 1e21


def _value(inp: HookInput, name: str) -> Any:
    """A field from the payload, else from the input's common fields."""
    value = inp.payload.get(name)
    if value is None and name in ("turn_id", "agent_id", "agent_type"):
        value = getattr(inp, name)
    return value


def encode_input(inp: HookInput, *, actions: bool = False) -> dict[str, Any]:
    """The JSON object Claude Code would send for `inp`, in Claude Code's field order; with
    `actions` (the hook's ``"actions": true``), a tool call's canonical actions last
    (``hookwright_actions``), which Claude Code never sends."""
    event = inp.event
    fields = EVENT_FIELDS.get(event, ())
    wire: dict[str, Any] = {}

    def put(name: str, value: Any) -> None:
        if value is not None:
            wire[name] = value

    put("session_id", inp.session_id)
    put("transcript_path", inp.transcript_path)
    put("cwd", inp.cwd)
    put("prompt_id", inp.payload.get("prompt_id"))
    if event in PERMISSION_MODE_EVENTS:
        put("permission_mode", inp.permission_mode)
    for name in ("agent_id", "agent_type"):
        if name not in fields:
            put(name, _value(inp, name))
    if event in EFFORT_EVENTS:
        put("effort", inp.payload.get("effort"))
    wire["hook_event_name"] = event.value
    for name in fields:
        value = _value(inp, name)
        if value is None and (event, name) in NULL_FIELDS:
            wire[name] = None
        put(name, value)
    if actions and inp.tool_name:
        from hookwright.core.actions import WIRE_FIELD, actions_json  # here: asked by the hook

        wire[WIRE_FIELD] = actions_json(inp.actions)
    return wire


#: The types `_js` returns as they are, looked up first: the leaves of nearly every input
#: and answer.
_PLAIN: Final = frozenset({str, int, bool, type(None)})


def _js(value: Any) -> Any:
    """`value` with numbers as `JSON.stringify` writes them."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, float):
        import math  # here: an answer or an input rarely holds a float

        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < _PLAIN_INTEGER_LIMIT:
            return int(value)
        return value
    # A plain leaf is taken as it is without a call (most of an answer's values are).
    if isinstance(value, dict):
        return {k: v if type(v) in _PLAIN else _js(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) in _PLAIN else _js(v) for v in value]
    return value


#: `json.dumps` with these settings, made once (each call of `json.dumps` with settings
#: makes an encoder; a daemon encodes every answer).
_JS_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


#: The C encoder `JSONEncoder.iterencode` makes (None where `_json` is missing), made once and
#: without the circular-reference bookkeeping: what it encodes comes from `_js`, which copies
#: every dict and list, so it holds no cycle.
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE: Callable[[Any, int], list[str]] | None = (
    None
    if _c_make_encoder is None
    else _c_make_encoder(
        None,  # markers: no circular-reference check
        _JS_ENCODER.default,
        json.encoder.encode_basestring,
        None,  # indent
        ":",
        ",",
        False,  # sort_keys
        False,  # skipkeys
        False,  # allow_nan
    )
)


def _encoded(value: Any) -> str:
    """`_JS_ENCODER.encode(value)` for a value `_js` returned, calling the C encoder it would
    call directly (its two Python frames and their closures cost as much as the encoding of a
    small answer)."""
    if _C_ENCODE is None or isinstance(value, str):
        return _JS_ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def _shallow_plain(value: Any) -> bool:
    """Whether `value` is a dict of plain leaves and of dicts of plain leaves (an answer's
    usual shape): nothing `_js` would rewrite, so it is encoded without `_js`'s copy."""
    if type(value) is not dict:
        return False
    for inner in value.values():
        if type(inner) not in _PLAIN:
            if type(inner) is not dict:
                return False
            for leaf in inner.values():
                if type(leaf) not in _PLAIN:
                    return False
    return True


def js_json(value: Any) -> bytes:
    """`JSON.stringify(value)` as UTF-8 bytes."""
    plain = value if _shallow_plain(value) else _js(value)
    return _encoded(plain).encode("utf-8", errors="backslashreplace")


def encode_body(inp: HookInput, *, actions: bool = False) -> bytes:
    """The HTTP hook request body: the input JSON."""
    return js_json(encode_input(inp, actions=actions))


def encode_stdin(inp: HookInput, *, actions: bool = False) -> bytes:
    """What a command hook reads: the input JSON and a single newline."""
    return encode_body(inp, actions=actions) + b"\n"
