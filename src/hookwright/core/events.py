"""Canonical lifecycle events and the input every hook receives.

Every host fires canonical events; each dialect names a subset of them. Claude Code's 31 events
keep their names, the other dialects' names resolve through :data:`ALIASES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from hookwright.core.validation import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.core.actions import Action


class Event(StrEnum):
    # Claude Code's 31 events (v2.1.240), in the order of its reference table.
    SessionStart = "SessionStart"
    Setup = "Setup"
    InstructionsLoaded = "InstructionsLoaded"
    UserPromptSubmit = "UserPromptSubmit"
    UserPromptExpansion = "UserPromptExpansion"
    MessageDisplay = "MessageDisplay"
    PreToolUse = "PreToolUse"
    PermissionRequest = "PermissionRequest"
    PermissionDenied = "PermissionDenied"
    PostToolUse = "PostToolUse"
    PostToolUseFailure = "PostToolUseFailure"
    PostToolBatch = "PostToolBatch"
    Notification = "Notification"
    SubagentStart = "SubagentStart"
    SubagentStop = "SubagentStop"
    TaskCreated = "TaskCreated"
    TaskCompleted = "TaskCompleted"
    Stop = "Stop"
    StopFailure = "StopFailure"
    TeammateIdle = "TeammateIdle"
    ConfigChange = "ConfigChange"
    CwdChanged = "CwdChanged"
    DirectoryAdded = "DirectoryAdded"
    FileChanged = "FileChanged"
    WorktreeCreate = "WorktreeCreate"
    WorktreeRemove = "WorktreeRemove"
    PreCompact = "PreCompact"
    PostCompact = "PostCompact"
    Elicitation = "Elicitation"
    ElicitationResult = "ElicitationResult"
    SessionEnd = "SessionEnd"
    # Events the other dialects need and Claude Code lacks.
    PrePlanning = "PrePlanning"
    PreAgentStep = "PreAgentStep"
    PreContextBuild = "PreContextBuild"
    PostContextBuild = "PostContextBuild"
    PreModelCall = "PreModelCall"
    PostModelCall = "PostModelCall"
    #: The person interrupted a running turn (Ctrl-C, the page's stop): Codex's Interrupt.
    Interrupt = "Interrupt"
    # Claude Code events newer than v2.1.240 (`dialects.claude_profiles` says which version
    # has which).
    PreModelSwitch = "PreModelSwitch"
    PostModelSwitch = "PostModelSwitch"
    PreSkillShellCommand = "PreSkillShellCommand"


CLAUDE_CODE_EVENTS: tuple[Event, ...] = tuple(list(Event)[:31])
#: Claude Code's events since v2.1.240, in the order they appeared.
CLAUDE_CODE_LATER_EVENTS: tuple[Event, ...] = (
    Event.PreModelSwitch,
    Event.PostModelSwitch,
    Event.PreSkillShellCommand,
)

#: Dialect vocabulary -> canonical event. Several names may map to one event; the dialect
#: adapter keeps the finer distinction (e.g. before_first_agent vs before_each_agent) in the
#: payload (`first`, `round`).
ALIASES: dict[str, Event] = {
    # PicoClaw (JSON-RPC method names without the `hook.` prefix, and with it)
    "before_llm": Event.PreModelCall,
    "after_llm": Event.PostModelCall,
    "before_tool": Event.PreToolUse,
    "after_tool": Event.PostToolUse,
    "approve_tool": Event.PermissionRequest,
    "hook.before_llm": Event.PreModelCall,
    "hook.after_llm": Event.PostModelCall,
    "hook.before_tool": Event.PreToolUse,
    "hook.after_tool": Event.PostToolUse,
    "hook.approve_tool": Event.PermissionRequest,
    # OpenHarness
    "before_context_build": Event.PreContextBuild,
    "after_context_build": Event.PostContextBuild,
    "before_model_call": Event.PreModelCall,
    "after_model_call": Event.PostModelCall,
    "before_tool_dispatch": Event.PreToolUse,
    "after_tool_dispatch": Event.PostToolUse,
    "run_completed": Event.Stop,
    "run_failed": Event.StopFailure,
    "before_context_compact": Event.PreCompact,
    "after_context_compact": Event.PostCompact,
    # Gemini CLI (BeforeModel and BeforeToolSelection both before each model call)
    "BeforeAgent": Event.UserPromptSubmit,
    "BeforeModel": Event.PreModelCall,
    "BeforeToolSelection": Event.PreModelCall,
    "AfterModel": Event.PostModelCall,
    "BeforeTool": Event.PreToolUse,
    "AfterTool": Event.PostToolUse,
    "AfterAgent": Event.Stop,
    "PreCompress": Event.PreCompact,
    # skill prompt hooks
    "after_user_input": Event.UserPromptSubmit,
    "before_planning": Event.PrePlanning,
    "before_each_agent": Event.PreAgentStep,
    "before_first_agent": Event.PreAgentStep,
    "after_tool_call": Event.PostToolUse,
}


class UnknownEventError(ValueError):
    """Raised for an event name that is neither canonical nor a known alias."""


def resolve_event(name: str | Event) -> Event:
    """Return the canonical event for a canonical name or any dialect alias."""
    if isinstance(name, Event):
        return name
    try:
        return Event(name)
    except ValueError:
        pass
    alias = ALIASES.get(name)
    if alias is not None:
        return alias
    known = [event.value for event in Event] + list(ALIASES)
    raise UnknownEventError(f"unknown event {name!r}{did_you_mean(name, known)}")


#: The input field a matcher is tested against, per event (Claude Code spec §2.2). Events absent
#: here have no matcher: every hook on them runs. A hook may name another field (OpenHarness
#: matches `model_ref` and `trigger_type`) through `HookSpec.match_field`.
MATCH_FIELD: dict[Event, str] = {
    Event.PreToolUse: "tool_name",
    Event.PostToolUse: "tool_name",
    Event.PostToolUseFailure: "tool_name",
    Event.PermissionRequest: "tool_name",
    Event.PermissionDenied: "tool_name",
    Event.SessionStart: "source",
    Event.Setup: "trigger",
    Event.SessionEnd: "reason",
    Event.Notification: "notification_type",
    Event.SubagentStart: "agent_type",
    Event.SubagentStop: "agent_type",
    Event.PreCompact: "trigger",
    Event.PostCompact: "trigger",
    Event.ConfigChange: "source",
    Event.DirectoryAdded: "source",
    Event.FileChanged: "file_path",
    Event.StopFailure: "error",
    Event.InstructionsLoaded: "load_reason",
    Event.UserPromptExpansion: "command_name",
    Event.Elicitation: "mcp_server_name",
    Event.ElicitationResult: "mcp_server_name",
    Event.PreModelCall: "model",
    Event.PostModelCall: "model",
}

#: Events on which a handler's `if` rule is evaluated; on any other event such a handler never
#: runs (Claude Code spec §1.3).
TOOL_EVENTS: frozenset[Event] = frozenset(
    {
        Event.PreToolUse,
        Event.PostToolUse,
        Event.PostToolUseFailure,
        Event.PermissionRequest,
        Event.PermissionDenied,
    }
)

#: Payload field a hook may replace wholesale (`updated_input`) and the field holding the
#: result a hook may replace (`updated_output`).
INPUT_FIELD: dict[Event, str] = {
    Event.PreToolUse: "tool_input",
    Event.PermissionRequest: "tool_input",
}
OUTPUT_FIELD: dict[Event, str] = {
    Event.PostToolUse: "tool_response",
    Event.PostModelCall: "response",
}
#: Model-request events: `updated_input` is a mapping of request fields that replace these.
MODEL_REQUEST_FIELDS: tuple[str, ...] = ("model", "messages", "tools", "options")

COMMON_FIELDS: tuple[str, ...] = (
    "session_id",
    "turn_id",
    "agent_id",
    "agent_type",
    "cwd",
    "transcript_path",
    "permission_mode",
)


_NOTHING: Mapping[str, Any] = MappingProxyType({})


def _nothing() -> Mapping[str, Any]:
    """The shared, read-only empty mapping of an input's side channels."""
    return _NOTHING


def _event_named(name: object) -> Event:
    if not isinstance(name, str):
        raise UnknownEventError(
            f"event must be an Event or an event name, got {type(name).__name__}"
        )
    return resolve_event(name)


@dataclass(slots=True, init=False)
class HookInput:
    """What a hook sees: the common fields plus the event's payload.

    Hosts build one per checkpoint; the engine copies it (never mutates it) when a chain hook
    rewrites the input for the hooks after it.

    Two mappings ride along and are never serialised (no codec, wire form or audit record
    reads them):

    * `host_objects`: objects the host hands to in-process Python hooks (a database handle, a
      lock, the framework's run context). Anything goes; nothing is copied or encoded.
    * `chain_state`: a dialect's private state carried from one hook of a chain to the next,
      keyed by dialect name (OpenHarness keeps its merged context patch here). Hosts leave it
      empty; the engine fills it between stages.
    """

    event: Event
    session_id: str | None = None
    turn_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    cwd: str | None = None
    transcript_path: str | None = None
    permission_mode: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    host_objects: Mapping[str, Any] = field(default_factory=_nothing, repr=False, compare=False)
    chain_state: Mapping[str, Any] = field(default_factory=_nothing, repr=False, compare=False)
    _actions: tuple[Action, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(
        self,
        event: Event | str,
        session_id: str | None = None,
        turn_id: str | None = None,
        agent_id: str | None = None,
        agent_type: str | None = None,
        cwd: str | None = None,
        transcript_path: str | None = None,
        permission_mode: str | None = None,
        payload: dict[str, Any] | None = None,
        host_objects: Mapping[str, Any] = _NOTHING,
        chain_state: Mapping[str, Any] = _NOTHING,
    ) -> None:
        """`event` is an `Event` or its name: a canonical name or any dialect alias
        (``"PreToolUse"``, ``"before_tool"``); anything else raises `UnknownEventError`."""
        self.event = event if type(event) is Event else _event_named(event)
        self.session_id = session_id
        self.turn_id = turn_id
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.cwd = cwd
        self.transcript_path = transcript_path
        self.permission_mode = permission_mode
        self.payload = {} if payload is None else payload
        self.host_objects = host_objects
        self.chain_state = chain_state
        self._actions = None

    @property
    def hook_event_name(self) -> str:
        return self.event.value

    @property
    def tool_name(self) -> str | None:
        value = self.payload.get("tool_name")
        return value if isinstance(value, str) else None

    @property
    def tool_input(self) -> dict[str, Any]:
        value = self.payload.get("tool_input")
        return value if isinstance(value, dict) else {}

    @property
    def actions(self) -> tuple[Action, ...]:
        """The canonical actions of the tool call (`hookwright.core.actions`): what it reads,
        writes, deletes, fetches and runs, whichever tool it is. Derived on first use, once
        per input; empty when the input names no tool."""
        actions = self._actions
        if actions is None:
            from hookwright.core.tool_actions import derive_actions  # the parser: on first use

            name = self.tool_name
            actions = derive_actions(name, self.tool_input, self.cwd) if name else ()
            self._actions = actions
        return actions

    def get(self, key: str, default: Any = None) -> Any:
        if key in COMMON_FIELDS:
            value = getattr(self, key)
            return default if value is None else value
        if key == "hook_event_name":
            return self.event.value
        return self.payload.get(key, default)

    def __getitem__(self, key: str) -> Any:
        missing = object()
        value = self.get(key, missing)
        if value is missing:
            raise KeyError(key)
        return value

    def match_value(self, field_name: str | None = None) -> str | None:
        """The value this event's matchers are tested against (None: every hook matches)."""
        name = field_name or MATCH_FIELD.get(self.event)
        if name is None:
            return None
        value = self.payload.get(name)
        if value is None and name == "agent_type":
            value = self.agent_type
        if value is None:
            return None
        return value if type(value) is str else str(value)

    def with_payload(self, **updates: Any) -> HookInput:
        return replace(self, payload={**self.payload, **updates})

    def with_chain_state(self, updates: Mapping[str, Any]) -> HookInput:
        """A copy whose chain state has `updates` (dialect name -> state) merged in."""
        return replace(self, chain_state=MappingProxyType({**self.chain_state, **updates}))

    def to_wire(self) -> dict[str, Any]:
        """Flat JSON object in Claude Code's shape: common fields (omitted when unset),
        `hook_event_name`, then the payload. `host_objects` and `chain_state` are not part
        of it."""
        wire: dict[str, Any] = {}
        for name in COMMON_FIELDS:
            value = getattr(self, name)
            if value is not None:
                wire[name] = value
        wire["hook_event_name"] = self.event.value
        wire.update(self.payload)
        return wire

    @classmethod
    def from_wire(cls, event: str | Event, data: Mapping[str, Any]) -> HookInput:
        """Build an input from a flat JSON object; `hook_event_name` in `data` is ignored in
        favour of `event`."""
        canonical = resolve_event(event)
        common: dict[str, Any] = {}
        payload: dict[str, Any] = {}
        for key, value in data.items():
            if key in COMMON_FIELDS:
                common[key] = None if value is None else str(value)
            elif key != "hook_event_name":
                payload[key] = value
        return cls(event=canonical, payload=payload, **common)

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_wire())
