from __future__ import annotations

import pytest

from hookwright.core.events import (
    ALIASES,
    CLAUDE_CODE_EVENTS,
    MATCH_FIELD,
    Event,
    HookInput,
    UnknownEventError,
    resolve_event,
)

CLAUDE_31 = [
    "SessionStart",
    "Setup",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "MessageDisplay",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
]


def test_all_31_claude_code_events_are_canonical() -> None:
    assert len(CLAUDE_31) == 31
    assert [e.value for e in CLAUDE_CODE_EVENTS] == CLAUDE_31
    for name in CLAUDE_31:
        assert resolve_event(name) is Event(name)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("before_tool", Event.PreToolUse),
        ("hook.before_tool", Event.PreToolUse),
        ("before_tool_dispatch", Event.PreToolUse),
        ("after_tool", Event.PostToolUse),
        ("after_tool_dispatch", Event.PostToolUse),
        ("after_tool_call", Event.PostToolUse),
        ("approve_tool", Event.PermissionRequest),
        ("before_llm", Event.PreModelCall),
        ("before_model_call", Event.PreModelCall),
        ("after_llm", Event.PostModelCall),
        ("after_model_call", Event.PostModelCall),
        ("after_user_input", Event.UserPromptSubmit),
        ("before_planning", Event.PrePlanning),
        ("before_each_agent", Event.PreAgentStep),
        ("before_first_agent", Event.PreAgentStep),
        ("before_context_build", Event.PreContextBuild),
        ("after_context_build", Event.PostContextBuild),
        ("before_context_compact", Event.PreCompact),
        ("after_context_compact", Event.PostCompact),
        ("run_completed", Event.Stop),
        ("run_failed", Event.StopFailure),
    ],
)
def test_dialect_aliases_resolve(alias: str, canonical: Event) -> None:
    assert ALIASES[alias] is canonical
    assert resolve_event(alias) is canonical


@pytest.mark.parametrize("name", ["", "pretooluse", "PreToolUse ", "before_anything"])
def test_unknown_event_names_are_rejected(name: str) -> None:
    with pytest.raises(UnknownEventError, match="unknown event"):
        resolve_event(name)


def test_wire_round_trip_keeps_common_fields_and_payload() -> None:
    data = {
        "session_id": "s1",
        "turn_id": "t1",
        "agent_id": "a1",
        "agent_type": "Explore",
        "cwd": "/w",
        "transcript_path": "/w/t.jsonl",
        "permission_mode": "default",
        "hook_event_name": "ignored",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    inp = HookInput.from_wire("before_tool", data)
    assert inp.event is Event.PreToolUse
    assert inp.hook_event_name == "PreToolUse"
    assert inp.payload == {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    wire = inp.to_wire()
    assert wire == {**data, "hook_event_name": "PreToolUse"}
    assert inp["tool_name"] == "Bash"
    assert inp.get("session_id") == "s1"
    with pytest.raises(KeyError):
        inp["nope"]


def test_unset_common_fields_are_omitted_from_the_wire() -> None:
    wire = HookInput(Event.Stop, session_id="s", payload={"stop_hook_active": False}).to_wire()
    assert wire == {"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": False}


@pytest.mark.parametrize(
    ("event", "payload", "expected"),
    [
        (Event.PreToolUse, {"tool_name": "Bash"}, "Bash"),
        (Event.SessionStart, {"source": "resume"}, "resume"),
        (Event.PreCompact, {"trigger": "auto"}, "auto"),
        (Event.StopFailure, {"error": "rate_limit"}, "rate_limit"),
        (Event.Stop, {"last_assistant_message": "x"}, None),
        (Event.UserPromptSubmit, {"prompt": "hi"}, None),
        (Event.PreToolUse, {}, None),
    ],
)
def test_match_value_per_event(event: Event, payload: dict[str, str], expected: str | None) -> None:
    assert HookInput(event, payload=payload).match_value() == expected


def test_subagent_match_value_falls_back_to_agent_type() -> None:
    inp = HookInput(Event.SubagentStart, agent_type="Explore")
    assert MATCH_FIELD[Event.SubagentStart] == "agent_type"
    assert inp.match_value() == "Explore"


def test_match_field_override() -> None:
    inp = HookInput(Event.Stop, payload={"trigger_type": "message"})
    assert inp.match_value() is None
    assert inp.match_value("trigger_type") == "message"


def test_with_payload_copies() -> None:
    inp = HookInput(Event.PreToolUse, payload={"tool_input": {"a": 1}})
    other = inp.with_payload(tool_input={"a": 2})
    assert inp.tool_input == {"a": 1}
    assert other.tool_input == {"a": 2}
