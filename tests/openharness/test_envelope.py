"""The envelope every handler receives (seed: I/O input tables), recorded by a real hook
script on every event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput

from .helpers import (
    MESSAGES,
    Workspace,
    context_event,
    install_ws,
    model_call,
    model_reply,
    read_records,
    reply_script,
    run_end,
    tool_call,
    tool_result,
)

ALL_EVENTS = [
    "before_context_build",
    "after_context_build",
    "before_model_call",
    "after_model_call",
    "before_tool_dispatch",
    "after_tool_dispatch",
    "run_completed",
    "run_failed",
    "before_context_compact",
    "after_context_compact",
]

COMMON = {
    "workspace_id",
    "session_id",
    "run_id",
    "cwd",
    "hook_event_name",
    "agent_name",
    "effective_agent_name",
    "trigger_type",
    "run_status",
}


@pytest.fixture
async def recorded(ws: Workspace, engine: HookEngine, tmp_path: Path) -> Any:
    record = tmp_path / "envelopes.jsonl"
    ws.command_hook(
        "rec.yaml",
        "recorder",
        ALL_EVENTS,
        reply_script({}, record=True),
        environment={"RECORD_TO": str(record)},
    )
    install_ws(engine, ws)

    async def envelope_for(inp: HookInput) -> dict[str, Any]:
        before = len(read_records(record))
        await engine.dispatch(inp)
        records = read_records(record)
        assert len(records) == before + 1
        return records[-1]

    return envelope_for


async def test_common_fields(recorded: Any, ws: Workspace) -> None:
    inp = tool_call(command="ls")
    inp.payload.update(workspace_id="ws-1", agent_name="builder", effective_agent_name="fixer")
    envelope = await recorded(inp)
    assert set(envelope) >= COMMON
    assert envelope["workspace_id"] == "ws-1"
    assert envelope["session_id"] == "s-1"
    assert envelope["run_id"] == "run-1"
    assert envelope["cwd"] == str(ws.root.resolve())
    assert envelope["hook_event_name"] == "before_tool_dispatch"
    assert (envelope["agent_name"], envelope["effective_agent_name"]) == ("builder", "fixer")
    assert envelope["run_status"] == "running"


async def test_effective_agent_defaults_to_the_agent(recorded: Any) -> None:
    inp = tool_call(command="ls")
    inp.payload["agent_name"] = "builder"
    envelope = await recorded(inp)
    assert envelope["effective_agent_name"] == "builder"


async def test_before_model_call(recorded: Any) -> None:
    envelope = await recorded(model_call(temperature=0.3, top_p=0.9, max_tokens=256))
    assert envelope["hook_event_name"] == "before_model_call"
    assert envelope["model_ref"] == "platform/openai-default"
    assert envelope["model_request"] == {
        "model": "gpt-4o",
        "canonicalModelRef": "platform/openai-default",
        "temperature": 0.3,
        "topP": 0.9,
        "maxTokens": 256,
        "messages": MESSAGES,
    }
    assert "model_response" not in envelope and "tool_name" not in envelope


async def test_after_model_call(recorded: Any) -> None:
    envelope = await recorded(model_reply("the answer"))
    assert envelope["hook_event_name"] == "after_model_call"
    assert envelope["model_request"]["temperature"] == 0.2
    assert "topP" not in envelope["model_request"]
    assert envelope["model_response"] == {
        "model": "gpt-4o",
        "text": "the answer",
        "finishReason": "stop",
    }


async def test_before_tool_dispatch(recorded: Any) -> None:
    envelope = await recorded(tool_call(command="ls"))
    assert envelope["tool_name"] == "Bash"
    assert envelope["tool_input"] == {"command": "ls"}
    assert envelope["tool_call_id"] == "call-1"
    assert "tool_output" not in envelope


async def test_after_tool_dispatch(recorded: Any) -> None:
    envelope = await recorded(tool_result({"stdout": "a.txt"}, command="ls"))
    assert envelope["hook_event_name"] == "after_tool_dispatch"
    assert envelope["tool_output"] == {"stdout": "a.txt"}
    assert envelope["tool_input"] == {"command": "ls"}


async def test_after_tool_dispatch_falls_back_to_the_model_facing_result(recorded: Any) -> None:
    inp = tool_result(None)
    inp.payload["tool_result"] = {"content": "plain text", "is_error": False}
    envelope = await recorded(inp)
    assert envelope["tool_output"] == "plain text"


@pytest.mark.parametrize(
    ("event", "status", "name"),
    [(Event.Stop, "completed", "run_completed"), (Event.StopFailure, "failed", "run_failed")],
)
async def test_run_events(recorded: Any, event: Event, status: str, name: str) -> None:
    envelope = await recorded(run_end(event, "api_action"))
    assert envelope["hook_event_name"] == name
    assert (envelope["trigger_type"], envelope["run_status"]) == ("api_action", status)
    assert set(envelope) == COMMON


@pytest.mark.parametrize(
    ("event", "name"),
    [
        (Event.PreContextBuild, "before_context_build"),
        (Event.PostContextBuild, "after_context_build"),
    ],
)
async def test_context_events(recorded: Any, event: Event, name: str) -> None:
    envelope = await recorded(context_event(event))
    assert envelope["hook_event_name"] == name
    assert envelope["context"] == {"messages": MESSAGES}


async def test_compaction_events(recorded: Any) -> None:
    before = HookInput(
        Event.PreCompact,
        payload={"trigger": "auto", "custom_instructions": "keep names", "messages": MESSAGES},
    )
    envelope = await recorded(before)
    assert envelope["hook_event_name"] == "before_context_compact"
    assert envelope["context"] == {
        "messages": MESSAGES,
        "trigger": "auto",
        "customInstructions": "keep names",
    }
    after = HookInput(Event.PostCompact, payload={"trigger": "auto", "compact_summary": "sum"})
    envelope = await recorded(after)
    assert envelope["hook_event_name"] == "after_context_compact"
    assert envelope["context"] == {"summaryText": "sum", "trigger": "auto"}
