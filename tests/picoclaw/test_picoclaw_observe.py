"""The observation stream: engine runtime events -> hook.event / hook.runtime_event."""

from __future__ import annotations

import time
from typing import Any

import pytest
from picoclaw_support import Pico, until

from bounds import GENEROUS_BOUND, SLOW
from hookwright.dialects.picoclaw import attach_observers, registered_processes
from hookwright.dialects.picoclaw.observe import legacy_event_params, runtime_event_params
from hookwright.engine.observed import RuntimeEvent

SCOPE = {"agent_id": "agent-1", "session_key": "session-1", "turn_id": "turn-1"}
TOOL_START = {"Tool": "echo_text", "Arguments": {"text": "hello"}, "scope": SCOPE}


def observer(pico: Pico, observe: list[str], protocol: str = "seed", **options: Any) -> Any:
    hook = pico.hook("watch", options.pop("spec", None))
    pico.load(
        {
            "protocol": protocol,
            "processes": {"watch": hook.config(observe=observe, **options)},
        }
    )
    attached = attach_observers(pico.engine)
    assert [t.name for t in attached] == ["watch"]
    return hook


async def test_seed_hook_event_matches_the_seed_example(pico: Pico) -> None:
    hook = observer(pico, ["tool_exec_start"], seed_event_kind="name")
    pico.engine.publish("agent.tool.exec_start", TOOL_START)
    assert await until(lambda: bool(hook.messages("hook.event")))
    (message,) = hook.messages("hook.event")
    assert "id" not in message
    params = message["params"]
    assert params["Kind"] == "tool_exec_start"
    assert params["Meta"]["AgentID"] == "agent-1" and params["Meta"]["TurnID"] == "turn-1"
    assert set(params["Meta"]) == {
        "AgentID",
        "TurnID",
        "ParentTurnID",
        "SessionKey",
        "Iteration",
        "TracePath",
        "Source",
    }
    assert params["Payload"] == {"Tool": "echo_text", "Arguments": {"text": "hello"}}
    assert params["Time"].endswith("Z")


async def test_seed_kind_is_the_integer_picoclaw_sent(pico: Pico) -> None:
    hook = observer(pico, ["*"])
    pico.engine.publish("agent.tool.exec_start", TOOL_START)
    pico.engine.publish("gateway.ready", {})
    pico.engine.publish("agent.error", {"Stage": "llm", "Message": "boom"})
    assert await until(lambda: len(hook.messages("hook.event")) == 2)
    pico.engine.observers.drain()
    assert [m["params"]["Kind"] for m in hook.messages("hook.event")] == [8, 18]


async def test_current_runtime_event_envelope(pico: Pico) -> None:
    hook = observer(pico, ["agent.tool.exec_end"], protocol="current")
    payload = {
        "Tool": "bash",
        "Duration": 5_000_000,
        "ForLLMLen": 3,
        "ForUserLen": 0,
        "IsError": True,
        "Async": False,
        "scope": {**SCOPE, "channel": "cli", "chat_id": "chat-1"},
        "attrs": {"iteration": 2},
    }
    pico.engine.publish("agent.tool.exec_start", TOOL_START)
    pico.engine.publish("agent.tool.exec_end", payload)
    assert await until(lambda: bool(hook.messages("hook.runtime_event")))
    pico.engine.observers.drain()
    (message,) = hook.messages("hook.runtime_event")
    params = message["params"]
    assert params["kind"] == "agent.tool.exec_end"
    assert params["source"] == {"component": "agent", "name": "agent-1"}
    assert params["scope"] == payload["scope"]
    # where PicoClaw emits an exec_end; a failed tool is a warning there
    assert params["correlation"] == {"trace_id": "turn.tool.end"}
    assert params["severity"] == "warn"
    assert params["attrs"] == {"agent_source": "runTurn", "iteration": 2}
    assert params["payload"] == {
        "Tool": "bash",
        "Duration": 5_000_000,
        "ForLLMLen": 3,
        "ForUserLen": 0,
        "IsError": True,
        "Async": False,
    }
    assert params["id"] and params["time"].endswith("Z")


async def test_publishing_never_waits_for_a_stuck_observer(pico: Pico) -> None:
    hook = observer(
        pico,
        ["*"],
        spec={"hello": {"delay": SLOW, "result": {}}},
    )
    started = time.monotonic()
    for n in range(200):
        pico.engine.publish("agent.llm.delta", {"ContentDeltaLen": n})
    assert time.monotonic() - started < GENEROUS_BOUND
    pico.engine.observers.drain(timeout=GENEROUS_BOUND)
    (target,) = registered_processes(pico.engine)
    # 64 notifications wait for the slow handshake; the rest are dropped and counted.
    assert target.rpc.dropped_notifications == 200 - 64
    assert hook.messages("hook.event") == []


def test_envelope_meta_is_derived_for_legacy_events() -> None:
    event = RuntimeEvent(
        "agent.turn.end",
        {
            "Status": "completed",
            "scope": SCOPE,
            "correlation": {"parent_turn_id": "p-1", "trace_id": "turn.end"},
            "attrs": {"agent_source": "runTurn", "iteration": 3},
        },
        time=0.0,
        seq=1,
    )
    params = legacy_event_params(event)
    assert params == {
        "Kind": 1,
        "Time": "1970-01-01T00:00:00Z",
        "Meta": {
            "AgentID": "agent-1",
            "TurnID": "turn-1",
            "ParentTurnID": "p-1",
            "SessionKey": "session-1",
            "Iteration": 3,
            "TracePath": "turn.end",
            "Source": "runTurn",
        },
        "Payload": {"Status": "completed"},
    }


@pytest.mark.parametrize(
    ("kind", "payload", "severity"),
    [
        ("agent.turn.end", {"Status": "error"}, "error"),
        ("agent.turn.end", {"Status": "aborted"}, "warn"),
        ("agent.turn.end", {"Status": "completed"}, "info"),
        ("agent.llm.retry", {}, "warn"),
        ("agent.tool.exec_end", {"IsError": True}, "warn"),
        ("agent.tool.exec_end", {"IsError": False}, "info"),
        ("agent.subturn.orphan", {}, "error"),
        ("gateway.ready", {}, "info"),
    ],
)
def test_runtime_event_severity(kind: str, payload: dict[str, Any], severity: str) -> None:
    params = runtime_event_params(RuntimeEvent(kind, payload, 0.0, 1))
    assert params["severity"] == severity
    assert params["source"]["component"] == kind.split(".")[0]


async def test_attach_is_idempotent(pico: Pico) -> None:
    hook = observer(pico, ["turn_end"])
    assert attach_observers(pico.engine) == []
    pico.engine.publish("agent.turn.end", {"Status": "completed"})
    assert await until(lambda: bool(hook.messages("hook.event")))
    pico.engine.observers.drain()
    time.sleep(0.1)
    assert len(hook.messages("hook.event")) == 1


@pytest.mark.parametrize(
    ("kind", "trace_id", "source", "iteration"),
    [
        ("agent.turn.start", "turn.start", "runTurn", 1),
        ("agent.tool.exec_skipped", "turn.tool.skipped", "runTurn", 2),
        ("agent.session.summarize", "turn.session.summarize", "summarizeSession", None),
        ("agent.subturn.spawn", "subturn.spawn", "spawnSubTurn", 2),
    ],
)
def test_trace_and_source_are_where_picoclaw_emits_the_kind(
    kind: str, trace_id: str, source: str, iteration: int | None
) -> None:
    event = RuntimeEvent(kind, {"scope": SCOPE, "attrs": {"iteration": 2}}, 0.0, 1)
    params = runtime_event_params(event)
    assert params["correlation"] == {"trace_id": trace_id}
    expected = {"agent_source": source, **({"iteration": 2} if iteration else {})}
    assert params["attrs"] == expected
    assert params["time"] == "1970-01-01T00:00:00Z"


def test_iteration_zero_is_left_out_of_attrs() -> None:
    event = RuntimeEvent("agent.turn.start", {"scope": SCOPE, "attrs": {"iteration": 0}}, 0.5, 1)
    params = runtime_event_params(event)
    assert params["attrs"] == {"agent_source": "runTurn"}
    assert params["time"] == "1970-01-01T00:00:00.5Z"
