"""PicoClaw sync builtins run on the session's worker pool: hung hooks elsewhere in the session
do not starve them, a hung builtin is abandoned and counted, and a builtin raising SystemExit
is a failed hook, not a stopped agent."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from picoclaw_support import Pico, approve_tool

from hookwright import Event, HookInput, Status
from hookwright.core.results import Decision
from hookwright.dialects.picoclaw import register_builtin, unregister_builtin

WAIT = 60.0


class Gate:
    """A builtin whose approver answers by command; `hang` blocks until released."""

    released = threading.Event()

    def __init__(self, config: Any) -> None:
        self.config = config

    def approve_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        command = params["arguments"]["command"]
        if command == "hang":
            Gate.released.wait(WAIT)
        if command == "exit":
            raise SystemExit(7)
        return {"approved": command == "ls", "reason": f"gate saw {command}"}


@pytest.fixture
def gate(pico: Pico) -> Iterator[Pico]:
    Gate.released.clear()
    register_builtin("gate", Gate)
    try:
        result = pico.load({"builtins": {"gate": {"config": {}, "timeout_ms": 300}}})
        assert result.diagnostics == []
        yield pico
    finally:
        unregister_builtin("gate")
        Gate.released.set()


async def test_hung_timed_hooks_do_not_starve_builtins(gate: Pico) -> None:
    engine = gate.engine
    release = threading.Event()

    def hung(inp: HookInput) -> None:
        release.wait(WAIT)

    for index in range(8):
        engine.add(hung, Event.Notification, timeout=0.2, name=f"hung{index}")
    try:
        stuck = await engine.dispatch(HookInput(Event.Notification, payload={"message": "x"}))
        assert [r.status for r in stuck.results] == [Status.timeout] * 8
        denied = await engine.dispatch(approve_tool(command="rm"))
        assert (denied.decision, denied.reason) == (Decision.deny, "gate saw rm")
        allowed = await engine.dispatch(approve_tool(command="ls"))
        assert allowed.decision is not Decision.deny
        assert engine.services.workers.abandoned == 8
    finally:
        release.set()


async def test_a_hung_builtin_is_abandoned_and_denies(gate: Pico) -> None:
    verdict = await gate.engine.dispatch(approve_tool(command="hang"))
    assert (verdict.decision, verdict.reason) == (
        Decision.deny,
        'tool approval hook "gate" timed out',
    )
    assert gate.engine.services.workers.abandoned == 1


async def test_a_builtin_raising_system_exit_fails_closed(gate: Pico) -> None:
    verdict = await gate.engine.dispatch(approve_tool(command="exit"))
    assert (verdict.decision, verdict.reason) == (Decision.deny, 'tool approval hook "gate" failed')
    [result] = verdict.results
    assert result.status is Status.error and result.error == "SystemExit: 7"
    again = await gate.engine.dispatch(approve_tool(command="rm"))
    assert again.reason == "gate saw rm"
